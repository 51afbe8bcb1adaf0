/**
 * Incidents (DESIGN.md: "incident"): what one judgement of a site against its intent
 * does to its latest incident. Pure: the incident as stored and the evaluation go in,
 * the transition comes out; store/ applies it and queues its alerts.
 */
import { pathOf } from './intent.js';
import { listNames } from './wording/explain-pairs.js';
import { count, differingPairs } from './wording/words.js';
import type {
  Expectation,
  IntentEvaluation,
  SiteState,
  Violation,
  ViolationGrid,
} from './intent.js';

/** The flap window when the configuration does not say (notify.flapWindow). */
export const DEFAULT_FLAP_WINDOW_MS = 3_600_000;

/** A site's latest incident, as the transition needs it. */
export interface LatestIncident {
  readonly id: number;
  readonly state: 'open' | 'resolved';
  readonly siteState: 'not-as-intended' | 'cannot-check';
  readonly violationCount: number;
  readonly worstCount: number;
  readonly causes: readonly string[];
  readonly resolvedAt: Date | null;
}

/**
 * `open`: a new incident; `reopen`: the latest one, resolved within the flap window,
 * again; `update`: the open one changed (`worse`: more cells than ever, a cause it did
 * not have, or it can no longer be checked); `resolve`: as intended again; `none`.
 */
export type IncidentStep =
  | { readonly kind: 'none' }
  | { readonly kind: 'open' }
  | { readonly kind: 'reopen'; readonly id: number }
  | { readonly kind: 'update'; readonly id: number; readonly worse: boolean }
  | { readonly kind: 'resolve'; readonly id: number };

/**
 * The transition one evaluation makes, at `at`: the same trouble back within
 * `flapWindowMs` of a resolution reopens the incident.
 */
export function incidentStep(
  latest: LatestIncident | null,
  evaluation: Pick<IntentEvaluation, 'state' | 'violationCount' | 'violations' | 'reason'>,
  at: Date,
  flapWindowMs: number,
): IncidentStep {
  if (evaluation.state === 'as-intended')
    return latest?.state === 'open' ? { kind: 'resolve', id: latest.id } : { kind: 'none' };
  if (latest === null) return { kind: 'open' };
  const causes = intentCauses(evaluation);
  // A relapse is the same trouble back soon after: another one is an incident of its own.
  if (latest.state === 'resolved')
    return latest.resolvedAt !== null &&
      at.getTime() - latest.resolvedAt.getTime() <= flapWindowMs &&
      causes.some((c) => latest.causes.includes(c))
      ? { kind: 'reopen', id: latest.id }
      : { kind: 'open' };
  const same =
    latest.siteState === evaluation.state &&
    latest.violationCount === evaluation.violationCount &&
    causes.length === latest.causes.length &&
    causes.every((c, i) => c === latest.causes[i]);
  if (same) return { kind: 'none' };
  const worse =
    (evaluation.state === 'cannot-check' && latest.siteState !== 'cannot-check') ||
    evaluation.violationCount > latest.worstCount ||
    causes.some((c) => !latest.causes.includes(c));
  return { kind: 'update', id: latest.id, worse };
}

/** What a judgement keeps on its site's row: the cells that differ, how many, and why. */
export function intentReport(evaluation: IntentEvaluation): Pick<
  IntentEvaluation,
  'violations' | 'violationCount' | 'judged' | 'reason' | 'grid'
> & {
  readonly lead?: string;
} {
  return {
    violations: evaluation.violations,
    violationCount: evaluation.violationCount,
    judged: evaluation.judged,
    reason: evaluation.reason,
    ...(evaluation.grid === undefined ? {} : { grid: evaluation.grid }),
    // Said once, as judged: a page listing sites reads a phrase, not up to 200 cells a site.
    ...(evaluation.state === 'not-as-intended'
      ? {
          lead: intentLead(
            evaluation.state,
            evaluation.violations,
            evaluation.violationCount,
            evaluation.reason ?? undefined,
            evaluation.grid,
          ),
        }
      : {}),
  };
}

/** Since when a site is in the state a judgement finds: as before if it was in it already. */
export function stateSince(
  before: { readonly state: string | null; readonly since: Date | null },
  evaluation: Pick<IntentEvaluation, 'state'>,
  at: Date,
): Date {
  return before.state === evaluation.state && before.since !== null ? before.since : at;
}

/** What an incident says of its site: it cannot be judged page by page (and why), or it is not as intended. */
export function incidentSiteState(
  evaluation: Pick<IntentEvaluation, 'state'>,
): 'cannot-check' | 'not-as-intended' {
  return evaluation.state === 'cannot-check' ? 'cannot-check' : 'not-as-intended';
}

/**
 * Why a site is not as intended, one line per distinct reason, as an SEO lead reads
 * them: the rule that blocks (or lets through) the cells that differ, or why it cannot
 * be checked.
 */
