/**
 * Coverage: a site's whole URL set (from its sitemaps) evaluated for each watched
 * crawler in one state of its robots.txt: how many URLs are allowed and disallowed, the
 * rules that decide them with how many each decides, the path prefixes most affected and
 * a few sample URLs. And between two states: which URLs a change newly disallows, mostly
 * where, and by which line. Pure.
 *
 * Crawlers that obey the same groups under the same profile get the same verdicts: the
 * URLs are evaluated once per distinct rule set, not once per crawler.
 */
import { compileAgent, prepareUrl } from '../robots/index.js';
import type {
  AgentRules,
  DecidingRule,
  Directive,
  PreparedUrl,
  Profile,
  RobotsTxt,
} from '../robots/index.js';
import { ParseCache, resolveState } from './verdicts.js';
import type { RobotsState, WatchedAgent } from './verdicts.js';

/** Sample URLs kept per rule and per crawler. */
const SAMPLES = 3;
/** Prefixes kept per crawler. */
const TOP_PREFIXES = 10;
/** Rules kept per crawler (the ones deciding the most URLs). */
const TOP_RULES = 50;

/** URLs under a path prefix. */
export interface PrefixCount {
  readonly prefix: string;
  readonly urls: number;
}

/** A rule as written, and how many URLs of a set it decides. */
export interface RuleCount {
  readonly line: number;
  readonly directive: Directive;
  readonly pattern: string;
  readonly urls: number;
}

/**
 * Crawlers whose values are the same, together (in first-seen order): crawlers that read
 * the same rules get one line, one row or one cause rather than one each.
 */
export function groupAlike<T>(
  entries: Iterable<readonly [agent: string, value: T]>,
): { agents: string[]; value: T }[] {
  const groups = new Map<string, { agents: string[]; value: T }>();
  for (const [agent, value] of entries) {
    const key = JSON.stringify(value);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { agents: [agent], value });
    else group.agents.push(agent);
  }
  return [...groups.values()];
}

export interface CoverageRule {
  readonly line: number;
  readonly directive: Directive;
  readonly pattern: string;
  /** URLs of the set this rule decides. */
  readonly urls: number;
  /** A few of them (paths). */
  readonly samples: readonly string[];
}

export interface CoveragePrefix {
  /** The first segment of the path: "/products/", "/about". */
  readonly prefix: string;
  readonly disallowed: number;
  /** URLs of the set under it. */
  readonly urls: number;
}

export interface AgentCoverage {
  readonly agent: string;
  readonly allowed: number;
  readonly disallowed: number;
  /** Set when the access state decides every URL (robots.txt unreachable or missing). */
  readonly access: 'unreachable' | 'unavailable' | null;
  /** The deciding rules, most URLs first (disallowing ones before allowing on ties). */
  readonly rules: readonly CoverageRule[];
  /** The prefixes with the most disallowed URLs. */
  readonly prefixes: readonly CoveragePrefix[];
  /** A few disallowed URLs (paths). */
  readonly samples: readonly string[];
}

export interface Coverage {
  /** URLs in the set. */
  readonly urls: number;
  readonly agents: readonly AgentCoverage[];
}

/**
 * The sitemap files of the site that its robots.txt disallows for a crawler (Googlebot
 * by default): Google does not read a sitemap it may not fetch. Only files of the site's
 * origin, and only when rules apply (a site whose robots.txt cannot be read says so
 * otherwise).
 */
export function disallowedSitemaps(
  state: RobotsState,
  urls: readonly string[],
  origin: string,
  agent: WatchedAgent = { token: 'Googlebot', profile: 'google' },
  cache = new ParseCache(),
): { url: string; rule: DecidingRule | null }[] {
  const effective = resolveState(state, agent.profile);
  if (effective.kind !== 'rules') return [];
  const rules = compileAgent(cache.parse(effective.body, agent.profile), agent.token);
  const out: { url: string; rule: DecidingRule | null }[] = [];
  for (const url of urls) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (parsed === undefined || parsed.origin !== origin) continue;
    const verdict = rules.evaluate(parsed.pathname + parsed.search);
    if (!verdict.allowed) out.push({ url, rule: verdict.rule });
  }
  return out;
}

