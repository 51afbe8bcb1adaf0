import { asciiLower, textToBinary } from './bytes.js';
import type { Directive, RobotsGroup, RobotsRule, RobotsTxt } from './parse.js';
import { canonicalLegacy, normalizeRfc9309 } from './pattern.js';
import type { Profile } from './profiles.js';
import { FirstMatch } from './first-match.js';
import { LongestMatch, matchesPattern } from './longest-match.js';
import { preferencesFor } from './usage.js';
import type { Preferences } from './usage.js';
import { ROBOTS_TXT_PATH, getPathParamsQuery } from './url.js';

/** The rule that decided a verdict, as written in the file. */
export interface DecidingRule {
  readonly directive: Directive;
  readonly pattern: string;
  readonly line: number;
}

/** Whether a crawler may fetch a URL, and the rule that decided it (null: no rule applied). */
export interface Verdict {
  readonly allowed: boolean;
  readonly rule: DecidingRule | null;
}

/** The rules one crawler obeys in one robots.txt, ready to evaluate many URLs. */
export interface AgentRules {
  readonly agent: string;
  readonly profile: Profile;
  /**
   * `specific`: groups naming the agent apply; `global`: it falls under "*";
   * `none`: no group applies and everything is allowed.
   */
  readonly source: 'specific' | 'global' | 'none';
  /** The groups that apply, in file order. */
  readonly groups: readonly RobotsGroup[];
  /** Their rules, in file order. */
  readonly rules: readonly RobotsRule[];
  /** Evaluates a URL (absolute, or a path), taken as the crawler would request it. */
  evaluate(url: string): Verdict;
  /**
   * Evaluates a URL made ready by `prepareUrl` for this profile: the same verdict as
   * `evaluate`, for evaluating one set of URLs against many crawlers' rules.
   */
  readonly evaluatePrepared: (prepared: PreparedUrl) => Verdict;
  /**
   * The usage preferences (Content-Usage, Content-Signal) that apply to a URL for this
   * crawler; null when it may not fetch the URL (preferences apply only to what it may).
   */
  preferences(url: string): Preferences | null;
  /** What the file states for the URL for this crawler, whether or not it may fetch it. */
  statedPreferences(url: string): Preferences;
}

/** A URL in the form a profile's rules are matched against (see prepareUrl). */
export type PreparedUrl = string | typeof ALWAYS_ALLOWED;

/** The URL every rule set allows under the profile (/robots.txt itself, for some). */
const ALWAYS_ALLOWED = null;

/**
 * A URL (absolute, or a path) in the form the profile's rules are matched against: its
 * path, params and query as the crawler requests it, in the profile's comparison form.
 */
export function prepareUrl(url: string, profile: Profile): PreparedUrl {
  const path = getPathParamsQuery(url);
  // The draft and the 1996 standard: /robots.txt itself is always allowed.
  if (profile !== 'google' && path === ROBOTS_TXT_PATH) return ALWAYS_ALLOWED;
  return profile === 'google'
    ? textToBinary(path)
    : profile === 'rfc9309'
      ? normalizeRfc9309(textToBinary(path), false)
      : canonicalLegacy(textToBinary(path));
}

/** Selects the groups an agent obeys under the profile the file was read with. */
export function selectGroups(
  robots: RobotsTxt,
  agent: string,
): { source: AgentRules['source']; groups: RobotsGroup[] } {
  const name = asciiLower(agent);
  const { groups } = robots;
  if (robots.profile === 'legacy') {
    // Seed 004: the first record with a name that is a case-insensitive substring of
    // the robot's name, else the first "*" record; records are never merged.
    const named = groups.find((g) =>
      g.agents.some((a) => !a.global && a.token !== '' && name.includes(asciiLower(a.token))),
    );
    if (named) return { source: 'specific', groups: [named] };
    const any = groups.find((g) => g.agents.some((a) => a.global));
    return any ? { source: 'global', groups: [any] } : { source: 'none', groups: [] };
  }
  // Google and RFC 9309: every group naming the agent, merged (seed 000, seed 001).
  const named = groups.filter((g) =>
    g.agents.some((a) => !a.global && asciiLower(a.token) === name),
  );
  if (named.length > 0) return { source: 'specific', groups: named };
  const global = groups.filter((g) => g.agents.some((a) => a.global));
  if (global.length === 0) return { source: 'none', groups: [] };
  // Google merges every "*" group; the draft says to obey the first one.
  return { source: 'global', groups: robots.profile === 'google' ? global : global.slice(0, 1) };
}

