/** What a new robots.txt or URL set changes in a site's coverage, per crawler. Pure. */
import { compileAgent } from '../robots/index.js';
import type { DecidingRule, RobotsTxt } from '../robots/index.js';
import { ParseCache, resolveState } from './verdicts.js';
import type { RobotsState, WatchedAgent } from './verdicts.js';
import { SAMPLES, TOP_PREFIXES, TOP_RULES, pathPrefix, Evaluator } from './coverage.js';
import type { PrefixCount, RuleCount, Coverage, Evaluated } from './coverage.js';
import { grouped } from './wording/words.js';

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
  const n = (x: number) => grouped(x);
  const of = `${n(agent.disallowed)} of the ${n(coverage.urls)} sitemap URL${coverage.urls === 1 ? '' : 's'}`;
  if (agent.access === 'unreachable')
    return `Submitted URLs blocked: robots.txt cannot be read, so ${agent.agent} fetches none of the ${n(coverage.urls)} sitemap URLs.`;
  const rules = agent.rules
    .filter((r) => r.directive === 'disallow')
    .slice(0, 3)
    .map((r) => {
      const rule = `line ${r.line} \`Disallow: ${r.pattern}\` blocks`;
      const sample = r.samples[0];
      if (sample === undefined) return `${rule} ${n(r.urls)}`;
      return r.urls === 1 ? `${rule} ${sample}` : `${rule} ${n(r.urls)}, e.g. ${sample}`;
    });
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
