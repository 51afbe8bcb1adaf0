/**
 * Usage-preference lines: what a site says crawlers may do with what they fetch, beside
 * what they may fetch.
 *
 * - `Content-Usage: [path] train-ai=n, search=y`: the IETF AIPREF rule
 *   (draft-ietf-aipref-attach, working-group copy of 2026-08-19, section "Robots
 *   Exclusion Protocol Content-Usage Rule"), a rule of a group with an optional path
 *   matched like Allow/Disallow (the longest match applies; rules with the same path
 *   combine, the most restrictive preference winning, vocab section "Combining
 *   Preferences"). The statement is a Structured Fields dictionary (RFC 9651) of the
 *   vocabulary's labels `train-ai` and `search` with tokens `y` or `n`
 *   (draft-ietf-aipref-vocab, same copy, "Exemplary Serialization Format"): anything else
 *   leaves the preference unknown, and a statement that does not parse states nothing.
 * - `Content-Signal: search=yes, ai-input=no, ai-train=no`: Cloudflare's line (keys
 *   `search`, `ai-input`, `ai-train`; `yes` or `no`; a key not listed states nothing),
 *   scoped to the group it is in.
 * - `License: https://…/license.xml`: RSL's pointer to a licence, kept as written.
 *
 * Preferences apply only to URLs the crawler may fetch: a disallowed URL has none.
 */
import { Token, parseDictionary } from 'structured-headers';

/** AIPREF's usage categories, as its exemplary format labels them. */
export const USAGE_CATEGORIES = ['train-ai', 'search'] as const;
export type UsageCategory = (typeof USAGE_CATEGORIES)[number];

/** Cloudflare's Content-Signal keys. */
export const CONTENT_SIGNALS = ['search', 'ai-input', 'ai-train'] as const;
export type ContentSignalKey = (typeof CONTENT_SIGNALS)[number];

/** A Content-Usage rule as written, and what it states. */
export interface UsageRule {
  readonly line: number;
  /** The path as written ("" when absent: the rule applies to every path). */
  readonly path: string;
  /** The path in the profile's comparison form (as Allow/Disallow patterns are kept). */
  readonly match: string;
  /** The statement of preference as written. */
  readonly statement: string;
  /** The explicit preferences it states (a category absent: unknown). */
  readonly preferences: Readonly<Partial<Record<UsageCategory, 'y' | 'n'>>>;
  /** The line of the group it belongs to; null outside any group (it applies to no crawler). */
  readonly group: number | null;
}

/** A Content-Signal line. */
export interface ContentSignal {
  readonly line: number;
  readonly statement: string;
  readonly signals: Readonly<Partial<Record<ContentSignalKey, 'yes' | 'no'>>>;
  /** The line of the group it belongs to; null before any group (it applies to every crawler). */
  readonly group: number | null;
}

/** A License line (RSL). */
export interface LicenseLine {
  readonly line: number;
  readonly url: string;
}

export interface UsageLines {
  readonly rules: readonly UsageRule[];
  readonly signals: readonly ContentSignal[];
  readonly licenses: readonly LicenseLine[];
}

export const NO_USAGE_LINES: UsageLines = Object.freeze({
  rules: Object.freeze([]),
  signals: Object.freeze([]),
  licenses: Object.freeze([]),
});

/**
 * A Content-Usage value split as the draft says: a value starting with "/" is a path up
 * to the first space or tab, then the statement; otherwise all of it is the statement.
 */
export function splitUsageValue(value: string): { path: string; statement: string } {
  if (!value.startsWith('/')) return { path: '', statement: value.trim() };
  const space = value.search(/[ \t]/);
  return space === -1
    ? { path: value, statement: '' }
    : { path: value.slice(0, space), statement: value.slice(space + 1).trim() };
}

/**
 * The explicit preferences of an AIPREF statement, or why it states nothing: a statement
 * that is not a Structured Fields dictionary (uppercase keys included) states nothing.
 */
export function readUsageStatement(statement: string): {
  preferences: Partial<Record<UsageCategory, 'y' | 'n'>>;
  error: string | null;
} {
  const dictionary = parseSf(statement);
  if (typeof dictionary === 'string') return { preferences: {}, error: dictionary };
  const preferences: Partial<Record<UsageCategory, 'y' | 'n'>> = {};
  for (const category of USAGE_CATEGORIES) {
    const value = tokenOf(dictionary.get(category)?.[0]);
    if (value === 'y' || value === 'n') preferences[category] = value;
  }
  return { preferences, error: null };
}