/** A path's first segment: "/products/123" → "/products/", "/about" → "/about". */
export function pathPrefix(path: string): string {
  let end = path.length;
  for (let i = 1; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x2f /* / */) return path.slice(0, i + 1);
    if (c === 0x3f /* ? */ || c === 0x23 /* # */) {
      end = i;
      break;
    }
  }
  return path.slice(0, end) || '/';
}

/** The verdicts of one rule set over the URL set: the deciding rule per URL (null: none). */
interface Evaluated {
  readonly allowed: Uint8Array;
  readonly rules: (DecidingRule | null)[];
  readonly access: 'unreachable' | 'unavailable' | null;
}

/** Evaluates the URL set once per distinct rule set the crawlers obey. */
class Evaluator {
  readonly #cache: ParseCache;
  readonly #paths: readonly string[];
  readonly #byAccess = new Map<string, Evaluated>();
  /** By parsed file (one per body and profile), then by the groups obeyed. */
  readonly #byRules = new Map<RobotsTxt, Map<string, Evaluated>>();
  /** The paths in each profile's comparison form, made once for all its rule sets. */
  readonly #prepared = new Map<Profile, PreparedUrl[]>();

  constructor(paths: readonly string[], cache: ParseCache) {
    this.#paths = paths;
    this.#cache = cache;
  }

