/**
 * What the monitor needs from the outside world (its ports), passed in as `deps` by the
 * composition module (and by tests). The store adapter implements these interfaces; the
 * records they exchange are declared in records.ts.
 */
import type { FetchResult } from '../policy/fetch-result.js';
import type { DayStates } from '../policy/history.js';
import type { WatchVerdict } from '../policy/verdicts.js';
import type {
  CheckRow,
  CheckSeen,
  DigestRecord,
  ChangeQuery,
  EventQuery,
  IncidentStart,
  LeasedRun,
  NewSnapshot,
  PlannedRun,
  RecordedDigest,
  SiteOverview,
  SnapshotSummary,
  StoredChange,
  StoredEvent,
  StoredSite,
  VerdictAt,
} from './records.js';

/** The queries and writes a check needs. */
export interface CheckStore {
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  loadSites(origins: readonly string[]): Promise<StoredSite[]>;
  recordCheck(check: CheckRow): Promise<void>;
  recordSnapshot(snapshot: NewSnapshot): Promise<number>;
  replaceVerdicts(
    siteId: number,
    snapshotId: number,
    rows: readonly WatchVerdict[],
    key: string,
  ): Promise<void>;
  loadVerdicts(snapshotId: number): Promise<WatchVerdict[]>;
  loadBody(sha256: string): Promise<Uint8Array>;
  /** When the trouble that a site's snapshot (and those before it) is part of began. */
  loadIncidentStart(siteId: number, snapshotId: number): Promise<IncidentStart>;
}

export interface CheckDeps {
  fetchRobots(origin: string): Promise<FetchResult>;
  readonly store: CheckStore;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Retries before a site is recorded as newly unreachable or unavailable. */
  readonly confirmRetries: number;
  readonly confirmDelayMs: number;
}

/** A site's row: its id and origin. */
export interface SiteRow {
  readonly id: number;
  readonly origin: string;
}

/** The read models behind the web UI, the API and the read-only commands. */
export interface ReadStore {
  /** Answers when the database does (health checks). */
  ping(): Promise<void>;
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  findSite(origin: string): Promise<SiteRow | undefined>;
  findSiteById(id: number): Promise<SiteRow | undefined>;
  loadSites(origins: readonly string[]): Promise<StoredSite[]>;
  loadOverview(siteIds: readonly number[]): Promise<SiteOverview[]>;
  loadDailyStates(siteIds: readonly number[], since: Date): Promise<Map<number, DayStates[]>>;
  /** A site's snapshots, newest first (older than `beforeId`, for paging). */
  listSnapshots(siteId: number, limit?: number, beforeId?: number): Promise<SnapshotSummary[]>;
  /** One snapshot of a site, or undefined if the id is not one of the site's. */
  getSnapshot(siteId: number, id: number): Promise<SnapshotSummary | undefined>;
  findSnapshot(id: number): Promise<SnapshotSummary | undefined>;
  loadVerdicts(snapshotId: number): Promise<WatchVerdict[]>;
  loadBody(sha256: string): Promise<Uint8Array>;
  listEvents(query: EventQuery): Promise<StoredEvent[]>;
  /**
   * A site's changes (new states after its baseline), newest first, older than
   * `beforeId`; only those with a cause of one of `types` when given.
   */
  listChanges(query: ChangeQuery): Promise<StoredChange[]>;
  countEventsBySnapshot(siteId: number): Promise<Map<number, number>>;
  loadVerdictHistory(siteId: number, url: string, agent: string): Promise<VerdictAt[]>;
  loadIncidentStart(siteId: number, snapshotId: number): Promise<IncidentStart>;
  listChecks(snapshotId: number, limit: number): Promise<CheckSeen[]>;
  listDigests(limit?: number): Promise<(DigestRecord & { id: number })[]>;
  /** A recorded digest, or undefined when there is none with this id. */
  loadDigest(id: number): Promise<(RecordedDigest & { id: number }) | undefined>;
  outboxCounts(): Promise<{ pending: number; failed: number }>;
  lastSweepAt(): Promise<Date | null>;
}

/** The daemon's periods: each site's run per period, leased by one process at a time. */
export interface RunStore {
  plan(runs: readonly PlannedRun[], now: Date): Promise<void>;
  lease(now: Date, limit: number): Promise<LeasedRun[]>;
  finish(run: LeasedRun, now: Date): Promise<void>;
  retry(run: LeasedRun, error: string, dueAt: Date): Promise<void>;
}
