/**
 * What the monitor needs from the outside world (its ports), passed in as `deps` by the
 * composition module (and by tests). The store adapter implements these interfaces; the
 * records they exchange are declared in records.ts.
 */
import type { IncidentDraft } from '../policy/incident-alerts.js';
import type { FetchResult } from '../policy/fetch-result.js';
import type { DayStates } from '../policy/history.js';
import type { VerdictAxes, VerdictLookup, WatchVerdict } from '../policy/verdicts.js';
import type { IntentEntry } from '../policy/intent.js';
import type {
  CheckRow,
  CheckSeen,
  DigestRecord,
  CrawlerCounts,
  GroupCounts,
  DirectoryRow,
  FailingChannel,
  ChangeQuery,
  EventQuery,
  IncidentStart,
  AlertLogEntry,
  AlertLogQuery,
  IncidentHead,
  IncidentQuery,
  IncidentRecord,
  StoredJudgement,
  JudgementRecorded,
  NewJudgement,
  JudgementBasis,
  RecordedState,
  NewRefusal,
  Refusal,
  NewSnapshot,
  RecordedDigest,
  SharedSettingsRows,
  KnownSitemap,
  SitemapFileRecord,
  CoveragePoint,
  StoredCoverage,
  StoredUrlSet,
  UrlSetReport,
  SiteOverview,
  SiteStandings,
  SnapshotSummary,
  StoredChange,
  StoredEvent,
  StoredSite,
  VerdictAt,
} from './records.js';
import type { TrendRow } from './records-export.js';
import type {
  ArchiveSummary,
  ArchivedCapture,
  ArchivedState,
  NewCapture,
} from './records-archive.js';
import type { CoverageThresholds } from '../policy/changes/cause-model.js';
import type { DocumentRequest, DocumentResult } from '../policy/fetch-result.js';
import type { DiscoveryLimits } from './check/sitemaps.js';
import type { Coverage } from '../policy/coverage.js';
import type { CoverageComputer } from './threads/coverage-threads.js';

/** The queries and writes a check needs. */
export interface CheckStore {
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  loadSites(origins: readonly string[]): Promise<StoredSite[]>;
  recordCheck(check: CheckRow): Promise<void>;
  recordSnapshot(snapshot: NewSnapshot): Promise<RecordedState>;
  /** A check refused (the address guard); alerts queued when the refusal begins. */
  recordRefusal(refusal: NewRefusal): Promise<{ since: Date; began: boolean }>;
  /** The site was checked: robowatch no longer refuses it. */
  clearRefusal(siteId: number): Promise<void>;
  replaceVerdicts(
    siteId: number,
    snapshotId: number,
    rows: readonly WatchVerdict[],
    key: string,
    /** The AI crawler registry the crawlers came from (its SHA-256), if any did. */
    registry?: string | null,
  ): Promise<void>;
  loadBody(sha256: string): Promise<Uint8Array>;
  /** A snapshot's verdicts. */
  loadVerdicts(snapshotId: number): Promise<WatchVerdict[]>;
  /** A site judged against its intent, with the incident transition it makes. */
  recordJudgement(judgement: NewJudgement): Promise<JudgementRecorded>;
  /**
   * What a new state is compared with: the last good body (by hash, null for none), the
   * current snapshot's verdicts, and when the trouble it is part of began.
   */
  loadPrevious(
    siteId: number,
    snapshotId: number,
    lastGoodSha256: string | null,
    /**
     * The URLs, crawlers and profiles the current snapshot's verdicts were computed for,
     * when the check knows them (its watches and crawlers are the same): not read back.
     */
    axes?: VerdictAxes,
  ): Promise<{
    body: Uint8Array | null;
    /** Read back compactly: a new state's verdicts are compared with them. */
    verdicts: VerdictLookup;
    incident: IncidentStart;
    /** What the new state's judgement is decided from. */
    judgement: JudgementBasis;
  }>;
}

export interface CheckDeps {
  fetchRobots(origin: string): Promise<FetchResult>;
  readonly store: CheckStore;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Retries before a site is recorded as newly unreachable or unavailable. */
  readonly confirmRetries: number;
  readonly confirmDelayMs: number;
  /** Sitemaps and coverage, refreshed after each check of a site whose sitemaps are on. */
  readonly coverage?: CoverageDeps;
  /** A relapse within this long of an incident's resolution reopens it (notify.flapWindow). */
  readonly flapWindowMs?: number;
}

