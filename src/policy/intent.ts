/**
 * Intent (DESIGN.md: "intent", "site state"): what a site's owner wants crawlers to be
 * able to fetch, and the site judged against it. Pure: rules resolved by config/ go in,
 * the state and the cells that differ come out.
 *
 * An intent is a list of entries `{watch, agents, expect}`: `watch` a watched URL's path
 * (or an absolute URL of the site) or a path prefix ending in `*`, `agents` crawler
 * tokens or presets, `expect` allowed or disallowed. Each watched (URL, crawler) cell
 * takes the expectation of the last entry that matches it; a cell no entry matches is
 * not judged.
 */
import { answers } from './wording/status-words.js';
import type { FetchStatus } from './changes/events.js';
import type { FileCondition } from './file-condition.js';
import type { VerdictCause, WatchVerdict } from './verdicts.js';

export type Expectation = 'allowed' | 'disallowed';

/** An intent entry as the file, the API and the UI write it. */
export interface IntentEntry {
  readonly watch: string;
  readonly agents: readonly string[];
  readonly expect: Expectation;
}

/** An entry resolved: its path (or prefix), its crawlers' tokens, what it expects. */
export interface IntentRule {
  /** A path with its query ("/pricing", "/search?q=x"), or a prefix when `prefix`. */
  readonly path: string;
  readonly prefix: boolean;
  /** Product tokens, lower-cased ("*" is the crawler the file does not name). */
  readonly tokens: readonly string[];
  readonly expect: Expectation;
}

/** Without any intent entry: every watched URL is meant to be crawled by the search engines. */
export const DEFAULT_INTENT: readonly IntentEntry[] = Object.freeze([
  Object.freeze({ watch: '/*', agents: Object.freeze(['@search']), expect: 'allowed' as const }),
]);

/** At most this many entries per intent (a thousand watched URLs, grouped by verdict). */
export const MAX_INTENT_ENTRIES = 5000;

export type SiteState = 'as-intended' | 'not-as-intended' | 'cannot-check';

/** A watched cell whose verdict is not the one intended. */
export interface Violation {
  readonly url: string;
  readonly agent: string;
  readonly expected: Expectation;
  /** What decides the verdict now: the rule, or the access state (null: no rule applies). */
  readonly cause: VerdictCause | null;
}

/** A cell a draft would have differ from the intent, and whether the live file has it differ too. */
export interface LiveMarkedViolation extends Violation {
  /** The live file already has this cell differ (the draft does not make it worse). */
  readonly live: boolean;
}

/** A site judged against its intent. */
export interface IntentEvaluation {
  readonly state: SiteState;
  /**
   * The cells that differ, in the verdicts' order; when more differ than MAX_VIOLATIONS,
   * those kept are whole pages (wholePages), each with all its crawlers.
   */
  readonly violations: readonly Violation[];
  /** How many cells differ (violations may be cut). */
  readonly violationCount: number;
  /** How many cells an entry matched. */
  readonly judged: number;
  /** For `cannot-check`: why, in a sentence for an SEO lead. */
  readonly reason: string | null;
  /**
   * When more cells differ than are kept and they make one block, that block: what an
   * alert's subject says of them all (not kept with the state).
   */
  readonly grid?: ViolationGrid;
}

/**
 * Cells that differ as one block: every one of some pages for every one of some crawlers,
 * with the same expectation (a file that shuts the search engines out of the whole
 * site). Its first pages and crawlers in the verdicts' order, and how many there are.
 */
export interface ViolationGrid {
  readonly expected: Expectation;
  readonly paths: readonly string[];
  readonly pathCount: number;
  readonly agents: readonly string[];
  readonly agentCount: number;
}

/** Violations kept with a state (the count says how many there are). */
export const MAX_VIOLATIONS = 200;

/** Pages and crawlers a grid names (the rest are counted). */
const GRID_NAMES = 3;

