/**
 * What the commands read of the recorded history, one way whoever holds the database.
 * `localReads` answers from the store with the views the web API answers with; a daemon
 * that holds the embedded database answers the same questions over that API
 * (cli/daemon-client.ts), so `history`, `diff`, `coverage` and `digest` have one path.
 */
import type { Config, SiteConfig } from '../config/config.js';
import { ARCHIVE_START_MS } from '../policy/capture-time.js';
import type { DigestPeriod } from '../policy/digest.js';
import type { Profile } from '../robots/index.js';
import type { z } from 'zod';
import type {
  CoverageDocument,
  CoverageDocumentValue,
  IncidentDocument,
  SiteRowDocument,
} from './documents/index.js';
import type { ReadStore } from './ports.js';
import type { IncidentQuery, SnapshotSummary, StoredChange } from './records.js';
import type { PreparedDigest } from './delivery/digests.js';
import { viewCoverage } from './views/coverage.js';
import { viewDiff } from './views/diff.js';
import type { DiffView } from './views/diff.js';
import type { SiteRef } from './views/site.js';
import { viewTrends } from './views/trends.js';
import type { LabelledTrend, TrendOptions } from './views/trends.js';
import type { TriageState } from './views/overview.js';
import type { ListedSite } from './views/site-list.js';

/** What the history does not hold, in one line ("https://a.example has no snapshot 9"). */
export interface Missing {
  readonly missing: string;
}

/** Which two snapshots to compare: by default the latest change. */
export interface DiffPair {
  readonly from?: number;
  readonly to?: number;
}

/** A digest as its recipient reads it. */
export interface DigestText {
  readonly recipient: string;
  readonly subject: string;
  readonly text: string;
}

/**
 * A site robowatch has a history of, and how it watches it now: the crawlers (their
 * tokens) and the profile, from the configuration file or as added in the web UI or API;
 * null when it watches the site no more (its history remains).
 */
export interface KnownSite {
  readonly id: number;
  readonly origin: string;
  readonly watching: { readonly agents: readonly string[]; readonly profile: Profile } | null;
  /** Its settings as resolved, where read from the database here (not from a daemon's API). */
  readonly config?: SiteConfig;
}

/** A site's coverage as the API answers it (instants as dates when read locally). */
export type CoverageAnswer = CoverageDocument | CoverageDocumentValue;

export interface HistoryReads {
  /** The site robowatch knows by this origin, or undefined when it has never seen it. */
  site(origin: string): Promise<KnownSite | undefined>;
  /** Every snapshot of a site, newest first. */
  snapshots(siteId: number): Promise<SnapshotSummary[]>;
  /**
   * A site's changes, newest first, each by the snapshot it made, with its causes (or, for
   * a state recorded before robowatch explained changes, its events).
   */
  changes(siteId: number): Promise<readonly StoredChange[]>;
  /** Two snapshots of a site compared, or why there is nothing to compare. */
  diff(site: SiteRef, pair: DiffPair): Promise<DiffView | Missing>;
  /** The coverage of a snapshot (by default the current one), or why there is none. */
  coverage(site: SiteRef, snapshot: number | undefined): Promise<CoverageAnswer | Missing>;
  /** The digests of the period that ends now, as they would be sent (not recorded). */
  previewDigests(sinceMs: number, recipient: string | undefined): Promise<readonly DigestText[]>;
  /** Per month, the share of the watched sites blocking each crawler, operator or purpose. */
  trends(options: Omit<TrendOptions, 'now'>): Promise<readonly LabelledTrend[]>;
  /**
   * Incidents, the newest first: a site's, or those in one state, when asked; `before`:
   * the id the next (older) page starts below, null when there are no more.
   */
  incidents(query: Omit<IncidentQuery, 'siteIds'>): Promise<IncidentPage>;
  /** The watched sites by id, where each stands now: those with a tag, or in a state, when asked. */
  sites(query: { readonly tag?: string; readonly state?: TriageState }): Promise<SiteListAnswer>;
}

/** A page of incidents, and where the older ones start (null: there are none). */
export interface IncidentPage {
  readonly incidents: readonly IncidentAnswer[];
  readonly before: number | null;
}

/** A site as the API lists it (its instants as ISO 8601 text). */
export type SiteRowAnswer = z.output<typeof SiteRowDocument>;

export interface SiteListAnswer {
  readonly sites: readonly SiteRowAnswer[];
  /**
   * The sites of the file never checked, which have no row yet (read without a write);
   * a daemon has given them theirs.
   */
  readonly unchecked: readonly string[];
}

/** An incident as the API answers it. */
export type IncidentAnswer = z.input<typeof IncidentDocument>;

/** The period a digest "of the last 7d" covers: to now, from the hour (sent twice an hour, one period). */
export function digestPeriod(now: Date, sinceMs: number): DigestPeriod {
  const hour = 3_600_000;
  // A period reaching back before any robots.txt history (999999w) starts with it: the
  // same digest, where the database would refuse a time before year 0.
  const start = Math.max(ARCHIVE_START_MS, Math.floor((now.getTime() - sinceMs) / hour) * hour);
  return { start: new Date(start), end: now };
}