/** Where the site catalog keeps the sites added in the UI or API, and what is paused. */
export interface SiteDirectoryStore {
  /** Makes sure every origin has a row; returns each one's id (the file's sites). */
  ensureSiteIds(origins: readonly string[]): Promise<{ origin: string; id: number }[]>;
  /** The ids of those origins that have a row, read without a write. */
  findSiteIds(origins: readonly string[]): Promise<{ origin: string; id: number }[]>;
  /** The sites added in the UI or API and not removed, and every paused site. */
  loadDirectory(): Promise<DirectoryRow[]>;
  /**
   * A number that moves whenever the directory or the shared settings change (in any
   * process, once committed); null when the database cannot say, and every read is full.
   */
  catalogVersion(): Promise<number | null>;
  findRow(key: { id: number } | { origin: string }): Promise<DirectoryRow | undefined>;
  /**
   * The names of the sites added in the UI or API among these origins (null: none), as
   * stored, without resolving their settings.
   */
  findNames(origins: readonly string[]): Promise<Map<string, string | null>>;
  /** Adds a site, or takes over its row (a site removed before): returns its id. */
  saveSite(origin: string, settings: Record<string, unknown>): Promise<number>;
  updateSettings(id: number, settings: Record<string, unknown>): Promise<void>;
  /** Pauses a site since `at` (null: resumes it). */
  setPaused(id: number, at: Date | null): Promise<void>;
  /** Stops watching a site added in the UI or API; its history stays. */
  remove(id: number, at: Date): Promise<void>;
  /** The crawler presets and default channels made in the UI or API. */
  loadShared(): Promise<SharedSettingsRows>;
  /** Sets one crawler preset; null deletes it. */
  savePreset(name: string, agents: readonly string[] | null): Promise<void>;
  /** Replaces the default channels made in the UI or API. */
  saveChannels(channels: Record<string, unknown>): Promise<void>;
  /** Sets the intent of a site made in the UI or API; null: the file's applies again. */
  saveIntent(id: number, entries: readonly IntentEntry[] | null): Promise<void>;
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
  /** A site's state against its intent as last judged (null: not judged yet). */
  loadJudgement(siteId: number): Promise<StoredJudgement | null>;
  /** The alert log: notifications with their deliveries, newest first. */
  listAlertLog(query: AlertLogQuery): Promise<AlertLogEntry[]>;
  listIncidents(query: IncidentQuery): Promise<IncidentRecord[]>;
  /** As listIncidents, each by its lead without its cells: for a list of them. */
  listIncidentHeads(query: IncidentQuery): Promise<IncidentHead[]>;
  getIncident(id: number): Promise<IncidentRecord | undefined>;
  /**
   * The one write people make to an incident: acknowledging it, with a note; the first
   * acknowledgment queues what `draftsFor` says (PagerDuty acknowledges its incident).
   * `waitingOnly`: written only while it is open and no one has acknowledged it (`written`
   * says whether it was). Undefined: there is no such incident.
   */
  acknowledgeIncident(
    id: number,
    ack: { readonly by: string; readonly note: string; readonly at: Date },
    draftsFor?: (incident: IncidentRecord) => readonly IncidentDraft[],
    options?: { readonly waitingOnly?: boolean },
  ): Promise<{ incident: IncidentRecord; written: boolean } | undefined>;
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  findSite(origin: string): Promise<SiteRow | undefined>;
  findSiteById(id: number): Promise<SiteRow | undefined>;
  /** Since when robowatch refuses to check the site (its address guard), and why; or null. */
  loadRefusal(siteId: number): Promise<Refusal | null>;
  loadSites(origins: readonly string[]): Promise<StoredSite[]>;
  /** What the site's history from the Internet Archive holds (robowatch backfill). */
  archiveSummary(siteId: number): Promise<ArchiveSummary>;
  loadOverview(siteIds: readonly number[]): Promise<SiteOverview[]>;
  /** Several snapshots' verdicts at once, by snapshot id. */
  loadVerdictsOf(snapshotIds: readonly number[]): Promise<Map<number, WatchVerdict[]>>;
  loadDailyStates(siteIds: readonly number[], since: Date): Promise<Map<number, DayStates[]>>;
  /** Where every site stands (one light query for all of them); newBlocks counts since `since`. */
  loadSiteStandings(since: Date): Promise<SiteStandings>;
  /** Per watched crawler: on how many sites it is blocked from every, some or no watched URL. */
  loadCrawlerCounts(): Promise<CrawlerCounts[]>;
  /** Every state of every watched site with its verdict counts, oldest first per site. */
  /** Where trends begin, and each watched site's states (monitor/views/trends.ts). */
  trendStart(): Promise<Date | null>;
  trendSites(): AsyncIterable<readonly TrendRow[]>;
  /** Groups of crawlers across sites: where all are blocked, some, none (by name). */
  loadGroupCounts(
    groups: readonly { readonly name: string; readonly agents: readonly string[] }[],
  ): Promise<GroupCounts[]>;
  /** One crawler's disallowed and watched counts on each site that watches it. */
  loadCrawlerVerdicts(agent: string): Promise<Map<number, { disallowed: number; watched: number }>>;
  /** The coverage computed for a snapshot (over the newest URL set), if any. */
  loadCoverage(snapshotId: number): Promise<StoredCoverage | undefined>;
  /** A URL set's record, without its paths. */
  loadUrlSetById(id: number): Promise<Omit<StoredUrlSet, 'paths'> | undefined>;
  /** A site's coverage over time, oldest first: each crawler's allowed URLs per snapshot. */
  loadCoverageHistory(siteId: number): Promise<CoveragePoint[]>;
  /** The paths of the site's latest URL set; undefined before its first. */
  loadLatestPaths(siteId: number): Promise<readonly string[] | undefined>;
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
  /** The channels whose notifications are failing now. */
  failingChannels(): Promise<FailingChannel[]>;
  /** When any site's check last completed, in any process. */
  lastCheckAt(): Promise<Date | null>;
}

