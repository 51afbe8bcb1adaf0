/**
 * The store as the rest of robowatch sees it: queries over one opened database, bound
 * into the ports the monitor declares (monitor/ports.ts).
 */
import {
  hasCoverage,
  loadCoverage,
  loadCoverageHistory,
  loadKnownSitemaps,
  loadUrlSet,
  loadUrlSetById,
  recordUrlSet,
  saveCoverage,
  saveSitemapFiles,
} from './coverage.js';
import type { CoverageStore } from '../monitor/ports.js';
import type { BackfillStore, CheckStore, ReadStore, SiteDirectoryStore } from '../monitor/ports.js';
import type {
  ChangeQuery,
  CheckRow,
  DigestDelivery,
  EventQuery,
  NewJudgement,
  NewRefusal,
  NewSnapshot,
  RecordedDigest,
  RegistryUpdateRecord,
  IncidentRecord,
} from '../monitor/records.js';
import type { IncidentDraft } from '../policy/incident-alerts.js';
import type { VerdictAxes, WatchVerdict } from '../policy/verdicts.js';
import { Batcher } from './batcher.js';
import type { Database } from './db.js';
import { sql } from 'drizzle-orm';
import { countEventsBySnapshot, listChanges, listEvents } from './events.js';
import { findSnapshot, getSnapshot, listSnapshots } from './history.js';
import {
  archiveChainCurrent,
  archiveSummary,
  liveHistoryStart,
  loadCaptures,
  recordCaptures,
  replaceArchiveChain,
  storedCaptureTimes,
} from './archive.js';
import {
  loadCrawlerCounts,
  loadCrawlerVerdicts,
  loadGroupCounts,
  loadDailyStates,
  loadOverview,
  loadSiteStandings,
} from './overview.js';
import {
  clearRefusal,
  findDirectoryRow,
  findSite,
  findSiteById,
  loadDirectory,
  loadSharedSettings,
  saveChannels,
  savePreset,
  loadIncidentStart,
  loadRefusal,
  loadSites,
  recordRefusal,
  removeManagedSite,
  saveManagedSite,
  setSitePaused,
  ensureSiteIds,
  syncSites,
  updateSiteSettings,
} from './sites.js';
import { listChecks, loadVerdictHistory } from './verdict-history.js';
import { trendSites, trendStart } from './export.js';
import {
  latestRegistry,
  latestRegistryVersion,
  loadRegistryFindings,
  recordRegistry,
} from './registry.js';
import {
  CheckWriter,
  loadBody,
  loadVerdicts,
  PreviousReader,
  SnapshotWriter,
  replaceVerdicts,
} from './snapshots.js';
import {
  lastDigestEnd,
  listDigests,
  loadDigest,
  loadSitePeriods,
  recordDigest,
} from './digests.js';
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
import { lastCheckAt } from './snapshots.js';

import { listAlertLog } from './alert-log.js';
import {
  acknowledgeIncident,
  getIncident,
  listIncidents,
  loadJudgement,
  recordJudgements,
  remindIncidents,
  saveIntent,
} from './intent.js';

export { openDatabase, DatabaseError } from './db.js';
export type { Database, DatabaseHandle } from './db.js';

/**
 * The queries a check needs, bound to a database; each alert's delivery job is queued
 * with the alert.
 */
/** Judgements written in one transaction at most (each holds up to 200 violations). */
const JUDGEMENTS_AT_ONCE = 100;

