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
import { compileAgent } from '../robots/index.js';
import type { DecidingRule, Directive, RobotsTxt } from '../robots/index.js';
import { ParseCache, resolveState } from './verdicts.js';
import type { SiteState, WatchedAgent } from './verdicts.js';

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
  state: SiteState,
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

  constructor(paths: readonly string[], cache: ParseCache) {
    this.#paths = paths;
    this.#cache = cache;
  }

  evaluate(state: SiteState, agent: WatchedAgent): Evaluated {
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
      const allowed = new Uint8Array(n);
      const deciding: (DecidingRule | null)[] = new Array<DecidingRule | null>(n);
      for (let i = 0; i < n; i++) {
        const verdict = rules.evaluate(this.#paths[i]!);
        allowed[i] = verdict.allowed ? 1 : 0;
        deciding[i] = verdict.rule;
      }
      known = { allowed, rules: deciding, access: null };
      byGroups.set(key, known);
    }
    return known;
  }
}

/** Coverage of a URL set (paths of the site) for each crawler in one state. */
export function computeCoverage(
  state: SiteState,
  paths: readonly string[],
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): Coverage {
  const evaluator = new Evaluator(paths, cache);
  const prefixes = paths.map(pathPrefix);
  const summaries = new Map<Evaluated, Omit<AgentCoverage, 'agent'>>();
  return {
    urls: paths.length,
    agents: agents.map((agent) => {
      const evaluated = evaluator.evaluate(state, agent);
      let summary = summaries.get(evaluated);
      if (summary === undefined) {
        summary = summarise(evaluated, paths, prefixes);
        summaries.set(evaluated, summary);
      }
      return { agent: agent.token, ...summary };
    }),
  };
}

function summarise(
  evaluated: Evaluated,
  paths: readonly string[],
  prefixes: readonly string[],
): Omit<AgentCoverage, 'agent'> {
  const n = paths.length;
  const byRule = new Map<DecidingRule, { urls: number; samples: string[] }>();
  const byPrefix = new Map<string, { disallowed: number; urls: number }>();
  const samples: string[] = [];
  let allowed = 0;
  for (let i = 0; i < n; i++) {
    const ok = evaluated.allowed[i] === 1;
    if (ok) allowed++;
    else if (samples.length < SAMPLES) samples.push(paths[i]!);
    const rule = evaluated.rules[i];
    if (rule !== null && rule !== undefined) {
      let entry = byRule.get(rule);
      if (entry === undefined) byRule.set(rule, (entry = { urls: 0, samples: [] }));
      entry.urls++;
      if (entry.samples.length < SAMPLES) entry.samples.push(paths[i]!);
    }
    const prefix = prefixes[i]!;
    let counts = byPrefix.get(prefix);
    if (counts === undefined) byPrefix.set(prefix, (counts = { disallowed: 0, urls: 0 }));
    counts.urls++;
    if (!ok) counts.disallowed++;
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
  const topPrefixes = [...byPrefix]
    .filter(([, c]) => c.disallowed > 0)
    .map(([prefix, c]) => ({ prefix, ...c }))
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
  before: SiteState,
  after: SiteState,
  paths: readonly string[],
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): CoverageChange[] {
  const old = new Evaluator(paths, cache);
  const now = new Evaluator(paths, cache);
  const changes: CoverageChange[] = [];
  const known = new Map<Evaluated, Map<Evaluated, Omit<CoverageChange, 'agent'>>>();
  for (const agent of agents) {
    const a = old.evaluate(before, agent);
    const b = now.evaluate(after, agent);
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