  #preparedFor(profile: Profile): PreparedUrl[] {
    let prepared = this.#prepared.get(profile);
    if (prepared === undefined) {
      prepared = this.#paths.map((path) => prepareUrl(path, profile));
      this.#prepared.set(profile, prepared);
    }
    return prepared;
  }

  /**
   * Every crawler's verdicts in one state, in their order. The rule sets not evaluated
   * yet are evaluated together, path by path: what a path costs to make ready for
   * matching (its character pairs) is paid once for all of them.
   */
  evaluateAll(state: RobotsState, agents: readonly WatchedAgent[]): Evaluated[] {
    const fresh: { evaluated: Evaluated; rules: AgentRules; prepared: PreparedUrl[] }[] = [];
    const out = agents.map((agent) => this.#lookup(state, agent, fresh));
    const n = this.#paths.length;
    const evaluated = fresh.map((f) => f.evaluated);
    const rules = fresh.map((f) => f.rules);
    const prepared = fresh.map((f) => f.prepared);
    for (let i = 0; i < n; i++) {
      for (let r = 0; r < rules.length; r++) {
        const verdict = rules[r]!.evaluatePrepared(prepared[r]![i]!);
        evaluated[r]!.allowed[i] = verdict.allowed ? 1 : 0;
        evaluated[r]!.rules[i] = verdict.rule;
      }
    }
    return out;
  }

  /** A crawler's verdicts if known; else their arrays, to fill, added to `fresh`. */
  #lookup(
    state: RobotsState,
    agent: WatchedAgent,
    fresh: { evaluated: Evaluated; rules: AgentRules; prepared: PreparedUrl[] }[],
  ): Evaluated {
    const effective = resolveState(state, agent.profile);
    const n = this.#paths.length;
    if (effective.kind === 'access') {
      let known = this.#byAccess.get(effective.access);
      if (known === undefined) {
        const allowed = new Uint8Array(n).fill(effective.access === 'unavailable' ? 1 : 0);
        known = { allowed, rules: [], access: effective.access };
        this.#byAccess.set(effective.access, known);
      }
      return known;
    }
    const parsed = this.#cache.parse(effective.body, agent.profile);
    const rules = compileAgent(parsed, agent.token);
    let byGroups = this.#byRules.get(parsed);
    if (byGroups === undefined)
      this.#byRules.set(parsed, (byGroups = new Map<string, Evaluated>()));
    // Crawlers obeying the same groups of the same parsed file get the same verdicts.
    const key = rules.groups.map((g) => parsed.groups.indexOf(g)).join(',');
    let known = byGroups.get(key);
    if (known === undefined) {
      known = {
        allowed: new Uint8Array(n),
        rules: new Array<DecidingRule | null>(n).fill(null),
        access: null,
      };
      byGroups.set(key, known);
      fresh.push({ evaluated: known, rules, prepared: this.#preparedFor(agent.profile) });
    }
    return known;
  }
}

/** Coverage of a URL set (paths of the site) for each crawler in one state. */
export function computeCoverage(
  state: RobotsState,
  paths: readonly string[],
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): Coverage {
  const evaluator = new Evaluator(paths, cache);
  const prefixes = new Prefixes(paths);
  const summaries = new Map<Evaluated, Omit<AgentCoverage, 'agent'>>();
  const all = evaluator.evaluateAll(state, agents);
  return {
    urls: paths.length,
    agents: agents.map((agent, k) => {
      const evaluated = all[k]!;
      let summary = summaries.get(evaluated);
      if (summary === undefined) {
        summary = summarise(evaluated, paths, prefixes);
        summaries.set(evaluated, summary);
      }
      return { agent: agent.token, ...summary };
    }),
  };
}

/** The paths' prefixes, each numbered once, so that counting per prefix is indexing. */
class Prefixes {
  /** The prefixes, by number. */
  readonly names: string[] = [];
  /** Each path's prefix number. */
  readonly ofPath: Uint32Array;

  constructor(paths: readonly string[]) {
    const numbers = new Map<string, number>();
    this.ofPath = new Uint32Array(paths.length);
    for (let i = 0; i < paths.length; i++) {
      const prefix = pathPrefix(paths[i]!);
      let number = numbers.get(prefix);
      if (number === undefined) {
        numbers.set(prefix, (number = this.names.length));
        this.names.push(prefix);
      }
      this.ofPath[i] = number;
    }
  }
}

function summarise(
  evaluated: Evaluated,
  paths: readonly string[],
  prefixes: Prefixes,
): Omit<AgentCoverage, 'agent'> {
  const n = paths.length;
  const byRule = new Map<DecidingRule, { urls: number; samples: string[] }>();
  const urlsUnder = new Uint32Array(prefixes.names.length);
  const disallowedUnder = new Uint32Array(prefixes.names.length);
  const samples: string[] = [];
  let allowed = 0;
  let lastRule: DecidingRule | null = null;
  let lastEntry: { urls: number; samples: string[] } | undefined;
  for (let i = 0; i < n; i++) {
    const ok = evaluated.allowed[i] === 1;
    const prefix = prefixes.ofPath[i]!;
    urlsUnder[prefix]!++;
    if (ok) allowed++;
    else {
      disallowedUnder[prefix]!++;
      if (samples.length < SAMPLES) samples.push(paths[i]!);
    }
    const rule = evaluated.rules[i];
    if (rule === null || rule === undefined) continue;
    // Sorted paths run in streaks decided by one rule: look it up once per streak.
    if (rule !== lastRule) {
      lastRule = rule;
      lastEntry = byRule.get(rule);
      if (lastEntry === undefined) byRule.set(rule, (lastEntry = { urls: 0, samples: [] }));
    }
    lastEntry!.urls++;
    if (lastEntry!.samples.length < SAMPLES) lastEntry!.samples.push(paths[i]!);
  }
  const rules = [...byRule]
    .map(([rule, { urls, samples }]) => ({ ...rule, urls, samples }))
    .sort(
      (a, b) =>
        b.urls - a.urls ||
        (a.directive === b.directive ? 0 : a.directive === 'disallow' ? -1 : 1) ||
        a.line - b.line,
    )
    .slice(0, TOP_RULES);
  const topPrefixes = prefixes.names
    .map((prefix, k) => ({ prefix, disallowed: disallowedUnder[k]!, urls: urlsUnder[k]! }))
    .filter((c) => c.disallowed > 0)
    .sort((a, b) => b.disallowed - a.disallowed || (a.prefix < b.prefix ? -1 : 1))
    .slice(0, TOP_PREFIXES);
  return {
    allowed,
    disallowed: n - allowed,
    access: evaluated.access,
    rules,
    prefixes: topPrefixes,
    samples,
  };
}

/** For one crawler: the URLs a change newly disallows (and newly allows), mostly where and by what. */
export interface CoverageChange {
  readonly agent: string;
  /** URLs in the set. */
  readonly urls: number;
  readonly newlyDisallowed: number;
  readonly newlyAllowed: number;
  /** Where the newly disallowed URLs are, most first. */
  readonly prefixes: readonly PrefixCount[];
  /** The rules of the new state that disallow them, most first (none: the access state). */
  readonly rules: readonly RuleCount[];
  /** Set when the new state's access decides (robots.txt unreachable). */
  readonly access: 'unreachable' | 'unavailable' | null;
  /** A few newly disallowed URLs. */
  readonly samples: readonly string[];
}

/** What changes between two states over the same URL set, per crawler (only those that change). */
export function compareCoverage(
  before: RobotsState,
  after: RobotsState,
  paths: readonly string[],
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): CoverageChange[] {
  // One evaluator: a rule set both files share (the same file, or identical groups in
  // it) is evaluated once.
  const evaluator = new Evaluator(paths, cache);
  const olds = evaluator.evaluateAll(before, agents);
  const news = evaluator.evaluateAll(after, agents);
  const changes: CoverageChange[] = [];
  const known = new Map<Evaluated, Map<Evaluated, Omit<CoverageChange, 'agent'>>>();
  for (const [k, agent] of agents.entries()) {
    const a = olds[k]!;
    const b = news[k]!;
    let fromA = known.get(a);
    if (fromA === undefined)
      known.set(a, (fromA = new Map<Evaluated, Omit<CoverageChange, 'agent'>>()));
    let change = fromA.get(b);
    if (change === undefined) {
      change = diff(a, b, paths);
      fromA.set(b, change);
    }
    if (change.newlyDisallowed > 0 || change.newlyAllowed > 0)
      changes.push({ agent: agent.token, ...change });
  }
  return changes;
}

function diff(a: Evaluated, b: Evaluated, paths: readonly string[]): Omit<CoverageChange, 'agent'> {
  let newlyDisallowed = 0;
  let newlyAllowed = 0;
  const byPrefix = new Map<string, number>();
  const byRule = new Map<DecidingRule, number>();
  const samples: string[] = [];
  for (let i = 0; i < paths.length; i++) {
    const was = a.allowed[i] === 1;
    const is = b.allowed[i] === 1;
    if (was === is) continue;
    if (is) {
      newlyAllowed++;
      continue;
    }
    newlyDisallowed++;
    const prefix = pathPrefix(paths[i]!);
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
    const rule = b.rules[i];
    if (rule !== null && rule !== undefined) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
    if (samples.length < SAMPLES) samples.push(paths[i]!);
  }
  return {
    urls: paths.length,
    newlyDisallowed,
    newlyAllowed,
    prefixes: [...byPrefix]
      .map(([prefix, urls]) => ({ prefix, urls }))
      .sort((x, y) => y.urls - x.urls || (x.prefix < y.prefix ? -1 : 1))
      .slice(0, TOP_PREFIXES),
    rules: [...byRule]
      .map(([rule, urls]) => ({ ...rule, urls }))
      .sort((x, y) => y.urls - x.urls || x.line - y.line)
      .slice(0, TOP_RULES),
    access: b.access,
    samples,
  };
}

/**
 * The crawlers split into at most `parts` lists for evaluating apart (on threads of their
 * own), so that crawlers that get the same verdicts in every given state stay together
 * and each distinct rule set is evaluated once. Lists are balanced by rule sets; none is
 * empty. Crawlers keep their order within a list.
 */
export function splitAgents(
  states: readonly RobotsState[],
  agents: readonly WatchedAgent[],
  parts: number,
  cache = new ParseCache(),
): WatchedAgent[][] {
  const files = new Map<RobotsTxt, number>();
  const keyOf = (state: RobotsState, agent: WatchedAgent) => {
    const effective = resolveState(state, agent.profile);
    if (effective.kind === 'access') return `access:${effective.access}`;
    const parsed = cache.parse(effective.body, agent.profile);
    let file = files.get(parsed);
    if (file === undefined) files.set(parsed, (file = files.size));
    const groups = compileAgent(parsed, agent.token).groups.map((g) => parsed.groups.indexOf(g));
    return `${file}:${groups.join(',')}`;
  };
  const byKey = new Map<string, WatchedAgent[]>();
  for (const agent of agents) {
    const key = states.map((state) => keyOf(state, agent)).join('|');
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [agent]);
    else list.push(agent);
  }
  const lists: WatchedAgent[][] = Array.from({ length: Math.min(parts, byKey.size) }, () => []);
  let next = 0;
  for (const same of byKey.values()) {
    for (const agent of same) lists[next]!.push(agent);
    next = (next + 1) % lists.length;
  }
  return lists;
}