export function intentCauses(
  evaluation: Pick<IntentEvaluation, 'state' | 'violations' | 'reason'>,
): string[] {
  if (evaluation.state === 'cannot-check')
    return [evaluation.reason ?? 'robots.txt cannot be read'];
  return [...new Set(evaluation.violations.map(violationCause))];
}

/** What makes one cell differ from the intent, in words. */
export function violationCause(v: Violation): string {
  const cause = v.cause;
  if (cause === null)
    return v.expected === 'disallowed'
      ? 'no rule disallows what should be kept out'
      : 'no rule applies';
  if (cause.type === 'access')
    return cause.access === 'unavailable'
      ? 'robots.txt is missing (4xx): every crawler may fetch every page'
      : 'robots.txt cannot be fetched: Google crawls nothing';
  const written = `${cause.directive === 'allow' ? 'Allow' : 'Disallow'}: ${cause.pattern}`;
  return `${written} (line ${cause.line}) ${v.expected === 'allowed' ? 'blocks pages meant to be crawled' : 'lets crawlers into pages meant to be kept out'}`;
}

/**
 * What is wrong, in a few words, as an incident's alert leads with it, from the first
 * cells that differ (`listed`, in the verdicts' order) and how many differ in all (`count`).
 * When the listed cells are all of them and make every page × crawler pair of their pages
 * and crawlers, they are said whole ("/pricing and /cart are blocked for Googlebot,
 * Bingbot and 5 more crawlers"); else the first and how many pairs more ("/pricing is
 * blocked for Googlebot, and 13 more page × crawler pairs differ"); two pages each with
 * crawlers of its own, each with them. Or why the site cannot be judged page by page.
 * With `draft`, of a file not yet deployed: "/pricing would be blocked for Googlebot".
 */
export function intentLead(
  state: SiteState,
  listed: readonly Pick<Violation, 'url' | 'agent' | 'expected'>[],
  count: number,
  reason: string | undefined,
  grid?: ViolationGrid,
  draft = false,
): string {
  // Its reason says what crawlers do now ("robots.txt answers 503: Google crawls nothing
  // …"), or that robowatch refused to fetch it: neither is "cannot be checked".
  if (state === 'cannot-check') return reason ?? 'robots.txt cannot be read';
  const be = (one: boolean) => (draft ? 'would be' : one ? 'is' : 'are');
  // More cells than are listed, as one block: said whole.
  if (grid !== undefined && listed.length < count)
    return `${counted(grid.paths, grid.pathCount, 'pages')} ${be(grid.pathCount === 1)} ${grid.expected === 'allowed' ? 'blocked for' : 'open to'} ${counted(grid.agents, grid.agentCount, 'crawlers')}`;
  const first = listed[0];
  if (first === undefined) return 'not as intended';
  const verb = first.expected === 'allowed' ? 'blocked for' : 'open to';
  const alike = listed.filter((v) => v.expected === first.expected);
  const paths = [...new Set(alike.map((v) => pathOf(v.url)))];
  const agents = [...new Set(alike.map((v) => v.agent))];
  if (alike.length === count && paths.length * agents.length === count)
    return `${someOf(paths, 'pages')} ${be(paths.length === 1)} ${verb} ${someOf(agents, 'crawlers')}`;
  if (alike.length === count && paths.length === 2) {
    // Two pages, each for crawlers of its own: "/about is blocked for Googlebot, /cart for …".
    const [one, two] = paths.map((path) =>
      someOf(
        alike.filter((v) => pathOf(v.url) === path).map((v) => v.agent),
        'crawlers',
      ),
    );
    return `${paths[0]} ${be(true)} ${verb} ${one}, ${paths[1]} for ${two}`;
  }
  const more = count - 1;
  const differ = draft ? 'would differ' : more === 1 ? 'differs' : 'differ';
  return `${pathOf(first.url)} ${be(true)} ${verb} ${first.agent}${more > 0 ? `, and ${more} more page × crawler pair${more === 1 ? '' : 's'} ${differ}` : ''}`;
}

/**
 * How far from the intent an incident's site is ("3 watched page × crawler pairs differ
 * from the intent (at worst 5)"), or was, once resolved ("at worst 5 … differed").
 */
export function incidentExtent(incident: {
  readonly state: 'open' | 'resolved';
  readonly siteState: 'not-as-intended' | 'cannot-check';
  readonly violationCount: number;
  readonly worstCount: number;
}): string {
  const resolved = incident.state === 'resolved';
  if (incident.siteState === 'cannot-check')
    return resolved
      ? 'could not be judged against the intent'
      : 'cannot be judged against the intent';
  if (resolved)
    return `at worst ${count(incident.worstCount, 'watched page × crawler pair')} differed from the intent`;
  const worst =
    incident.worstCount > incident.violationCount ? ` (at worst ${incident.worstCount})` : '';
  return `${differingPairs(incident.violationCount)} from the intent${worst}`;
}

