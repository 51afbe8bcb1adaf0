/**
 * Each process's own upkeep, every 15 s at most: it says the process is alive (the
 * heartbeat), queues the current period's planning of each schedule and a digest a down
 * fleet missed (each a no-op when queued already), reads the sites other processes
 * changed, takes the AI crawler registry another process fetched, and queues the fleet's
 * upkeep jobs (done once across processes). A failure (the database away) is said once,
 * and again when it works.
 */
import { oneLine } from '../lib/errors.js';
import { periodAt } from '../policy/periods.js';
import { planJob } from '../monitor/check/plan.js';
import type { NewJob } from '../monitor/ports.js';
import type { ScheduleFires } from './fires.js';
import type { DaemonContext } from './job-kind.js';
import { upkeepJob } from './jobs/upkeep-job.js';

/** How often due reminders are looked for. */
const REMIND_EVERY_MS = 60_000;

/** How often, at most, a process's upkeep runs. */
export const TICK_MS = 15_000;
/** Sent notifications are pruned hourly. */
const PRUNE_EVERY_MS = 3_600_000;
/**
 * The database's statistics where the server keeps none (the embedded database, or a
 * PostgreSQL with autovacuum off; store/index.ts maintainDatabase): refreshed 30 s after
 * the start, then four times further apart each time (the tables grow fast at first) up
 * to every six hours…
 */
const FIRST_ANALYZE_MS = 30_000;
const ANALYZE_MS = 6 * 3_600_000;
/** …and its dead rows reclaimed daily. */
const VACUUM_MS = 24 * 3_600_000;

export class Tick {
  #lastTick: Date | null = null;
  #failures = 0;
  #analyzeEvery = FIRST_ANALYZE_MS;
  #lastAnalyze: number;
  #lastVacuum: number;
  /**
   * The ids of the jobs the last round queued, by queue: a round queues (and wakes a pool
   * for) only a new period's planning, a new hour's pruning, a new minute's reminders.
   * Queuing the same jobs again at every round (a no-op for the engine) was two
   * statements and two pools' looks every 15 s.
   */
  readonly #queued = new Map<'plan' | 'upkeep', ReadonlySet<string>>();

  constructor(
    private readonly context: DaemonContext,
    private readonly fires: ScheduleFires,
  ) {
    this.#lastAnalyze = this.#lastVacuum = context.deps.now().getTime();
  }

  /** When the upkeep last ran; null before it starts. */
  get lastTick(): Date | null {
    return this.#lastTick;
  }

  /** How often it runs: at most TICK_MS, more often with short leases. */
  get everyMs(): number {
    return Math.min(
      TICK_MS,
      Math.max(1_000, Math.floor(this.context.deps.config.schedule.leaseMs / 2)),
    );
  }

  /** Runs until the daemon stops. */
  async loop(): Promise<void> {
    const { deps, stopping } = this.context;
    while (!stopping.aborted) {
      await this.once();
      await deps.sleep(this.everyMs, stopping);
    }
  }

  /** One round of the upkeep. */
  async once(): Promise<void> {
    const { deps, events } = this.context;
    this.#lastTick = deps.now();
    events.emit('daemon:tick', { at: this.#lastTick });
    try {
      await this.queueCurrent();
      // Sites added, edited or paused in another process (this one's apply at once).
      await deps.catalog.refresh();
      // A registry another process fetched, or the first fetch of a new registry.url.
      if (!this.context.stopping.aborted) await this.context.registry?.sync();
      await this.#queueUpkeep();
      if (this.#failures > 0) events.emit('upkeep:recovered', { failures: this.#failures });
      this.#failures = 0;
    } catch (error) {
      if (this.#failures++ === 0) events.emit('upkeep:failed', { error: oneLine(error) });
    }
  }

  /**
   * Queues the current period's planning of each schedule and a missed digest (each a
   * no-op when queued already).
   */
  async queueCurrent(): Promise<void> {
    const { deps } = this.context;
    const now = deps.now();
    const { timezone } = deps.config.schedule;
    const plans = [...this.context.bySchedule().keys()].map((expression) =>
      planJob(expression, periodAt(expression, timezone, now)),
    );
    const planned = await this.#queueNew('plan', plans);
    const lastDigest = await deps.store.lastDigestEnd();
    const fire = periodAt(deps.catalog.file.schedule.digest, timezone, now).start;
    if (lastDigest !== null && lastDigest.getTime() < fire.getTime())
      await this.fires.queueDigest(fire);
    if (planned) this.context.wake('plan');
  }

  /** Queues the jobs a round makes that no round queued before; whether there were any. */
  async #queueNew(queue: 'plan' | 'upkeep', jobs: readonly NewJob<unknown>[]): Promise<boolean> {
    const queued = this.#queued.get(queue);
    const fresh = jobs.filter((job) => queued?.has(job.id) !== true);
    if (fresh.length > 0) await this.context.deps.jobs.send(queue, fresh);
    // Only this round's ids are kept: an older period's or hour's comes no more.
    this.#queued.set(queue, new Set(jobs.map((job) => job.id)));
    return fresh.length > 0;
  }

  /** The fleet's upkeep jobs due now: pruning each hour; the embedded database's statistics. */
  async #queueUpkeep(): Promise<void> {
    const { deps } = this.context;
    const now = deps.now().getTime();
    const jobs = [upkeepJob('prune', new Date(now - (now % PRUNE_EVERY_MS)))];
    // Reminders are looked for each minute (notify.remind is at least one).
    if (deps.catalog.config.notify.remindMs !== null)
      jobs.push(upkeepJob('remind', new Date(now - (now % REMIND_EVERY_MS))));
    if (
      deps.store.maintainDatabase !== undefined &&
      now - this.#lastAnalyze >= this.#analyzeEvery
    ) {
      const vacuum = now - this.#lastVacuum >= VACUUM_MS;
      jobs.push(upkeepJob(vacuum ? 'vacuum' : 'analyze', new Date(now)));
      this.#lastAnalyze = now;
      this.#analyzeEvery = Math.min(this.#analyzeEvery * 4, ANALYZE_MS);
      if (vacuum) this.#lastVacuum = now;
    }
    if (await this.#queueNew('upkeep', jobs)) this.context.wake('upkeep');
  }
}