/** The pages, crawlers and expectations of every differing cell, past those kept. */
class GridTally {
  readonly paths = new Set<string>();
  readonly agents = new Set<string>();
  readonly expectations = new Set<Expectation>();
  /** "path\nagent" of each cell (a page watched twice makes its cells twice). */
  readonly #cells = new Set<string>();

  constructor(kept: readonly Violation[]) {
    for (const v of kept) this.add(pathOf(v.url), v.agent, v.expected);
  }

  add(path: string, agent: string, expected: Expectation): void {
    this.paths.add(path);
    this.agents.add(agent);
    this.expectations.add(expected);
    this.#cells.add(`${path}\n${agent}`);
  }

  /** The block the cells make (each page for each crawler), if they make one. */
  grid(): ViolationGrid | undefined {
    const [expected, other] = this.expectations;
    if (expected === undefined || other !== undefined) return undefined;
    if (this.paths.size * this.agents.size !== this.#cells.size) return undefined;
    return {
      expected,
      paths: [...this.paths].slice(0, GRID_NAMES),
      pathCount: this.paths.size,
      agents: [...this.agents].slice(0, GRID_NAMES),
      agentCount: this.agents.size,
    };
  }
}

/** What robowatch knows of a site's robots.txt now, for whether it can be judged at all. */
export interface JudgedState {
  readonly status: FetchStatus;
  readonly fileCondition: FileCondition | null;
  /** robowatch refused to fetch it (its address guard), with the reason; null otherwise. */
  readonly refused: string | null;
}

/** Why a site cannot be judged against its intent now, or null when it can. */
export function cannotCheckReason(state: JudgedState): string | null {
  if (state.refused !== null)
    return `robowatch refused to fetch its robots.txt (${state.refused}); fetch.allowPrivateAddresses allows it`;
  if (state.status.access === 'unreachable')
    return `robots.txt ${answers(state.status)}: Google crawls nothing on the site while it does`;
  switch (state.fileCondition) {
    case 'html':
      return 'robots.txt is an HTML page: crawlers find no rules in it and crawl everything';
    case 'utf16':
      return 'robots.txt is UTF-16 text: crawlers find no rules in it and crawl everything';
    case 'binary':
      return 'robots.txt is binary data: crawlers find no rules in it and crawl everything';
    case 'cut':
      return 'robots.txt is larger than 500 KiB: Google ignores every rule past that point';
    case 'robots':
    case null:
      return null;
  }
}

/**
 * The path (with query) of a URL, as intent entries, alerts and pages name a page: what
 * follows its host, "/" when nothing does, without a fragment. Text that is no absolute
 * URL (one typed into a page's query) is said as it is, not taken for "/". By hand, not
 * by the URL parser: it phrases every cell that differs, and watched URLs are normalised
 * already.
 */
export function pathOf(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme === -1) return url;
  let end = scheme + 3;
  for (; end < url.length; end++) {
    const c = url.charCodeAt(end);
    if (c === SLASH || c === QUESTION || c === HASH) break;
  }
  const hash = url.indexOf('#', end);
  const rest = hash === -1 ? url.slice(end) : url.slice(end, hash);
  return rest.charCodeAt(0) === SLASH ? rest : `/${rest}`;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const HASH = 0x23;

/** What the intent expects of one cell: the last matching entry's, or null (not judged). */
export function expectationOf(
  rules: readonly IntentRule[],
  path: string,
  token: string,
): Expectation | null {
  const agent = token.toLowerCase();
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.prefix ? !path.startsWith(rule.path) : path !== rule.path) continue;
    if (rule.tokens.includes(agent)) return rule.expect;
  }
  return null;
}

/** The crawlers blocked from a watched page, by how their blocks stand against the intent. */
export interface BlockedCrawlers {
  /** Blocked only where the intent means them to be. */
  readonly intended: readonly string[];
  /** Blocked from a watched page the intent says nothing of (and from none it forbids). */
  readonly unjudged: readonly string[];
  /** Blocked from a watched page the intent says they should crawl. */
  readonly against: readonly string[];
}