/** The daemon's queues: the planning of a period, the checks, the notifications, the digests. */
export type QueueName =
  'plan' | 'check' | 'deliver' | 'digest' | 'registry' | 'backfill' | 'upkeep';

/** Work to queue: its id names the work, so that queuing it twice queues it once. */
export interface NewJob<T> {
  readonly id: string;
  readonly data: T;
  /** Not before then. */
  readonly startAfter?: Date;
  /** At most one such job waits at a time (the check queue's key is the site). */
  readonly singletonKey?: string;
}

/** Work taken from a queue by this process. */
export interface Job<T> {
  readonly id: string;
  readonly data: T;
  /** How many times it was tried before (failed, or its process died). */
  readonly retries: number;
}

/** Jobs taken, and when the queue's next waiting job falls due (null: none waits). */
export interface Taken<T> {
  readonly jobs: Job<T>[];
  readonly nextDue: Date | null;
}

/**
 * The job engine: jobs are taken by one process at a time; one that fails is retried
 * with backoff; one that runs past its lease (its process died) is expired and retried.
 */
export interface JobQueue {
  send(queue: QueueName, jobs: readonly NewJob<unknown>[]): Promise<void>;
  /** The ids among `ids` that are queued, running, or finished and still remembered. */
  existing(queue: QueueName, ids: readonly string[]): Promise<Set<string>>;
  /** Takes up to `count` due jobs (due by `dueBy` too, when given), the longest due first. */
  fetch<T>(queue: QueueName, count: number, dueBy?: Date): Promise<Job<T>[]>;
  /** fetch, and when the queue's next waiting job (of those not taken) falls due. */
  take<T>(queue: QueueName, count: number, dueBy?: Date): Promise<Taken<T>>;
  /**
   * The queues among `queues` with a job due now (and by `dueBy`, when given), in one
   * look: how a process finds the jobs another one queued, or whose lease ran out.
   */
  due(queues: readonly QueueName[], dueBy?: Date): Promise<Set<QueueName>>;
  complete(queue: QueueName, id: string): Promise<void>;
  fail(queue: QueueName, id: string, error: string): Promise<void>;
  /** Jobs waiting and running, per queue. */
  counts(): Promise<Record<QueueName, { waiting: number; running: number }>>;
  /** The singleton keys of a queue's jobs waiting or running (any process's), with which. */
  pendingKeys(queue: QueueName): Promise<Map<string, 'waiting' | 'running'>>;
  /** Stops the engine's own work (maintenance); after this process's workers stopped. */
  stop(): Promise<void>;
}

