/**
 * The store as the rest of robowatch sees it: queries over one opened database, bound
 * into the ports the monitor declares (monitor/ports.ts). A check's ports are made in
 * check-store.ts and a backfill's in backfill-store.ts (re-exported here), so that the
 * commands that run them load only their own queries; the daemon's and the read models
 * the web UI, the API and the read commands use are made here.
 */
import { sql } from 'drizzle-orm';
import type { ReadStore } from '../monitor/ports.js';
import type {
  ChangeQuery,
  DigestDelivery,
  EventQuery,
  IncidentRecord,
  RecordedDigest,
  RegistryUpdateRecord,
} from '../monitor/records.js';
import type { IncidentDraft } from '../policy/incident-alerts.js';
import { listAlertLog } from './alert-log.js';
import { archiveSummary } from './archive.js';
import { loadCoverage, loadCoverageHistory, loadUrlSet, loadUrlSetById } from './coverage.js';
import { queryRows } from './db.js';
import type { Database, DatabaseHandle } from './db.js';
import {
  lastDigestEnd,
  listDigests,
  loadDigest,
  loadSitePeriods,
  recordDigest,
} from './digests.js';
import { countEventsBySnapshot, listChanges, listEvents } from './events.js';
import { trendSites, trendStart } from './export.js';
import { findSnapshot, getSnapshot, listSnapshots } from './history.js';
import {
  acknowledgeIncident,
  getIncident,
  listIncidentHeads,
  listIncidents,
  loadJudgement,
  remindIncidents,
} from './intent.js';
import {
  claimDelivery,
  failingChannels,
  failingDelivery,
  markSent,
  outboxCounts,
  pruneOutbox,
  retryDelivery,
  unsentDeliveries,
} from './outbox.js';
import type { DeliveryJob, OutboxRow } from './outbox.js';
import {
  loadCrawlerCounts,
  loadCrawlerVerdicts,
  loadDailyStates,
  loadGroupCounts,
  loadOverview,
  loadSiteStandings,
} from './overview.js';
import {
  latestRegistry,
  latestRegistryVersion,
  loadRegistryFindings,
  recordRegistry,
} from './registry.js';
import {
  ensureSiteIds,
  findSite,
  findSiteById,
  loadIncidentStart,
  loadRefusal,
  loadSites,
  syncSites,
} from './sites.js';
import { lastCheckAt, loadBody, loadVerdicts, loadVerdictsOf } from './snapshots.js';
import { listChecks, loadVerdictHistory } from './verdict-history.js';

export { openDatabase, DatabaseError } from './db.js';
export type { Database, DatabaseHandle } from './db.js';
export { createCheckStore, createCoverageStore, createSiteDirectory } from './check-store.js';
export { createBackfillStore } from './backfill-store.js';

/**
 * Refreshes the planner's statistics (and with `vacuum`, reclaims dead rows) where the
 * server keeps none: the embedded database, which has no autovacuum, or a PostgreSQL
 * running with `autovacuum = off`, whose plans would otherwise cost every table as it was
 * when first read (a daemon's first sweep of 100,000 sites read every snapshot for each
 * batch of sites it loaded, docs/performance.md). Says which it maintained; null when the
 * server does it itself (PostgreSQL with autovacuum on, its default).
 */
export async function maintainDatabase(
  db: Database,
  kind: DatabaseHandle['kind'],
  vacuum: boolean,
): Promise<'embedded' | 'postgres' | null> {
  if (kind === 'postgres') {
    const [row] = await queryRows<{ off: boolean }>(
      db,
      sql`SELECT current_setting('autovacuum') = 'off' AS off`,
    );
    if (row?.off !== true) return null;
  }
  await db.execute(vacuum ? sql`VACUUM ANALYZE` : sql`ANALYZE`);
  return kind === 'pglite' ? 'embedded' : 'postgres';
}

/**
 * The queries the daemon and the one-shot commands need, bound to a database: the
 * deliveries (each attempt a job), upkeep, the registry and digests.
 */