/**
 * The crawlers a state blocks from a watched page, by how the blocks stand against the
 * intent: a crawler is listed once, under the worst of its blocks (against, then
 * unjudged), in the verdicts' order.
 */
export function blockedCrawlers(
  rules: readonly IntentRule[],
  verdicts: readonly Pick<WatchVerdict, 'url' | 'agent' | 'allowed'>[],
): BlockedCrawlers {
  const worst = new Map<string, 0 | 1 | 2>();
  for (const v of verdicts) {
    if (v.allowed) continue;
    const expected = expectationOf(rules, pathOf(v.url), v.agent);
    const rank = expected === 'disallowed' ? 0 : expected === null ? 1 : 2;
    if (rank > (worst.get(v.agent) ?? -1)) worst.set(v.agent, rank);
  }
  const lists: [string[], string[], string[]] = [[], [], []];
  for (const [agent, rank] of worst) lists[rank].push(agent);
  return { intended: lists[0], unjudged: lists[1], against: lists[2] };
}

/** What an intent expects, by crawler and path, as evaluateIntent has looked it up. */
const expectations = new WeakMap<
  readonly IntentRule[],
  Map<string, Map<string, Expectation | null>>
>();

const namedByRules = new WeakMap<readonly IntentRule[], ReadonlySet<string>>();

/** The tokens an intent's rules name (lower-cased), once per intent. */
function namedTokens(rules: readonly IntentRule[]): ReadonlySet<string> {
  let named = namedByRules.get(rules);
  if (named === undefined)
    namedByRules.set(rules, (named = new Set(rules.flatMap((r) => r.tokens))));
  return named;
}

/**
 * Judges a state's verdicts against the intent. `every`, when given, receives every cell
 * that differs, past the MAX_VIOLATIONS kept (the gate's report of each page).
 */
export function evaluateIntent(
  rules: readonly IntentRule[],
  verdicts: readonly Pick<WatchVerdict, 'url' | 'agent' | 'allowed' | 'cause'>[],
  state: JudgedState,
  every?: Violation[],
): IntentEvaluation {
  const reason = cannotCheckReason(state);
  if (reason !== null)
    return { state: 'cannot-check', violations: [], violationCount: 0, judged: 0, reason };
  // No intent: nothing is judged, and the state is as intended.
  if (rules.length === 0)
    return { state: 'as-intended', violations: [], violationCount: 0, judged: 0, reason: null };
  const violations: Violation[] = [];
  let violationCount = 0;
  let judged = 0;
  const paths = new Map<string, string>();
  // Sites sharing an intent share its rules and mostly watch the same paths: each
  // (crawler, path) is looked up in the rules once per process, not once per state. A
  // crawler's verdicts come together: its own table is found once per run of them.
  let known = expectations.get(rules);
  if (known === undefined)
    expectations.set(rules, (known = new Map<string, Map<string, Expectation | null>>()));
  let agent: string | undefined;
  let byPath = new Map<string, Expectation | null>();
  // A crawler no rule names is judged on no URL: its verdicts are passed over (most of
  // the default intent's crawlers: it names the search engines).
  let unnamed = false;
  const named = namedTokens(rules);
  // Past the kept cells, what they all make (a whole site shut, say), for alerts to say.
  let tally: GridTally | undefined;
  let past: Violation[] | undefined;
  for (const verdict of verdicts) {
    if (verdict.agent !== agent) {
      agent = verdict.agent;
      unnamed = !named.has(agent.toLowerCase());
      const found = known.get(agent);
      if (found === undefined) known.set(agent, (byPath = new Map<string, Expectation | null>()));
      else byPath = found;
    }
    if (unnamed) continue;
    let path = paths.get(verdict.url);
    if (path === undefined) paths.set(verdict.url, (path = pathOf(verdict.url)));
    let expected = byPath.get(path);
    if (expected === undefined)
      byPath.set(path, (expected = expectationOf(rules, path, verdict.agent)));
    if (expected === null) continue;
    judged++;
    if ((expected === 'allowed') === verdict.allowed) continue;
    violationCount++;
    const violation = { url: verdict.url, agent: verdict.agent, expected, cause: verdict.cause };
    every?.push(violation);
    if (violations.length < MAX_VIOLATIONS) violations.push(violation);
    else {
      (past ??= []).push(violation);
      (tally ??= new GridTally(violations)).add(path, verdict.agent, expected);
    }
  }
  const grid = tally?.grid();
  return {
    state: violationCount === 0 ? 'as-intended' : 'not-as-intended',
    // Past the cells kept, whole pages: the verdicts come crawler by crawler, and their
    // first 200 would name a page for some of the crawlers it is wrong for.
    violations:
      past === undefined ? violations : wholePages([...violations, ...past], MAX_VIOLATIONS),
    violationCount,
    judged,
    reason: null,
    ...(grid === undefined ? {} : { grid }),
  };
}

