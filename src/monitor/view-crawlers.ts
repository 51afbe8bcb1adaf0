/**
 * The cross-site crawler view: for one crawler (GPTBot, Googlebot…), where it is blocked
 * from every watched URL, from some, or from none, on every watched site; and, for every
 * crawler, how many sites each way.
 */
import type { SiteConfig } from '../config/config.js';
import { siteConditionsOf } from './view-overview.js';
import type { ReadStore } from './ports.js';
import type { CrawlerCounts } from './records.js';

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
  blocked: 'blocked from every watched URL',
  partly: 'blocked from some watched URLs',
  down: 'robots.txt cannot be read: Google crawls nothing',
  allowed: 'allowed on every watched URL',
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
  const pages = Math.max(1, Math.ceil(all.length / options.perPage));
  const page = Math.min(Math.max(1, options.page), pages);
  return {
    agent,
    counts,
    rows: all.slice((page - 1) * options.perPage, page * options.perPage),
    total: all.length,
    page,
    pages,
  };
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