export interface CompileOptions {
  /**
   * Evaluations answered by scanning the rules before they are indexed in a trie
   * (default INDEX_AFTER). Verdicts are the same either way; this only trades the cost of
   * building the index against the cost of scanning.
   */
  readonly indexAfter?: number;
}

/**
 * Building the index costs about as much as scanning the rules for 24 URLs, whatever
 * their number (500 rules: 0.69 ms against 29 µs a URL, docs/performance.md), so it pays
 * only for a crawler asked about more URLs than that after it is built. A check asks each
 * of a site's matchers about its watched URLs (20 in the benchmark, a few dozen usually):
 * they are scanned. A crawler asked about more (sitemap coverage, eval of a URL list, a
 * large watch list) is indexed after its first 32.
 */
const INDEX_AFTER = 32;

/**
 * Compiles the rules an agent obeys. Parse once, compile once per agent, then evaluate
 * many URLs (see LongestMatch and FirstMatch for how).
 */
export function compileAgent(
  robots: RobotsTxt,
  agent: string,
  options: CompileOptions = {},
  shared?: SharedMatchers,
): AgentRules {
  const { source, groups } = selectGroups(robots, agent);
  const { profile } = robots;
  // Crawlers that obey the same groups (most fall under "*") share one matcher.
  const key = shared === undefined ? undefined : selectionKey(groups);
  let compiled = key === undefined ? undefined : shared!.get(key);
  if (compiled === undefined) {
    compiled = compileGroups(robots, groups, options);
    if (key !== undefined) shared!.set(key, compiled);
  }
  const { rules, decide, stated } = compiled;
  return {
    agent,
    profile,
    source,
    groups,
    rules,
    evaluate(url: string): Verdict {
      return decide(prepareUrl(url, profile));
    },
    preferences(url: string): Preferences | null {
      const prepared = prepareUrl(url, profile);
      return decide(prepared).allowed ? stated(prepared) : null;
    },
    statedPreferences(url: string): Preferences {
      return stated(prepareUrl(url, profile));
    },
    evaluatePrepared: decide,
  };
}

/** A selection of groups as a key: their lines. */
function selectionKey(groups: readonly RobotsGroup[]): string {
  let key = '';
  for (let i = 0; i < groups.length; i++)
    key += i === 0 ? `${groups[i]!.line}` : ` ${groups[i]!.line}`;
  return key;
}

/** What the crawlers obeying one selection of groups share: their rules, compiled. */
interface CompiledGroups {
  readonly rules: readonly RobotsRule[];
  readonly decide: (prepared: PreparedUrl) => Verdict;
  readonly stated: (prepared: PreparedUrl) => Preferences;
}

/**
 * Compiled groups of one parsed file, by the groups selected (their lines): give the same
 * map to each compileAgent of that file to compile each selection once.
 */
export type SharedMatchers = Map<string, CompiledGroups>;

function compileGroups(
  robots: RobotsTxt,
  groups: readonly RobotsGroup[],
  options: CompileOptions,
): CompiledGroups {
  const rules = groups.flatMap((g) => g.rules);
  const { profile } = robots;
  const indexAfter = options.indexAfter ?? INDEX_AFTER;
  const matcher =
    profile === 'legacy'
      ? new FirstMatch(rules, indexAfter)
      : new LongestMatch(rules, profile, indexAfter);
  const groupLines = new Set(groups.map((g) => g.line));
  return {
    rules,
    decide: (prepared) => (prepared === ALWAYS_ALLOWED ? ALLOWED : matcher.decide(prepared)),
    stated: (prepared) =>
      preferencesFor(
        robots.usage,
        groupLines,
        // /robots.txt itself (always allowed under some profiles) is matched as its path.
        prepared === ALWAYS_ALLOWED ? ROBOTS_TXT_PATH : prepared,
        profile === 'legacy' ? (p, pattern) => p.startsWith(pattern) : matchesPattern,
      ),
  };
}

const ALLOWED: Verdict = { allowed: true, rule: null };