/** The signals of a Content-Signal line, or why it states nothing. */
export function readContentSignal(statement: string): {
  signals: Partial<Record<ContentSignalKey, 'yes' | 'no'>>;
  error: string | null;
} {
  const dictionary = parseSf(statement);
  if (typeof dictionary === 'string') return { signals: {}, error: dictionary };
  const signals: Partial<Record<ContentSignalKey, 'yes' | 'no'>> = {};
  const odd: string[] = [];
  for (const key of CONTENT_SIGNALS) {
    const entry = dictionary.get(key);
    if (entry === undefined) continue;
    const value = tokenOf(entry[0]);
    if (value === 'yes' || value === 'no') signals[key] = value;
    else odd.push(key);
  }
  return {
    signals,
    error: odd.length === 0 ? null : `${odd.join(', ')} must be yes or no`,
  };
}

/** A dictionary value's token text; undefined for any other kind of value. */
function tokenOf(value: unknown): string | undefined {
  return value instanceof Token ? value.toString() : undefined;
}

/** A Structured Fields dictionary, or a one-line reason it is not one. */
function parseSf(text: string): ReturnType<typeof parseDictionary> | string {
  if (text === '') return 'nothing is stated';
  try {
    return parseDictionary(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Parse error: /, '') : '';
    return /[A-Z]/.test(text) && /uppercase|begin with/i.test(reason)
      ? 'its labels must be lowercase'
      : `it is not a list of label=value pairs (${reason.toLowerCase()})`;
  }
}

/** What applies to one URL for one crawler: AIPREF preferences and Content-Signal signals. */
export interface Preferences {
  /** Each category with an explicit preference (absent: unknown). */
  readonly usage: Readonly<Partial<Record<UsageCategory, 'y' | 'n'>>>;
  /** The Content-Usage line each preference comes from. */
  readonly usageLines: Readonly<Partial<Record<UsageCategory, number>>>;
  readonly signals: Readonly<Partial<Record<ContentSignalKey, 'yes' | 'no'>>>;
  /** The Content-Signal line each signal comes from. */
  readonly signalLines: Readonly<Partial<Record<ContentSignalKey, number>>>;
}

/**
 * The preferences for a path (in the profile's comparison form) from the usage lines of
 * the groups a crawler obeys (`groups`: their lines). `matches(path, pattern)` is the
 * profile's Allow/Disallow matcher. The caller has checked the crawler may fetch the path.
 */
export function preferencesFor(
  lines: UsageLines,
  groups: ReadonlySet<number>,
  path: string,
  matches: (path: string, pattern: string) => boolean,
): Preferences {
  // The longest matching Content-Usage path decides; an absent path matches with length 0.
  let best = -1;
  let deciding: UsageRule[] = [];
  for (const rule of lines.rules) {
    if (rule.group === null || !groups.has(rule.group)) continue;
    if (rule.match !== '' && !matches(path, rule.match)) continue;
    const length = rule.match.length;
    if (length > best) {
      best = length;
      deciding = [rule];
    } else if (length === best) deciding.push(rule);
  }
  // Rules with the same path combine: a disallowing preference wins, then an allowing one.
  const usage: Partial<Record<UsageCategory, 'y' | 'n'>> = {};
  const usageLines: Partial<Record<UsageCategory, number>> = {};
  for (const rule of deciding)
    for (const category of USAGE_CATEGORIES) {
      const value = rule.preferences[category];
      if (value === undefined || usage[category] === 'n' || usage[category] === value) continue;
      usage[category] = value;
      usageLines[category] = rule.line;
    }
  // Content-Signal: the lines of its groups, or, if none, those before any group; a later
  // line's key overrides an earlier one's.
  const own = lines.signals.filter((s) => s.group !== null && groups.has(s.group));
  const applying = own.length > 0 ? own : lines.signals.filter((s) => s.group === null);
  const signals: Partial<Record<ContentSignalKey, 'yes' | 'no'>> = {};
  const signalLines: Partial<Record<ContentSignalKey, number>> = {};
  for (const line of applying)
    for (const [key, value] of Object.entries(line.signals) as [ContentSignalKey, 'yes' | 'no'][]) {
      signals[key] = value;
      signalLines[key] = line.line;
    }
  return { usage, usageLines, signals, signalLines };
}