/** How often an incident relapsed: "came back 2 times within the flap window". */
export const cameBack = (reopened: number) =>
  `came back ${count(reopened, 'time')} within the flap window`;

/**
 * An open incident in a phrase, as its alerts' subject says it ("/pricing is blocked for
 * Googlebot"), or what crawlers do while it cannot be judged; null once resolved.
 */
export function incidentLead(incident: {
  readonly state: 'open' | 'resolved';
  readonly siteState: 'not-as-intended' | 'cannot-check';
  readonly violations: readonly Pick<Violation, 'url' | 'agent' | 'expected'>[];
  readonly violationCount: number;
  readonly causes: readonly string[];
  readonly grid?: ViolationGrid | null;
}): string | null {
  return incident.state === 'resolved'
    ? null
    : intentLead(
        incident.siteState,
        incident.violations,
        incident.violationCount,
        incident.causes[0],
        incident.grid ?? undefined,
      );
}

/**
 * What a file not yet deployed would do, of every cell that would differ (the gate's and
 * the tester's): the lead in the conditional, with how many pairs differ unless the lead
 * says it already ("/pricing and /cart would be blocked for Googlebot (4 watched page ×
 * crawler pairs differ from the intent)"). `pairs` names them: "watched page × crawler
 * pair", or with "newly" for those the live file gets right.
 */
export function draftLead(
  every: readonly Pick<Violation, 'url' | 'agent' | 'expected'>[],
  pairs: string,
  newly = false,
): string {
  const lead = intentLead('not-as-intended', every, every.length, undefined, undefined, true);
  if (/ more page × crawler pairs? would differ$/.test(lead)) return lead;
  const n = every.length;
  return `${lead} (${count(n, pairs)} ${newly ? 'newly ' : ''}differ${n === 1 ? 's' : ''} from the intent)`;
}

/** "/a", "/a and /b", "/a, /b and /c", "/a, /b and 5 more pages". */
function someOf(names: readonly string[], kind: string): string {
  return counted(names, names.length, kind);
}

/** As someOf, of `total` names of which the first (at least three) are given. */
function counted(first: readonly string[], total: number, kind: string): string {
  if (total <= 3) return listNames(first.slice(0, total));
  return `${first[0]}, ${first[1]} and ${total - 2} more ${kind}`;
}

/**
 * The cells that differ, a line a page in the order they were listed ("`/pricing` is
 * blocked for Googlebot and Bingbot, meant to be crawled"), then how many more pairs
 * differ than were listed.
 */
export function violationLines(
  listed: readonly Pick<Violation, 'url' | 'agent' | 'expected'>[],
  count: number,
): string[] {
  const lines = violationsByPage(listed).map(({ path, expected, agents }) =>
    expected === 'allowed'
      ? `\`${path}\` is blocked for ${namedCrawlers(agents)}, meant to be crawled`
      : `\`${path}\` is open to ${namedCrawlers(agents)}, meant to be kept out`,
  );
  const more = count - listed.length;
  if (more > 0) lines.push(`and ${more} more page × crawler pair${more === 1 ? '' : 's'}`);
  return lines;
}

/** Cells that differ, by page (and by `reason`, when given), in the order first listed. */
export function violationsByPage<V extends Pick<Violation, 'url' | 'agent' | 'expected'>>(
  listed: readonly V[],
  reason: (v: V) => string = () => '',
): { path: string; expected: Expectation; why: string; agents: string[] }[] {
  const pages = new Map<
    string,
    { path: string; expected: Expectation; why: string; agents: string[] }
  >();
  for (const v of listed) {
    const path = pathOf(v.url);
    const why = reason(v);
    const key = `${v.expected}\n${path}\n${why}`;
    let page = pages.get(key);
    if (page === undefined)
      pages.set(key, (page = { path, expected: v.expected, why, agents: [] }));
    page.agents.push(v.agent);
  }
  return [...pages.values()];
}

/** A page's crawlers by name, up to six: "Googlebot, Bingbot, … and 2 more crawlers". */
export function namedCrawlers(agents: readonly string[]): string {
  return agents.length <= 6
    ? listNames(agents)
    : `${agents.slice(0, 5).join(', ')} and ${agents.length - 5} more crawlers`;
}

/** One cell that differs from the intent, as people read it: "`/pricing` is blocked for Googlebot, meant to be crawled". */
export function violationText(v: Pick<Violation, 'url' | 'agent' | 'expected'>): string {
  return v.expected === 'allowed'
    ? `\`${pathOf(v.url)}\` is blocked for ${v.agent}, meant to be crawled`
    : `\`${pathOf(v.url)}\` is open to ${v.agent}, meant to be kept out`;
}