/**
 * At most `limit` cells, whole pages in the order their pages come first (each page's
 * cells in their order), or the first page's first cells when it alone has more: a page
 * listed with some of its crawlers would read as spared by the rest.
 */
export function wholePages<V extends Pick<Violation, 'url'>>(
  cells: readonly V[],
  limit: number,
): V[] {
  const pages = new Map<string, V[]>();
  for (const cell of cells) {
    const page = pages.get(cell.url);
    if (page === undefined) pages.set(cell.url, [cell]);
    else page.push(cell);
  }
  const kept: V[] = [];
  for (const page of pages.values()) {
    if (kept.length + page.length > limit) return kept.length === 0 ? page.slice(0, limit) : kept;
    kept.push(...page);
  }
  return kept;
}

/** Which cells "Accept as intended" takes: one, a URL's row, a crawler's column, or all. */
export interface AcceptScope {
  readonly url?: string;
  readonly agent?: string;
}

/**
 * The intent with the current verdicts of some cells taken as intended: an entry per
 * URL (and verdict) of the scope, after the entries it supersedes. An earlier entry for
 * the very same path loses the scope's crawlers (and goes when none are left); other
 * entries stay, and the new ones, being last, win where they match.
 */
export function acceptAsIntended(
  entries: readonly IntentEntry[],
  verdicts: readonly Pick<WatchVerdict, 'url' | 'agent' | 'allowed'>[],
  scope: AcceptScope,
): IntentEntry[] {
  const byPath = new Map<string, { allowed: string[]; disallowed: string[] }>();
  for (const v of verdicts) {
    if (scope.url !== undefined && v.url !== scope.url) continue;
    if (scope.agent !== undefined && v.agent.toLowerCase() !== scope.agent.toLowerCase()) continue;
    const path = pathOf(v.url);
    let groups = byPath.get(path);
    if (groups === undefined) byPath.set(path, (groups = { allowed: [], disallowed: [] }));
    const list = v.allowed ? groups.allowed : groups.disallowed;
    if (!list.includes(v.agent)) list.push(v.agent);
  }
  const taken = new Map<string, Set<string>>();
  for (const [path, groups] of byPath)
    taken.set(path, new Set([...groups.allowed, ...groups.disallowed].map((a) => a.toLowerCase())));
  const kept: IntentEntry[] = [];
  for (const entry of entries) {
    const gone = taken.get(entry.watch);
    if (gone === undefined) {
      kept.push(entry);
      continue;
    }
    const agents = entry.agents.filter((a) => a.startsWith('@') || !gone.has(a.toLowerCase()));
    if (agents.length > 0) kept.push({ ...entry, agents });
  }
  for (const [watch, groups] of byPath) {
    if (groups.allowed.length > 0) kept.push({ watch, agents: groups.allowed, expect: 'allowed' });
    if (groups.disallowed.length > 0)
      kept.push({ watch, agents: groups.disallowed, expect: 'disallowed' });
  }
  return kept;
}
