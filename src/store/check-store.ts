/**
 * The store's ports a check uses (monitor/ports.ts), bound to one opened database: the
 * check's own queries, the coverage it records and the site catalog's rows. Apart from
 * the read models and the daemon's (index.ts) and the backfill's (backfill-store.ts), so
 * that a check loads only the queries it runs.
 */
import type { CheckStore, CoverageStore, SiteDirectoryStore } from '../monitor/ports.js';
import type { CheckRow, NewJudgement, NewRefusal, NewSnapshot } from '../monitor/records.js';
import type { VerdictAxes, WatchVerdict } from '../policy/verdicts.js';
import { Batcher } from './batcher.js';
import {
  hasCoverage,
  loadKnownSitemaps,
  loadUrlSet,
  recordUrlSet,
  saveCoverage,
  saveSitemapFiles,
} from './coverage.js';
import type { Database } from './db.js';
import { recordJudgements, saveIntent } from './intent.js';
import {
  clearRefusal,
  ensureSiteIds,
  findDirectoryRow,
  loadManagedNames,
  loadCatalogVersion,
  loadDirectory,
  loadSharedSettings,
  loadSites,
  recordRefusal,
  removeManagedSite,
  saveChannels,
  saveManagedSite,
  savePreset,
  setSitePaused,
  syncSites,
  updateSiteSettings,
} from './sites.js';
import {
  CheckWriter,
  loadBody,
  loadVerdicts,
  PreviousReader,
  replaceVerdicts,
  SnapshotWriter,
} from './snapshots.js';

/** Judgements written in one transaction at most (each holds up to 200 violations). */
const JUDGEMENTS_AT_ONCE = 100;

/**
 * The queries a check needs, bound to a database; each alert's delivery job is queued
 * with the alert.
 */
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
    findSiteIds: (origins) => ensureSiteIds(db, origins, false),
    loadDirectory: () => loadDirectory(db),
    catalogVersion: () => loadCatalogVersion(db),
    findRow: (key) => findDirectoryRow(db, key),
    findNames: (origins) => loadManagedNames(db, origins),
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
