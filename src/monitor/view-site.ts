import type { SiteConfig } from '../config/config.js';
import type { Access } from '../policy/access.js';
import type { ChangeEvent } from '../policy/events.js';
import { sitemapsOf } from '../policy/events.js';
import { timelineSegments } from '../policy/history.js';
import type { TimelineSegment } from '../policy/history.js';
import { siteAccess } from '../policy/verdicts.js';
import type { WatchVerdict } from '../policy/verdicts.js';
import type { ReadStore } from './ports.js';
import type { SnapshotSummary, StoredEvent } from './records.js';

/** A site as the web shows it: its configuration, or what the store knows of it. */
export interface SiteRef {
  readonly id: number;
  readonly origin: string;
  /** Undefined for a site no longer in the configuration (its history remains). */
  readonly config: SiteConfig | undefined;
}

export const profileOf = (site: SiteRef) => site.config?.profile ?? 'google';

/** The current verdicts as a matrix: one row per watched URL, one cell per agent. */
export interface VerdictMatrix {
  readonly agents: readonly string[];
  readonly rows: readonly { url: string; cells: readonly (WatchVerdict | undefined)[] }[];
}

export interface SiteView {
  readonly site: SiteRef;
  readonly current: (SnapshotSummary & { access: Access }) | undefined;
  readonly segments: readonly TimelineSegment[];
  /** The most recent snapshots, newest first, with their access. */
  readonly snapshots: readonly (SnapshotSummary & { access: Access })[];
  readonly events: readonly StoredEvent[];
  /** For paging the events: the id to continue before, or null at the end. */
  readonly olderEvents: number | null;
  readonly matrix: VerdictMatrix;
  readonly sitemaps: readonly string[];
}

export interface SiteViewOptions {
  readonly now: Date;
  readonly eventTypes: readonly ChangeEvent['type'][];
  readonly eventsBefore: number | undefined;
  readonly eventsPerPage: number;
  readonly snapshotRows: number;
}

/** A site's page: timeline, change events, current verdicts and sitemaps. */
export async function viewSite(
  store: Pick<
    ReadStore,
    'listSnapshots' | 'countEventsBySnapshot' | 'listEvents' | 'loadVerdicts' | 'loadBody'
  >,
  site: SiteRef,
  options: SiteViewOptions,
): Promise<SiteView> {
  const profile = profileOf(site);
  const [snapshots, counts, events] = await Promise.all([
    store.listSnapshots(site.id, 100_000),
    store.countEventsBySnapshot(site.id),
    store.listEvents({
      siteId: site.id,
      types: options.eventTypes,
      ...(options.eventsBefore === undefined ? {} : { beforeId: options.eventsBefore }),
      limit: options.eventsPerPage + 1,
    }),
  ]);
  const withAccess = snapshots.map((s) => ({
    ...s,
    access: siteAccess({ fetch: s, stale: s.stale }, profile),
  }));
  const current = withAccess[0];
  const verdicts = current ? await store.loadVerdicts(current.id) : [];
  let sitemaps: string[] = [];
  const lastGood = current?.lastGoodId
    ? snapshots.find((s) => s.id === current.lastGoodId)
    : undefined;
  if (lastGood?.sha256) sitemaps = sitemapsOf(await store.loadBody(lastGood.sha256));
  const page = events.slice(0, options.eventsPerPage);
  return {
    site,
    current,
    segments: timelineSegments(snapshots, counts, profile, options.now),
    snapshots: withAccess.slice(0, options.snapshotRows),
    events: page,
    olderEvents: events.length > options.eventsPerPage ? page[page.length - 1]!.id : null,
    matrix: verdictMatrix(verdicts, site.config),
    sitemaps,
  };
}

/** Rows in the configuration's watch order, columns in its agent order (then any others stored). */
export function verdictMatrix(
  verdicts: readonly WatchVerdict[],
  config: SiteConfig | undefined,
): VerdictMatrix {
  const storedAgents = new Set(verdicts.map((v) => v.agent));
  const storedUrls = new Set(verdicts.map((v) => v.url));
  const agents = new Set(
    (config?.agents ?? []).map((a) => a.token).filter((a) => storedAgents.has(a)),
  );
  for (const a of storedAgents) agents.add(a);
  const urls = new Set((config?.watches ?? []).filter((u) => storedUrls.has(u)));
  for (const u of storedUrls) urls.add(u);
  const byKey = new Map(verdicts.map((v) => [`${v.url}\n${v.agent}`, v]));
  const columns = [...agents];
  return {
    agents: columns,
    rows: [...urls].map((url) => ({ url, cells: columns.map((a) => byKey.get(`${url}\n${a}`)) })),
  };
}