export function createCheckStore(db: Database): CheckStore {
  const checks = new CheckWriter(db);
  const states = new SnapshotWriter(db);
  const previous = new PreviousReader(db);
  // One site's state, as each scheduled check asks: the checks asking at once, one query.
  const oneSite = new Batcher(async (origins: string[]) => {
    const found = new Map((await loadSites(db, origins)).map((s) => [s.origin, s]));
    return origins.map((origin) => found.get(origin));
  }, 500);
  // Judgements by group commit: those of the checks finishing together, one transaction.
  const judgements = new Batcher(
    (batch: NewJudgement[]) => recordJudgements(db, batch),
    JUDGEMENTS_AT_ONCE,
  );
  return {
    syncSites: (origins: readonly string[]) => syncSites(db, origins),
    loadSites: async (origins: readonly string[]) => {
      if (origins.length !== 1) return loadSites(db, origins);
      const site = await oneSite.add(origins[0]!);
      return site === undefined ? [] : [site];
    },
    recordCheck: (check: CheckRow) => checks.record(check),
    recordSnapshot: (snapshot: NewSnapshot) => states.recordState(snapshot),
    recordRefusal: (refusal: NewRefusal) => recordRefusal(db, refusal),
    clearRefusal: (siteId: number) => clearRefusal(db, siteId),
    replaceVerdicts: (
      siteId: number,
      snapshotId: number,
      rows: readonly WatchVerdict[],
      key: string,
      registry?: string | null,
    ) => replaceVerdicts(db, siteId, snapshotId, rows, key, registry ?? null),
    loadBody: (sha256: string) => loadBody(db, sha256),
    loadVerdicts: (snapshotId: number) => loadVerdicts(db, snapshotId),
    recordJudgement: (judgement: NewJudgement) => judgements.add(judgement),
    loadPrevious: (
      siteId: number,
      snapshotId: number,
      lastGoodSha256: string | null,
      axes?: VerdictAxes,
    ) => previous.load(siteId, snapshotId, lastGoodSha256, axes),
  };
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
    maintainDatabase: async (vacuum: boolean) => {
      await db.execute(vacuum ? sql`VACUUM ANALYZE` : sql`ANALYZE`);
    },
    registry: {
      latestRegistry: () => latestRegistry(db),
      latestRegistryVersion: () => latestRegistryVersion(db),
      recordRegistry: (update: RegistryUpdateRecord) => recordRegistry(db, update),
      syncSites: (origins: readonly string[]) => syncSites(db, origins),
      loadBody: (sha256: string) => loadBody(db, sha256),
    },
    digests: {
      syncSites: (origins: readonly string[]) => syncSites(db, origins),
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

/** URL sets, sitemap files and coverage, bound to a database. */
export function createCoverageStore(db: Database): CoverageStore {
  return {
    loadKnownSitemaps: (siteId) => loadKnownSitemaps(db, siteId),
    saveSitemapFiles: (siteId, files, at) => saveSitemapFiles(db, siteId, files, at),
    recordUrlSet: (siteId, paths, report, at) => recordUrlSet(db, siteId, paths, report, at),
    hasCoverage: (snapshotId, urlSetId, agentsKey) =>
      hasCoverage(db, snapshotId, urlSetId, agentsKey),
    saveCoverage: (record) => saveCoverage(db, record),
    loadLatestPaths: async (siteId) => (await loadUrlSet(db, siteId))?.paths,
    loadBody: (sha256) => loadBody(db, sha256),
  };
}

/** The site catalog's rows: sites added in the UI or API, and what is paused. */
export function createSiteDirectory(db: Database): SiteDirectoryStore {
  return {
    ensureSiteIds: (origins) => ensureSiteIds(db, origins),
    loadDirectory: () => loadDirectory(db),
    findRow: (key) => findDirectoryRow(db, key),
    saveSite: (origin, settings) => saveManagedSite(db, origin, settings),
    updateSettings: (id, settings) => updateSiteSettings(db, id, settings),
    setPaused: (id, at) => setSitePaused(db, id, at),
    remove: (id, at) => removeManagedSite(db, id, at),
    loadShared: () => loadSharedSettings(db),
    savePreset: (name, agents) => savePreset(db, name, agents),
    saveChannels: (channels) => saveChannels(db, channels),
    saveIntent: (id, entries) => saveIntent(db, id, entries),
  };
}

/** The read models the web UI and API need, bound to a database. */
export function createWebStore(db: Database): ReadStore {
  return {
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    loadJudgement: (siteId) => loadJudgement(db, siteId),
    listAlertLog: (query) => listAlertLog(db, query),
    listIncidents: (query) => listIncidents(db, query),
    getIncident: (id) => getIncident(db, id),
    acknowledgeIncident: (id, ack, draftsFor) => acknowledgeIncident(db, id, ack, draftsFor),
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

/** The Internet Archive's captures and the archived snapshots (robowatch backfill). */
export function createBackfillStore(db: Database): BackfillStore {
  return {
    storedCaptureTimes: (siteId) => storedCaptureTimes(db, siteId),
    recordCaptures: (siteId, captures) => recordCaptures(db, siteId, captures),
    loadCaptures: (siteId) => loadCaptures(db, siteId),
    replaceArchiveChain: (siteId, states, registry) =>
      replaceArchiveChain(db, siteId, states, registry),
    liveHistoryStart: (siteId) => liveHistoryStart(db, siteId),
    archiveChainCurrent: (siteId) => archiveChainCurrent(db, siteId),
  };
}
