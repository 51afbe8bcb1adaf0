/**
 * The cross-site crawler view: for one crawler (GPTBot, Googlebot…), where it is blocked
 * from every watched URL, from some, or from none, on every watched site; and, for every
 * crawler, how many sites each way.
 */
import type { SiteConfig } from '../../config/config.js';
import { pageOf, siteConditionsOf } from './overview.js';
import type { ReadStore } from '../ports.js';
import type { CrawlerCounts } from '../records.js';
import { PURPOSES, PURPOSE_WORDS } from '../../policy/registry.js';
import type { Registry } from '../../policy/registry.js';

/** What one crawler may fetch on one site, most restrictive first. */
export const CRAWLER_VERDICTS = [
  'blocked',
  'partly',
  'down',
  'allowed',
  'unchecked',
  'not-watched',
] as const;
export type CrawlerVerdict = (typeof CRAWLER_VERDICTS)[number];

export const CRAWLER_VERDICT_TEXT: Record<CrawlerVerdict, string> = {
  blocked: 'blocked from every watched page',
  partly: 'blocked from some watched pages',
  down: 'robots.txt cannot be read: Google crawls nothing',
  allowed: 'allowed on every watched page',
  unchecked: 'not checked yet',
  'not-watched': 'not a watched crawler of this site',
};

export interface CrawlerSiteRow {
  readonly id: number;
  readonly site: SiteConfig;
  readonly verdict: CrawlerVerdict;
  /** Watched URLs it may not fetch, of how many (null when not known). */
  readonly disallowed: number | null;
  readonly watched: number | null;
}

export interface CrawlerPage {
  readonly agent: string;
  readonly counts: Readonly<Record<CrawlerVerdict, number>>;
  readonly rows: readonly CrawlerSiteRow[];
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

/** One crawler on every watched site, most restrictive first, a page at a time. */
export async function viewCrawler(
  store: Pick<ReadStore, 'loadCrawlerVerdicts' | 'loadSiteStandings'>,
  sites: readonly { id: number; site: SiteConfig }[],
  agent: string,
  options: { page: number; perPage: number; now: Date; verdict?: CrawlerVerdict },
): Promise<CrawlerPage> {
  const [verdicts, standing] = await Promise.all([
    store.loadCrawlerVerdicts(agent),
    siteConditionsOf(store, options.now),
  ]);
  const counts = Object.fromEntries(CRAWLER_VERDICTS.map((v) => [v, 0])) as Record<
    CrawlerVerdict,
    number
  >;
  const buckets = new Map<CrawlerVerdict, CrawlerSiteRow[]>(CRAWLER_VERDICTS.map((v) => [v, []]));
  for (const { id, site } of sites) {
    const found = verdicts.get(id);
    const condition = standing.condition(id, site.profile);
    let verdict: CrawlerVerdict;
    if (condition === 'none') verdict = 'unchecked';
    else if (condition === 'unreachable') verdict = 'down';
    else if (found === undefined) verdict = 'not-watched';
    else if (found.disallowed === 0) verdict = 'allowed';
    else verdict = found.disallowed >= found.watched ? 'blocked' : 'partly';
    counts[verdict] += 1;
    buckets.get(verdict)!.push({
      id,
      site,
      verdict,
      disallowed: found?.disallowed ?? null,
      watched: found?.watched ?? null,
    });
  }
  const all =
    options.verdict === undefined
      ? CRAWLER_VERDICTS.flatMap((v) => buckets.get(v)!)
      : buckets.get(options.verdict)!;
  const { shown, total, page, pages } = pageOf(
    all.length,
    options.perPage,
    options.page,
    (from, to) => all.slice(from, to),
  );
  return { agent, counts, rows: shown, total, page, pages };
}

/** Every crawler watched on some site, with how many sites block it each way. */
export async function viewCrawlers(
  store: Pick<ReadStore, 'loadCrawlerCounts'>,
): Promise<CrawlerCounts[]> {
  return [...(await store.loadCrawlerCounts())].sort(
    (a, b) => b.blocked - a.blocked || b.partly - a.partly || a.agent.localeCompare(b.agent),
  );
}

export function isCrawlerVerdict(value: string): value is CrawlerVerdict {
  return (CRAWLER_VERDICTS as readonly string[]).includes(value);
}

/** An AI purpose or operator across sites: where all its watched crawlers are blocked, some, none. */
export interface CrawlerGroupRow {
  readonly kind: 'purpose' | 'operator';
  /** "AI training", "OpenAI". */
  readonly label: string;
  /** The preset that watches them: `@ai-training`, `@operator:openai`. */
  readonly preset: string;
  /** Its crawlers in the registry. */
  readonly agents: readonly string[];
  readonly blocked: number;
  readonly partly: number;
  readonly allowed: number;
}

/**
 * The registry's purposes, then its operators with most crawlers first, across the sites
 * that watch any of their crawlers (operators no site watches are left out).
 */
export async function viewCrawlerGroups(
  store: Pick<ReadStore, 'loadGroupCounts'>,
  registry: Registry,
): Promise<CrawlerGroupRow[]> {
  const groups: Omit<CrawlerGroupRow, 'blocked' | 'partly' | 'allowed'>[] = [];
  for (const purpose of PURPOSES) {
    if (purpose === 'other') continue;
    const agents = registry.agents.filter((a) => a.purposes.includes(purpose)).map((a) => a.token);
    if (agents.length > 0)
      groups.push({
        kind: 'purpose',
        label: PURPOSE_WORDS[purpose],
        preset: `@ai-${purpose}`,
        agents,
      });
  }
  const operators = new Map<string, { label: string; agents: string[] }>();
  for (const agent of registry.agents) {
    if (agent.operatorSlug === null || agent.operator === null) continue;
    const known = operators.get(agent.operatorSlug);
    if (known === undefined)
      operators.set(agent.operatorSlug, { label: agent.operator, agents: [agent.token] });
    else known.agents.push(agent.token);
  }
  for (const [slug, { label, agents }] of [...operators].sort(
    (a, b) => b[1].agents.length - a[1].agents.length || a[0].localeCompare(b[0]),
  ))
    groups.push({ kind: 'operator', label, preset: `@operator:${slug}`, agents });
  const counts = new Map(
    (await store.loadGroupCounts(groups.map((g) => ({ name: g.preset, agents: g.agents })))).map(
      (c) => [c.name, c],
    ),
  );
  return groups.flatMap((g) => {
    const c = counts.get(g.preset);
    if (c === undefined && g.kind === 'operator') return [];
    return [{ ...g, blocked: c?.blocked ?? 0, partly: c?.partly ?? 0, allowed: c?.allowed ?? 0 }];
  });
}
