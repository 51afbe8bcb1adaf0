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
export const SAMPLES = 3;
/** Prefixes kept per crawler. */
export const TOP_PREFIXES = 10;
/** Rules kept per crawler (the ones deciding the most URLs). */
export const TOP_RULES = 50;

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
export interface Evaluated {
  readonly allowed: Uint8Array;
  readonly rules: (DecidingRule | null)[];
  readonly access: 'unreachable' | 'unavailable' | null;
}

/** Evaluates the URL set once per distinct rule set the crawlers obey. */
export class Evaluator {
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
