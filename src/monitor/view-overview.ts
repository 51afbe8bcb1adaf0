import type { SiteConfig } from '../config/config.js';
import { rankEvents } from '../policy/alerts.js';
import { causeHeadline } from '../policy/explain.js';
import { headline } from '../policy/format.js';
import { dailyAccess } from '../policy/history.js';
import type { DayAccess, DayStates } from '../policy/history.js';
import { siteCondition } from '../policy/site-condition.js';
import type { SiteCondition } from '../policy/site-condition.js';
import { nextCheckAt } from './periods.js';
import type { ReadStore } from './ports.js';
import type { SiteOverview } from './records.js';

export const STRIP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface OverviewRow {
  readonly id: number;
  readonly site: SiteConfig;
  /** Where it stands, as crawlers see it (an HTML page served with 200 is not "ok"). */
  readonly condition: SiteCondition;
  readonly overview: SiteOverview;
  /** The last change in a few words: the most severe cause of the latest new state. */
  readonly lastChange: {
    readonly at: Date;
    readonly snapshotId: number;
    readonly headline: string;
    /** How many more causes that state had. */
    readonly more: number;
  } | null;
  /** How many watched crawlers may not fetch at least one watched URL, of how many. */
  readonly blocking: { readonly crawlers: number; readonly of: number } | null;
  /** When it is next checked: its planned run, else its place in the next period. */
  readonly nextCheckAt: Date;
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
 * The overview: each configured site (matching `query`, a page at a time) with where it
 * stands, its last change in words, how many crawlers it blocks, its next check, and a
 * 90-day strip.
 */
export async function viewOverview(
  store: Pick<ReadStore, 'loadOverview' | 'loadDailyStates'>,
  sites: readonly { id: number; site: SiteConfig }[],
  options: {
    /** Matches origins and names, ignoring case. */
    query: string;
    /** Only sites with this tag, when given. */
    tag?: string;
    page: number;
    perPage: number;
    now: Date;
    timezone: string;
    /** Whether to load the 90-day strip (the API does not show it). */
    strip?: boolean;
  },
): Promise<OverviewPage> {
  const matches = siteFilter(options.query, options.tag);
  const matching = sites.filter(({ site }) => matches(site));
  const pages = Math.max(1, Math.ceil(matching.length / options.perPage));
  const page = Math.min(Math.max(1, options.page), pages);
  const shown = matching.slice((page - 1) * options.perPage, page * options.perPage);
  const ids = shown.map((s) => s.id);
  const since = new Date(options.now.getTime() - STRIP_DAYS * DAY_MS);
  const [overviews, daily] = await Promise.all([
    store.loadOverview(ids),
    options.strip === false ? new Map<number, DayStates[]>() : store.loadDailyStates(ids, since),
  ]);
  const byId = new Map(overviews.map((o) => [o.id, o]));
  return {
    rows: shown.flatMap(({ id, site }) => {
      const overview = byId.get(id);
      if (overview === undefined) return [];
      const agents = site.agents.map((a) => a.token);
      return [
        {
          id,
          site,
          condition: siteCondition(overview.current, site.profile),
          overview,
          lastChange: lastChangeOf(overview, agents),
          blocking:
            overview.current === null
              ? null
              : {
                  crawlers: overview.disallowed.filter((d) => d.disallowed > 0).length,
                  of: overview.disallowed.length,
                },
          nextCheckAt: nextCheckAt(
            site.origin,
            site.schedule,
            options.timezone,
            options.now,
            overview.nextDueAt,
          ),
          days: dailyAccess(daily.get(id) ?? [], site.profile, options.now, STRIP_DAYS),
        },
      ];
    }),
    total: matching.length,
    page,
    pages,
  };
}

/** Whether a site matches a filter: `query` in its origin or name (any case), and `tag`. */
export function siteFilter(query: string, tag: string | undefined): (site: SiteConfig) => boolean {
  const needle = query.trim().toLowerCase();
  return (site) =>
    (needle === '' ||
      site.origin.includes(needle) ||
      (site.name?.toLowerCase().includes(needle) ?? false)) &&
    (tag === undefined || site.tags.includes(tag));
}

/** The last change in a few words: its most severe cause (or, recorded before causes, event). */
export function lastChangeOf(
  overview: Pick<SiteOverview, 'lastChange'>,
  agents: readonly string[],
): OverviewRow['lastChange'] {
  const last = overview.lastChange;
  if (last === null) return null;
  if (last.causes !== null) {
    const [first] = last.causes;
    if (first === undefined) return null;
    return {
      at: last.at,
      snapshotId: last.snapshotId,
      headline: causeHeadline(first, { agents, at: last.at }),
      more: last.causes.length - 1,
    };
  }
  const [event, ...rest] = rankEvents(last.events);
  return event === undefined
    ? null
    : { at: last.at, snapshotId: last.snapshotId, headline: headline(event), more: rest.length };
}