/**
 * Search Console's "Submitted URL blocked by robots.txt", from a coverage: how many of
 * the sitemap URLs Googlebot may not fetch, and by which lines mostly. Null when the
 * coverage has no Googlebot or it may fetch them all.
 */
export function submittedBlocked(coverage: Coverage, token = 'Googlebot'): string | null {
  const agent = coverage.agents.find((a) => a.agent.toLowerCase() === token.toLowerCase());
  if (agent === undefined || agent.disallowed === 0) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  const of = `${n(agent.disallowed)} of the ${n(coverage.urls)} sitemap URL${coverage.urls === 1 ? '' : 's'}`;
  if (agent.access === 'unreachable')
    return `Submitted URLs blocked: robots.txt cannot be read, so ${agent.agent} fetches none of the ${n(coverage.urls)} sitemap URLs.`;
  const rules = agent.rules
    .filter((r) => r.directive === 'disallow')
    .slice(0, 3)
    .map(
      (r) => `line ${r.line} \`Disallow: ${r.pattern}\` ${n(r.urls)}, e.g. ${r.samples[0] ?? ''}`,
    );
  return `Submitted URL blocked by robots.txt: ${of} are disallowed for ${agent.agent}, which will not crawl them${rules.length === 0 ? '' : ` (${rules.join('; ')})`}. Take them out of the sitemaps or allow them.`;
}

