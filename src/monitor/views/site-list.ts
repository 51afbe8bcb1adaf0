/**
 * The watched sites as the API lists them (GET /api/v1/sites) and `robowatch sites list`
 * prints them: by id, narrowed by text, tag and state, a slice at a time, each with where
 * it stands now (the overview's row, without its 90-day strip).
 */
import type { SiteConfig } from '../../config/config.js';
import type { ReadStore } from '../ports.js';
import { siteFilter, siteStateBitsOf, stateBit, viewOverview } from './overview.js';
import type { OverviewRow, TriageState } from './overview.js';

/** A site as the catalog lists it. */
export interface ListedSite {
  readonly id: number;
  readonly site: SiteConfig;
  readonly pausedAt: Date | null;
}

export interface SiteListQuery {
  /** Matches origins and names, ignoring case. */
  readonly q?: string;
  readonly tag?: string;
  readonly state?: TriageState;
  /** Only sites with a greater id (the API's keyset paging). */
  readonly after?: number;
  /** At most this many; all by default. */
  readonly limit?: number;
}

/** The rows of a slice, and whether sites past it match too. */
export interface SiteListSlice {
  readonly rows: readonly { readonly row: OverviewRow; readonly pausedAt: Date | null }[];
  readonly more: boolean;
}

/** The overview is read this many sites at a time (one query for each). */
const CHUNK = 500;

export async function viewSiteList(
  store: Pick<
    ReadStore,
    'loadOverview' | 'loadDailyStates' | 'loadSiteStandings' | 'loadVerdictsOf'
  >,
  sites: readonly ListedSite[],
  query: SiteListQuery,
  options: { readonly now: Date; readonly timezone: string },
): Promise<SiteListSlice> {
  let all = sites;
  if (query.state !== undefined) {
    // The state needs every site's standing; the paging stays by id.
    const bits = await siteStateBitsOf(store, all, options.now);
    const bit = stateBit(query.state);
    all = all.filter((_, i) => (bits[i]! & bit) !== 0);
  }
  const matches = siteFilter(query.q ?? '', query.tag);
  const after = query.after ?? 0;
  const matching = all
    .filter(({ id, site }) => id > after && matches(site))
    .sort((a, b) => a.id - b.id);
  const limit = query.limit ?? matching.length;
  const chosen = matching.slice(0, limit);
  const rows: SiteListSlice['rows'][number][] = [];
  for (let from = 0; from < chosen.length; from += CHUNK) {
    const part = chosen.slice(from, from + CHUNK);
    const pausedAt = new Map(part.map((e) => [e.id, e.pausedAt]));
    const view = await viewOverview(store, part, {
      query: '',
      page: 1,
      perPage: part.length,
      now: options.now,
      timezone: options.timezone,
      strip: false,
    });
    for (const row of view.rows) rows.push({ row, pausedAt: pausedAt.get(row.id) ?? null });
  }
  return { rows, more: matching.length > limit };
}
