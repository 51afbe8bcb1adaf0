import type { SiteConfig } from '../config/config.js';
import type { Access } from '../policy/access.js';
import { rankEvents } from '../policy/alerts.js';
import type { ChangeEvent } from '../policy/events.js';
import { dailyAccess } from '../policy/history.js';
import type { DayAccess } from '../policy/history.js';
import { siteAccess } from '../policy/verdicts.js';
import type { ReadStore } from './ports.js';
import type { SiteOverview } from './records.js';

export const STRIP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface OverviewRow {
  readonly id: number;
  readonly site: SiteConfig;
  readonly access: Access | 'none';
  readonly overview: SiteOverview;
  /** The last change: the most important event of the last snapshot that brought any. */
  readonly lastChange: { at: Date; event: ChangeEvent; more: number } | null;
  readonly days: readonly DayAccess[];
}

export interface OverviewPage {
  readonly rows: readonly OverviewRow[];
  /** Sites matching the filter, over all pages. */
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

/**
 * The overview: each configured site (matching `query`, a page at a time) with its
 * current access, last change, disallowed counts per agent and a 90-day strip.
 */
export async function viewOverview(
  store: Pick<ReadStore, 'loadOverview' | 'loadDailyStates'>,
  sites: readonly { id: number; site: SiteConfig }[],
  options: { query: string; page: number; perPage: number; now: Date },
): Promise<OverviewPage> {
  const needle = options.query.trim().toLowerCase();
  const matching = needle === '' ? sites : sites.filter((s) => s.site.origin.includes(needle));
  const pages = Math.max(1, Math.ceil(matching.length / options.perPage));
  const page = Math.min(Math.max(1, options.page), pages);
  const shown = matching.slice((page - 1) * options.perPage, page * options.perPage);
  const ids = shown.map((s) => s.id);
  const since = new Date(options.now.getTime() - STRIP_DAYS * DAY_MS);
  const [overviews, daily] = await Promise.all([
    store.loadOverview(ids),
    store.loadDailyStates(ids, since),
  ]);
  const byId = new Map(overviews.map((o) => [o.id, o]));
  return {
    rows: shown.flatMap(({ id, site }) => {
      const overview = byId.get(id);
      if (overview === undefined) return [];
      const access =
        overview.current === null
          ? 'none'
          : siteAccess({ fetch: overview.current, stale: overview.current.stale }, site.profile);
      const days = dailyAccess(daily.get(id) ?? [], site.profile, options.now, STRIP_DAYS);
      const last = overview.lastChange;
      const ranked = last === null ? [] : rankEvents(last.events);
      const lastChange =
        last === null || ranked[0] === undefined
          ? null
          : { at: last.at, event: ranked[0], more: ranked.length - 1 };
      return [{ id, site, access, overview, lastChange, days }];
    }),
    total: matching.length,
    page,
    pages,
  };
}