/**
 * `watch: auto`: a handful of the URL set's paths that stand for it in the verdict
 * matrix: the home page, then for each of the `prefixes` largest path prefixes (by URLs)
 * its shortest path and, when the prefix has them, its shortest path with a query string
 * (what `Disallow: /*?` rules catch). Deterministic, so the choice stays put while the set
 * does.
 */
export function representativePaths(paths: readonly string[], prefixes = 8): string[] {
  const byPrefix = new Map<string, { urls: number; plain?: string; query?: string }>();
  const shorter = (a: string | undefined, b: string) =>
    a === undefined || b.length < a.length || (b.length === a.length && b < a) ? b : a;
  for (const path of paths) {
    const prefix = pathPrefix(path);
    let entry = byPrefix.get(prefix);
    if (entry === undefined) byPrefix.set(prefix, (entry = { urls: 0 }));
    entry.urls++;
    if (path.includes('?')) entry.query = shorter(entry.query, path);
    else entry.plain = shorter(entry.plain, path);
  }
  const chosen = new Set<string>(['/']);
  [...byPrefix]
    .sort(([a, x], [b, y]) => y.urls - x.urls || (a < b ? -1 : 1))
    .slice(0, prefixes)
    .forEach(([, entry]) => {
      if (entry.plain !== undefined) chosen.add(entry.plain);
      if (entry.query !== undefined) chosen.add(entry.query);
    });
  return [...chosen];
}