export function createDaemonStore(db: Database) {
  return {
    deliveries: {
      claim: (job: DeliveryJob) => claimDelivery(db, job),
      markSent: (id: number, now: Date) => markSent(db, id, now),
      retry: (delivery: OutboxRow, error: string, nextAttemptAt: Date) =>
        retryDelivery(db, delivery, error, nextAttemptAt),
      unsent: () => unsentDeliveries(db),
      prune: (before: Date) => pruneOutbox(db, before),
      failing: () => failingDelivery(db),
    },
    lastCheckAt: () => lastCheckAt(db),
    lastDigestEnd: () => lastDigestEnd(db),
    remindIncidents: (
      now: Date,
      everyMs: number,
      draftsFor: (incident: IncidentRecord) => readonly IncidentDraft[],
    ) => remindIncidents(db, now, everyMs, draftsFor),
    maintainDatabase: (kind: DatabaseHandle['kind'], vacuum: boolean) =>
      maintainDatabase(db, kind, vacuum),
    registry: {
      latestRegistry: () => latestRegistry(db),
      latestRegistryVersion: () => latestRegistryVersion(db),
      recordRegistry: (update: RegistryUpdateRecord) => recordRegistry(db, update),
      syncSites: (origins: readonly string[]) => syncSites(db, origins),
      loadBody: (sha256: string) => loadBody(db, sha256),
    },
    digests: {
      siteIds: (origins: readonly string[], options: { readonly create: boolean }) =>
        ensureSiteIds(db, origins, options.create),
      loadSitePeriods: (siteIds: readonly number[], start: Date, end: Date) =>
        loadSitePeriods(db, siteIds, start, end),
      recordDigest: (record: RecordedDigest, delivery: DigestDelivery, now: Date) =>
        recordDigest(db, record, delivery, now),
      loadDigest: (id: number) => loadDigest(db, id),
      loadRegistryFindings: (siteIds: readonly number[], start: Date, end: Date) =>
        loadRegistryFindings(db, siteIds, start, end),
    },
  };
}

export type DaemonStore = ReturnType<typeof createDaemonStore>;

/** The read models the web UI and API need, bound to a database. */
export function createWebStore(db: Database): ReadStore {
  return {
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    loadJudgement: (siteId) => loadJudgement(db, siteId),
    listAlertLog: (query) => listAlertLog(db, query),
    listIncidents: (query) => listIncidents(db, query),
    listIncidentHeads: (query) => listIncidentHeads(db, query),
    getIncident: (id) => getIncident(db, id),
    acknowledgeIncident: (id, ack, draftsFor, options) =>
      acknowledgeIncident(db, id, ack, draftsFor, options),
    syncSites: (origins: readonly string[]) => syncSites(db, origins),
    findSite: (origin: string) => findSite(db, origin),
    findSiteById: (id: number) => findSiteById(db, id),
    loadRefusal: (siteId: number) => loadRefusal(db, siteId),
    loadCoverage: (snapshotId: number) => loadCoverage(db, snapshotId),
    loadUrlSetById: (id: number) => loadUrlSetById(db, id),
    loadCoverageHistory: (siteId: number) => loadCoverageHistory(db, siteId),
    loadLatestPaths: async (siteId: number) => (await loadUrlSet(db, siteId))?.paths,
    loadOverview: (siteIds: readonly number[]) => loadOverview(db, siteIds),
    loadSiteStandings: (since: Date) => loadSiteStandings(db, since),
    loadCrawlerCounts: () => loadCrawlerCounts(db),
    loadGroupCounts: (groups) => loadGroupCounts(db, groups),
    trendStart: () => trendStart(db),
    trendSites: () => trendSites(db),
    loadCrawlerVerdicts: (agent: string) => loadCrawlerVerdicts(db, agent),
    loadDailyStates: (siteIds: readonly number[], since: Date) =>
      loadDailyStates(db, siteIds, since),
    loadSites: (origins: readonly string[]) => loadSites(db, origins),
    archiveSummary: (siteId: number) => archiveSummary(db, siteId),
    listSnapshots: (siteId: number, limit?: number, beforeId?: number) =>
      listSnapshots(db, siteId, limit, beforeId),
    getSnapshot: (siteId: number, id: number) => getSnapshot(db, siteId, id),
    findSnapshot: (id: number) => findSnapshot(db, id),
    loadVerdicts: (snapshotId: number) => loadVerdicts(db, snapshotId),
    loadVerdictsOf: (snapshotIds: readonly number[]) => loadVerdictsOf(db, snapshotIds),
    loadBody: (sha256: string) => loadBody(db, sha256),
    listEvents: (query: EventQuery) => listEvents(db, query),
    listChanges: (query: ChangeQuery) => listChanges(db, query),
    countEventsBySnapshot: (siteId: number) => countEventsBySnapshot(db, siteId),
    loadVerdictHistory: (siteId: number, url: string, agent: string) =>
      loadVerdictHistory(db, siteId, url, agent),
    loadIncidentStart: (siteId: number, snapshotId: number) =>
      loadIncidentStart(db, siteId, snapshotId),
    listChecks: (snapshotId: number, limit: number) => listChecks(db, snapshotId, limit),
    listDigests: (limit?: number) => listDigests(db, limit),
    loadDigest: (id: number) => loadDigest(db, id),
    outboxCounts: () => outboxCounts(db),
    failingChannels: () => failingChannels(db),
    lastCheckAt: () => lastCheckAt(db),
  };
}