/** A snapshot's coverage, or why there is none: what the API's coverage route answers. */
export async function readCoverage(
  store: Pick<ReadStore, 'listSnapshots' | 'getSnapshot' | 'loadCoverage' | 'loadUrlSetById'>,
  site: SiteRef,
  asked: number | undefined,
): Promise<CoverageDocumentValue | Missing> {
  const snapshot =
    asked === undefined
      ? (await store.listSnapshots(site.id, 1))[0]
      : await store.getSnapshot(site.id, asked);
  if (snapshot === undefined)
    return {
      missing:
        asked === undefined
          ? `${site.origin} has never been checked`
          : `${site.origin} has no snapshot ${asked}`,
    };
  const document = await viewCoverage(store, snapshot.id);
  if (document !== undefined) return document;
  return {
    missing:
      site.config?.sitemaps === 'off'
        ? `${site.origin} has no coverage: its sitemaps are off (set sitemaps: auto, or list them)`
        : `${site.origin} has no coverage of snapshot ${snapshot.id} yet: it is computed after a check`,
  };
}

function knownSite(row: { id: number; origin: string }, config: SiteConfig | undefined): KnownSite {
  if (config === undefined) return { id: row.id, origin: row.origin, watching: null };
  return {
    id: row.id,
    origin: row.origin,
    watching: { agents: config.agents.map((a) => a.token), profile: config.profile },
    config,
  };
}

/** The history as this process's database holds it. */
export function localReads(deps: {
  readonly store: ReadStore;
  readonly now: () => Date;
  readonly config: Pick<Config, 'registry' | 'presets' | 'sites' | 'schedule'>;
  /** The watched sites' origin, profile and rank (trends weigh and read them). */
  readonly watched: () => Promise<readonly Pick<SiteConfig, 'origin' | 'profile' | 'rank'>[]>;
  /** A site's settings as robowatch runs them (the file's, else as added in the UI or API). */
  readonly siteConfig: (origin: string) => Promise<SiteConfig | undefined>;
  /** These sites' names (null: none), read at once without resolving their settings. */
  readonly siteNames: (origins: Iterable<string>) => Promise<ReadonlyMap<string, string | null>>;
  /** Every watched site with its row, and the file's sites that have none yet. */
  readonly listed: () => Promise<{
    readonly sites: readonly ListedSite[];
    readonly unchecked: readonly SiteConfig[];
  }>;
  readonly previewDigests: (
    period: DigestPeriod,
    recipient: string | undefined,
  ) => Promise<readonly PreparedDigest[]>;
}): HistoryReads {
  const { store } = deps;
  return {
    site: async (origin) => {
      const row = await store.findSite(origin);
      return row === undefined ? undefined : knownSite(row, await deps.siteConfig(row.origin));
    },
    snapshots: async (siteId) => {
      const rows: SnapshotSummary[] = [];
      for (;;) {
        const page = await store.listSnapshots(siteId, 500, rows.at(-1)?.id);
        rows.push(...page);
        if (page.length < 500) return rows;
      }
    },
    changes: async (siteId) => {
      const rows: StoredChange[] = [];
      for (;;) {
        const before = rows.at(-1)?.snapshotId;
        const page = await store.listChanges({
          siteId,
          limit: 500,
          ...(before === undefined ? {} : { beforeId: before }),
        });
        rows.push(...page);
        if (page.length < 500) return rows;
      }
    },
    diff: (site, pair) => viewDiff(store, site, pair),
    coverage: (site, snapshot) => readCoverage(store, site, snapshot),
    previewDigests: async (sinceMs, recipient) =>
      (await deps.previewDigests(digestPeriod(deps.now(), sinceMs), recipient)).map((d) => ({
        recipient: d.recipient,
        subject: d.rendered.subject,
        text: d.rendered.text,
      })),
    trends: async (options) =>
      viewTrends(store, await deps.watched(), deps.config, { ...options, now: deps.now() }),
    incidents: async (query) => {
      // The documents (and zod) are loaded by the command that reads them, not every one.
      const [found, { incidentDocument }] = await Promise.all([
        store.listIncidents({ ...query, limit: query.limit + 1 }),
        import('./documents/intent.js'),
      ]);
      const rows = found.slice(0, query.limit);
      // Each site as its alerts and pages call it (its name where it has one).
      const names = await deps.siteNames(rows.map((row) => row.origin));
      const now = deps.now();
      return {
        incidents: rows.map((row) => incidentDocument(row, now, names.get(row.origin) ?? null)),
        before: found.length > query.limit ? rows.at(-1)!.id : null,
      };
    },
    sites: async ({ tag, state }) => {
      // The overview's views and the documents are loaded by the command that lists.
      const [{ sites, unchecked }, { siteRowDocument }, { viewSiteList }, { siteFilter }] =
        await Promise.all([
          deps.listed(),
          import('./documents/sites.js'),
          import('./views/site-list.js'),
          import('./views/overview.js'),
        ]);
      const slice = await viewSiteList(
        store,
        sites,
        { ...(tag === undefined ? {} : { tag }), ...(state === undefined ? {} : { state }) },
        { now: deps.now(), timezone: deps.config.schedule.timezone },
      );
      return {
        // As the API answers them: the instants as text.
        sites: slice.rows.map(
          (r) => JSON.parse(JSON.stringify(siteRowDocument(r.row, r.pausedAt))) as SiteRowAnswer,
        ),
        // A file's site never checked (no row) is in no state but `unchecked`; a tag narrows
        // it as it does the others.
        unchecked:
          state === undefined || state === 'unchecked'
            ? unchecked.filter(siteFilter('', tag)).map((site) => site.origin)
            : [],
      };
    },
  };
}