/** The store a coverage refresh needs. */
export interface CoverageStore {
  loadKnownSitemaps(siteId: number): Promise<Map<string, KnownSitemap>>;
  saveSitemapFiles(siteId: number, files: readonly SitemapFileRecord[], at: Date): Promise<void>;
  recordUrlSet(
    siteId: number,
    paths: readonly string[],
    report: UrlSetReport,
    at: Date,
  ): Promise<StoredUrlSet & { readonly changed: boolean }>;
  hasCoverage(snapshotId: number, urlSetId: number, agentsKey: string): Promise<boolean>;
  /** The paths of the site's latest URL set; undefined before its first. */
  loadLatestPaths(siteId: number): Promise<readonly string[] | undefined>;
  saveCoverage(record: {
    snapshotId: number;
    urlSetId: number;
    agentsKey: string;
    computedAt: Date;
    coverage: Coverage;
  }): Promise<void>;
  loadBody(sha256: string): Promise<Uint8Array>;
}

/** What refreshing a site's URL set and coverage needs (after each check). */
export interface CoverageDeps {
  fetchDocument(request: DocumentRequest): Promise<DocumentResult>;
  readonly store: CoverageStore;
  now(): Date;
  readonly limits: DiscoveryLimits;
  /** When a change that newly blocks part of the URL set alerts (notify.coverage). */
  readonly thresholds: CoverageThresholds;
  /** Where URL sets are evaluated (threads of their own in the daemon). */
  readonly computer: CoverageComputer;
}

/** What a backfill needs of the store (store/archive.ts). */
export interface BackfillStore {
  storedCaptureTimes(siteId: number): Promise<Set<string>>;
  /** Stores captures read, in one transaction. */
  recordCaptures(siteId: number, captures: readonly NewCapture[]): Promise<void>;
  loadCaptures(siteId: number): Promise<ArchivedCapture[]>;
  replaceArchiveChain(
    siteId: number,
    states: readonly ArchivedState[],
    registry: string | null,
  ): Promise<number>;
  liveHistoryStart(siteId: number): Promise<Date | null>;
  /** Whether the archived snapshots are made from every capture stored (not after an interruption). */
  archiveChainCurrent(siteId: number): Promise<{ current: boolean; snapshots: number }>;
}

/** What /healthz says of the daemon. */
export interface DaemonHealth {
  readonly ok: boolean;
  /** The daemon's own loop: alive, and when it last ran. */
  readonly running: boolean;
  readonly lastTickAt: Date | null;
  readonly checks: {
    readonly ok: boolean;
    readonly lastCheckAt: Date | null;
    /** The longest the schedule allows without any check completing. */
    readonly expectedWithinMs: number;
    readonly problem?: string;
  };
  readonly deliveries: {
    readonly ok: boolean;
    readonly failingSince: Date | null;
    readonly problem?: string;
  };
}

/** A backfill job: one site, its period and spacing (as the command's flags, or the button's). */
export interface BackfillJob {
  readonly siteId: number;
  readonly since?: string;
  readonly until?: string;
  readonly every?: string;
}

/** The daemon in the web's process (robowatch start): what its pages and API ask of it. */
export interface SchedulerPort {
  health(): Promise<DaemonHealth>;
  jobCounts(): Promise<Record<string, { waiting: number; running: number }>>;
  /** Queues the loading of a site's history from the Internet Archive ("Load history"). */
  queueBackfill(job: BackfillJob): Promise<void>;
  /** The sites whose history is loading (running) or waits to be. */
  backfillsPending(): Promise<Map<number, 'waiting' | 'running'>>;
  /** Delivers what was just queued (a digest sent now, an incident's alert) without waiting for the next poll. */
  deliverNow(): void;
}
