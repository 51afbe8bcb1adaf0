/**
 * The daemon is a table of job kinds (Uptime Kuma's monitor types, one class per kind
 * behind one interface): each names its queue, how many of its jobs a process runs at
 * once, what a job is in words, and how to run one. They share the daemon's context.
 */
import type { Config, SiteConfig } from '../config/config.js';
import type { BackfillDeps } from '../monitor/archive/backfill.js';
import type { DeliveryJobDeps } from '../monitor/delivery/deliver.js';
import type { CheckDeps, Job, JobQueue, NewJob, QueueName } from '../monitor/ports.js';
import type { DeliveryAttempt } from '../monitor/delivery/deliver.js';
import type { RegistryInUse } from '../monitor/registry/in-use.js';
import type { DigestDeps } from '../monitor/delivery/digests.js';
import type { ReminderStore } from '../monitor/delivery/reminders.js';
import type { SiteCatalog } from '../monitor/sites/catalog.js';
import type { DaemonEvents } from './events.js';

/** What the daemon's upkeep needs from the store. */
export interface UpkeepStore {
  /** The next attempt of each unsent notification (queued once each: an older robowatch left some without). */
  unsentDeliveries(): Promise<NewJob<DeliveryAttempt>[]>;
  /** Deletes notifications sent before `before`; returns how many. */
  pruneDeliveries(before: Date): Promise<number>;
  /** Deletes audit entries before `before` and sign-in attempts before `attemptsBefore`. */
  pruneAudit?(before: Date, attemptsBefore: Date): Promise<number>;
  /** The oldest notification still failing; null when none is. */
  failingDelivery(): Promise<{ since: Date; error: string; channel: string } | null>;
  /** When any site's check last completed, in any process. */
  lastCheckAt(): Promise<Date | null>;
  /** Queues the reminders of unacknowledged open incidents due at `now` (notify.remind). */
  remindIncidents: ReminderStore['remindIncidents'];
  /** The end of the latest digest period recorded; null before the first digest. */
  lastDigestEnd(): Promise<Date | null>;
  /**
   * Refreshes the planner's statistics (and with `vacuum`, reclaims dead rows) where the
   * server does not: the embedded database, which has no autovacuum, or a PostgreSQL
   * running with `autovacuum = off`. Says which it maintained; null when the server does
   * it itself (PostgreSQL with autovacuum on, the default).
   */
  maintainDatabase?(vacuum: boolean): Promise<'embedded' | 'postgres' | null>;
}

/** Listening for the catalogue's changes: ready once listening, closed with the daemon. */
export interface CatalogListening {
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface DaemonDeps {
  /** The settings it started with (the time zone, leases, concurrency: a restart changes them). */
  readonly config: Config;
  /** The watched sites, and the schedules a reload may change. */
  readonly catalog: SiteCatalog;
  readonly check: CheckDeps;
  readonly jobs: JobQueue;
  readonly deliver: Omit<DeliveryJobDeps, 'now' | 'onSent' | 'onFailed'>;
  readonly digests: DigestDeps;
  readonly store: UpkeepStore;
  /** The AI crawler registry in use, and its refresh; absent: the configuration's, as it is. */
  readonly registry?: (catalog: SiteCatalog, events: DaemonEvents) => RegistryInUse;
  /** Loading sites' history from the Internet Archive (the backfill queue); absent: not offered. */
  readonly backfill?: BackfillDeps;
  /** The cron fires: node-cron in a process, the test's own in tests. */
  readonly cron: CronScheduler;
  /**
   * Announcements of the site catalogue's changes as they commit, in any process
   * (PostgreSQL's LISTEN): the catalogue is read at once, not at the next upkeep round.
   * Absent (the embedded database): the upkeep round finds what another process changed.
   */
  readonly catalogChanges?: (onChange: () => void) => CatalogListening;
  /** The daemon's clock. */
  now(): Date;
  /** Waits `ms`, or less if `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Fires a cron expression's times (in a time zone) until stopped. */
export interface CronScheduler {
  schedule(
    expression: string,
    options: { readonly name: string; readonly timezone: string },
    onFire: (fire: Date) => void,
    onMissed: (fire: Date) => void,
  ): { stop(): Promise<void> };
}

/** What every job kind shares: the daemon's dependencies, its events, its sites, its pools. */
export interface DaemonContext {
  readonly deps: DaemonDeps;
  readonly events: DaemonEvents;
  /** The sites checked now (not paused), by id. */
  sites(): ReadonlyMap<number, SiteConfig>;
  /** Their ids by check schedule. */
  bySchedule(): ReadonlyMap<string, readonly number[]>;
  /** The registry in use, when the daemon keeps one. */
  readonly registry: RegistryInUse | undefined;
  /** Makes a queue's pool look for jobs now (this process just queued some). */
  wake(queue: QueueName): void;
  /** Aborts when the daemon stops. */
  readonly stopping: AbortSignal;
}

export interface JobKind<T> {
  readonly queue: QueueName;
  /** Jobs of this kind run at once in this process. */
  readonly concurrency: number;
  /** How long its jobs falling due are gathered to start together (JobPool's gatherMs). */
  readonly gatherMs?: number;
  /** What a job is, in words, for its failure ("check of https://…"). */
  describe(job: Job<T>): string;
  /** Runs a job; throwing fails it, for the engine to retry with backoff. */
  handle(job: Job<T>): Promise<void>;
}
