/**
 * What the daemon tells the world, as typed lifecycle events (graphile-worker's
 * WorkerEventMap is the model): the log, the metrics and the tests subscribe to them, and
 * nothing in the daemon logs or counts by itself.
 */
import { EventEmitter } from 'node:events';
import type { CheckOutcome } from '../monitor/check/site.js';
import type { BackfillOutcome } from '../monitor/archive/backfill.js';
import type { RegistryOutcome } from '../monitor/registry/refresh.js';
import type { Period } from '../policy/periods.js';
import type { Delivery } from '../policy/alerts.js';
import type { RegistryVersion } from '../policy/registry.js';
import type { QueueName } from '../monitor/ports.js';

/** A site's check due at a time, as plans list them (the first 50). */
export interface PlannedCheck {
  readonly site: string;
  readonly dueAt: Date;
}

/** Every event, with what it carries. */
export interface DaemonEventMap {
  /** The daemon took its sites, queued the current periods and started its pools. */
  'daemon:started': { readonly sites: number; readonly schedules: readonly string[] };
  'daemon:stopping': { readonly deadlineMs: number };
  /** What the configuration (or what was made in the UI) makes unusable, said at the start. */
  'daemon:problem': { readonly message: string };
  /** Nothing of it runs any more; `handedBack` jobs were still running at the deadline. */
  'daemon:stopped': { readonly handedBack: number };
  /** The upkeep ran (heartbeat): this process is alive. */
  'daemon:tick': { readonly at: Date };
  /** Sites were added, edited, paused or removed (a reload, the UI, another process). */
  'sites:changed': {
    readonly sites: number;
    readonly added: readonly string[];
    readonly removed: number;
  };
  /** Sites never checked got their first check, within seconds. */
  'sites:first-checks': { readonly plan: readonly PlannedCheck[] };
  /** A period of a schedule was planned: one check job per site, spread over it. */
  'period:planned': {
    readonly schedule: string;
    readonly period: Period;
    readonly planned: number;
    readonly firstDueAt: Date | null;
    readonly lastDueAt: Date | null;
    readonly plan: readonly PlannedCheck[];
  };
  /** A period whose planning job ran only after it ended: nothing planned. */
  'period:over': { readonly schedule: string; readonly period: Period };
  /** Sites left out of a period: their check of an earlier one still waits. */
  'check:skipped': {
    readonly schedule: string;
    readonly periodStart: Date;
    readonly sites: readonly string[];
  };
  /** A check was made (`outcome.kind` is baseline, changed or unchanged). */
  'check:done': {
    readonly outcome: CheckOutcome;
    /** Made after its period ended (the machine could not keep up). */
    readonly late: boolean;
    readonly periodEnd: string;
  };
  /** A check robowatch refused to make (its address guard). */
  'check:refused': { readonly outcome: CheckOutcome };
  /** A job's handler failed (retried later), or its end could not be recorded. */
  'job:failed': {
    readonly queue: QueueName;
    /** What the job was, in words ("check of https://…"). */
    readonly what: string;
    readonly job: string;
    readonly retries: number;
    readonly error: string;
    /** Done, but the database did not record it: done again once its lease expires. */
    readonly unrecorded: boolean;
  };
  'delivery:sent': { readonly delivery: Delivery };
  'delivery:failed': {
    readonly delivery: Delivery;
    readonly error: string;
    readonly retryAt: Date;
  };
  /** A recipient's digest of a period was recorded and its delivery queued (or was already). */
  'digest:queued': { readonly recipient: string; readonly digest: number | null };
  /** registry.url was fetched (or failed), or a registry was recorded. */
  'registry:refreshed': {
    readonly outcome: RegistryOutcome;
    readonly url: string | null;
    /** The registry in use after it. */
    readonly inUse: RegistryVersion;
  };
  /** The sites' AI presets are made from this registry now. */
  'registry:used': { readonly version: RegistryVersion };
  /** A registry the configuration does not hold with: the one in use stays. */
  'registry:refused': {
    readonly version: RegistryVersion;
    readonly inUse: RegistryVersion;
    readonly error: string;
  };
  /** A slice of a site's history was loaded from the Internet Archive. */
  'backfill:done': { readonly outcome: BackfillOutcome };
  /** Fleet-wide upkeep done by this process (once across processes, as a job). */
  'upkeep:done':
    | { readonly task: 'prune'; readonly pruned: number; readonly before: Date }
    | {
        readonly task: 'analyze' | 'vacuum';
        /** Which: the embedded database, or a PostgreSQL running with autovacuum off. */
        readonly database: 'embedded' | 'postgres';
        readonly tookMs: number;
      }
    | { readonly task: 'remind'; readonly reminded: number; readonly at: Date };
  /** The per-process upkeep failed (the database?): tried again; `recovered` when it works again. */
  'upkeep:failed': { readonly error: string };
  'upkeep:recovered': { readonly failures: number };
  /** A schedule's fire could not be queued (the upkeep queues it later), or was missed. */
  'fire:failed': {
    readonly what: string;
    readonly fire: Date;
    readonly error: string;
    readonly schedule?: string;
  };
  'fire:missed': { readonly schedule: string; readonly fire: Date };
}

export type DaemonEventName = keyof DaemonEventMap;

/** The daemon's events: `on` to listen, `once` to wait for one (tests). */
export class DaemonEvents {
  readonly #emitter = new EventEmitter();

  constructor() {
    // Tests and the log, metrics and health subscribers: more than the default ten.
    this.#emitter.setMaxListeners(100);
  }

  emit<E extends DaemonEventName>(event: E, payload: DaemonEventMap[E]): void {
    this.#emitter.emit(event, payload);
  }

  on<E extends DaemonEventName>(
    event: E,
    listener: (payload: DaemonEventMap[E]) => void,
  ): () => void {
    this.#emitter.on(event, listener);
    return () => this.#emitter.off(event, listener);
  }
}
