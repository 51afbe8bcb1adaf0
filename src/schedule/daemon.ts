import cron from 'node-cron';
import type { ScheduledTask } from 'node-cron';
import type { Config, SiteConfig } from '../config/config.js';
import type { SiteCatalog } from '../monitor/site-catalog.js';
import { oneLine } from '../lib/errors.js';
import { formatDuration } from '../policy/explain.js';
import type { Logger } from '../lib/logger.js';
import { jobId } from '../lib/job-id.js';
import type { CheckOutcome } from '../monitor/check-site.js';
import { SITES_PER_FETCH } from '../monitor/check-sites.js';
import { deliverAttempt } from '../monitor/deliver-outbox.js';
import type { DeliveryAttempt, DeliveryJobDeps } from '../monitor/deliver-outbox.js';
import { periodAt, periodEndingAt, periodsAt } from '../monitor/periods.js';
import { checkJobs, planJob, planPeriod, runCheckJob } from '../monitor/plan-checks.js';
import type { CheckJob, PlanJob } from '../monitor/plan-checks.js';
import type { CheckDeps, JobQueue, NewJob } from '../monitor/ports.js';
import { prepareDigests } from '../monitor/send-digests.js';
import type { DigestDeps } from '../monitor/send-digests.js';
import { JobPool } from './job-pool.js';
import { adoptRegistry, refreshRegistry, registryFromStore } from '../monitor/refresh-registry.js';
import type { RegistryDeps, RegistryOutcome } from '../monitor/refresh-registry.js';
import { describeVersion } from '../policy/registry.js';
import { refusalLine } from '../policy/refusal.js';
import { randomUUID } from 'node:crypto';
import { backfillSite, readBackfillOptions } from '../monitor/backfill.js';
import type { BackfillDeps } from '../monitor/backfill.js';
import type { ActiveRegistry } from '../policy/registry.js';

/** What the daemon's upkeep needs from the store. */
export interface UpkeepStore {
  /** The next attempt of each unsent notification (queued once each: an older robowatch left some without). */
  unsentDeliveries(): Promise<NewJob<DeliveryAttempt>[]>;
  /** Deletes notifications sent before `before`; returns how many. */
  pruneDeliveries(before: Date): Promise<number>;
  /** The oldest notification still failing; null when none is. */
  failingDelivery(): Promise<{ since: Date; error: string; channel: string } | null>;
  /** When any site's check last completed, in any process. */
  lastCheckAt(): Promise<Date | null>;
  /** The end of the latest digest period recorded; null before the first digest. */
  lastDigestEnd(): Promise<Date | null>;
  /**
   * Refreshes the planner's statistics (and with `vacuum`, reclaims dead rows): for the
   * embedded database, which has no autovacuum. Absent on PostgreSQL.
   */
  maintainDatabase?(vacuum: boolean): Promise<void>;
}

export interface DaemonDeps {
  /** The settings it started with (the time zone, leases, concurrency: a restart changes them). */
  readonly config: Config;
  /** The watched sites, and the schedules a reload may change. */
  readonly catalog: SiteCatalog;
  readonly check: CheckDeps;
  readonly jobs: JobQueue;
  readonly deliver: Omit<DeliveryJobDeps, 'now'>;
  readonly digests: DigestDeps;
  readonly store: UpkeepStore;
  readonly logger: Logger;
  /** Waits `ms`, or less if `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Called while the daemon is alive (main.ts writes a heartbeat for the health check). */
  heartbeat?(): void;
  /** Called after each check this process makes (metrics). */
  onChecked?(outcome: CheckOutcome): void;
  /** Sites skipped in a period because their check from an earlier one still waited (metrics). */
  onSkipped?(count: number): void;
  /**
   * The AI crawler registry: the shipped copy (and its JSON), and how to refresh and record
   * it. Without it the configuration's registry is used as it is.
   */
  readonly registry?: RegistryDeps & {
    readonly shipped: ActiveRegistry;
    readonly shippedContent: Uint8Array;
  };
  /** Loading sites' history from the Internet Archive (the backfill queue); absent: not offered. */
  readonly backfill?: BackfillDeps;
}

/** A backfill job: one site, its period and spacing (as the command's flags, or the button's). */
export interface BackfillJob {
  readonly siteId: number;
  readonly since?: string;
  readonly until?: string;
  readonly every?: string;
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

/** Up to this many sites, the plan's log line lists each one. */
const PLAN_LOGGED = 50;
/** How often, at most, the upkeep runs (heartbeat, plans and digests queued, pruning). */
const UPKEEP_MS = 15_000;
/** How often notifications sent long ago are pruned. */
const PRUNE_MS = 3_600_000;
/**
 * The embedded database's statistics: refreshed 30 s after the start, then four times
 * further apart each time (the tables grow fast at first) up to every six hours.
 */
const FIRST_ANALYZE_MS = 30_000;
const ANALYZE_MS = 6 * 3_600_000;
/** …and its dead rows reclaimed this often. */
const VACUUM_MS = 24 * 3_600_000;
/** How often an idle pool looks for jobs that fell due. */
const POLL_MS = 1_000;

/**
 * `robowatch start`: every process runs the same schedules (node-cron, in the
 * configuration's time zone) and queues each period's planning as a job named by the
 * period, so that it is planned once; planning queues one check job per site; pools of
 * workers run checks, notifications and digests as they fall due. The job engine
 * (pg-boss) expires the jobs of a process that died and retries them; nothing here holds
 * state another process needs.
 */
export class Daemon {
  readonly #deps: DaemonDeps;
  readonly #stopping = new AbortController();
  /** The planning fire of each check schedule in use, and the digest's. */
  #planTasks = new Map<string, ScheduledTask>();
  #digestTask: { expression: string; task: ScheduledTask } | null = null;
  #registryTask: { expression: string; task: ScheduledTask } | null = null;
  /** The registry URL this process has fetched at least once (at the start, or by its job). */
  #registryFetched: string | null = null;
  /** A registry the configuration could not use (a preset it lacks), not tried again. */
  #registryRefused: string | null = null;
  #sites = new Map<number, SiteConfig>();
  #bySchedule = new Map<string, number[]>();
  #pools: {
    plan: JobPool<PlanJob>;
    check: JobPool<CheckJob>;
    deliver: JobPool<DeliveryAttempt>;
    digest: JobPool<{ fire: string }>;
    registry: JobPool<{ fire: string }>;
    backfill: JobPool<BackfillJob>;
  };
  #upkeep: Promise<void> | null = null;
  #lastTick: Date | null = null;
  #startedAt: Date | null = null;
  #stopped = false;

  constructor(deps: DaemonDeps) {
    this.#deps = deps;
    const { config, logger, jobs } = deps;
    const sleep = (ms: number, signal: AbortSignal) => deps.sleep(ms, signal);
    const common = {
      jobs,
      pollMs: POLL_MS,
      settleForMs: config.schedule.leaseMs,
      sleep,
    };
    const onError =
      (what: string) =>
      (job: { id: string; retries: number }, error: string, kind: 'failed' | 'unrecorded') => {
        if (this.#stopped) return;
        if (kind === 'failed')
          logger.error(
            { job: job.id, retries: job.retries, error },
            `${what} failed; retried later`,
          );
        else
          logger.error(
            { job: job.id, error, retriedWithinMs: config.schedule.leaseMs },
            `${what} done, but the database did not record it; done again once its lease expires`,
          );
      };
    this.#pools = {
      plan: new JobPool<PlanJob>({
        ...common,
        queue: 'plan',
        concurrency: 1,
        handle: (job) => this.#plan(job.data),
        onError: onError('planning'),
      }),
      check: new JobPool<CheckJob>({
        ...common,
        queue: 'check',
        concurrency: config.fetch.concurrency * SITES_PER_FETCH,
        handle: (job) => this.#check(job),
        onError: (job, error, kind) =>
          onError(
            `check of ${this.#sites.get(job.data.siteId)?.origin ?? `site ${job.data.siteId}`}`,
          )(job, error, kind),
      }),
      deliver: new JobPool<DeliveryAttempt>({
        ...common,
        queue: 'deliver',
        concurrency: 4,
        handle: async (job) => {
          await deliverAttempt({ ...deps.deliver, now: () => deps.check.now() }, job.data);
        },
        onError: onError('notification'),
      }),
      digest: new JobPool<{ fire: string }>({
        ...common,
        queue: 'digest',
        concurrency: 1,
        handle: (job) => this.#sendDigests(new Date(job.data.fire)),
        onError: onError('digest'),
      }),
      registry: new JobPool<{ fire: string }>({
        ...common,
        queue: 'registry',
        concurrency: 1,
        handle: () => this.#refreshRegistry(),
        onError: onError('AI crawler registry refresh'),
      }),
      backfill: new JobPool<BackfillJob>({
        ...common,
        queue: 'backfill',
        concurrency: 1,
        handle: (job) => this.#backfill(job.data),
        onError: (job, error, kind) =>
          onError(
            `loading the history of ${this.#deps.catalog.get(job.data.siteId)?.site.origin ?? `site ${job.data.siteId}`} from the Internet Archive`,
          )(job, error, kind),
      }),
    };
  }

  async start(): Promise<void> {
    const { logger } = this.#deps;
    this.#startedAt = this.#deps.check.now();
    await this.#deps.catalog.load();
    await this.#syncRegistry();
    for (const problem of this.#deps.catalog.problems()) logger.warn({}, problem);
    await this.#applySites();
    this.#deps.catalog.onChange(() => this.#applySites());
    // The current period of each schedule is planned now (by whichever process gets to
    // it first), and the digest a down fleet missed is queued. Notifications an older
    // robowatch queued without a job get theirs (a job is queued once, by its name).
    await this.#queueCurrent();
    await this.#deps.jobs.send('deliver', await this.#deps.store.unsentDeliveries());
    for (const pool of Object.values(this.#pools)) pool.start();
    this.#upkeep = this.#upkeepLoop();
    logger.info(
      { sites: this.#sites.size, schedules: [...this.#bySchedule.keys()] },
      'daemon started',
    );
  }

  /**
   * Takes the catalog's sites (at the start, and after each change: a reload, a site added,
   * edited, paused or removed): the sites it checks, a planning fire per schedule in use,
   * the digest's fire. A site it did not check before gets its check of the current period
   * (within seconds if it was never checked); a paused or removed one is left alone by the
   * jobs already queued for it.
   */
  async #applySites(): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    const { catalog, logger, jobs } = this.#deps;
    const { timezone } = this.#deps.config.schedule;
    const starting = this.#planTasks.size === 0 && this.#digestTask === null;
    const before = this.#sites;
    const active = catalog.entries().filter((e) => e.pausedAt === null);
    this.#sites = new Map(active.map((e) => [e.id, e.site]));
    this.#bySchedule = new Map();
    for (const [id, site] of this.#sites) {
      const ids = this.#bySchedule.get(site.schedule);
      if (ids === undefined) this.#bySchedule.set(site.schedule, [id]);
      else ids.push(id);
    }
    this.#syncTasks();

    const added = active.filter((e) => !before.has(e.id));
    const removed = [...before.keys()].filter((id) => !this.#sites.has(id)).length;
    if (!starting && (added.length > 0 || removed > 0))
      logger.info(
        {
          sites: this.#sites.size,
          added: added.length,
          removed,
          ...(added.length <= PLAN_LOGGED ? { addedSites: added.map((e) => e.site.origin) } : {}),
        },
        'watched sites changed',
      );
    if (added.length === 0) return;
    const now = this.#deps.check.now();
    const stored = await this.#deps.check.store.loadSites(added.map((e) => e.site.origin));
    const never = new Set(stored.filter((s) => s.current === null).map((s) => s.origin));
    // At the start the current period's planning queues the checks of the sites checked
    // before; later, the period was planned without the sites that came since.
    const queued = checkJobs(
      added
        .filter((e) => !starting || never.has(e.site.origin))
        .map((e) => ({ id: e.id, config: e.site, first: never.has(e.site.origin) })),
      periodsAt(timezone, now),
      now,
    );
    await jobs.send('check', queued);
    this.#pools.check.wake();
    if (this.#deps.backfill !== undefined && this.#deps.config.backfill.onAdd) {
      // backfill.onAdd: a new site's history from the Internet Archive, queued once.
      const fresh = added.filter((e) => never.has(e.site.origin));
      await jobs.send(
        'backfill',
        fresh.map((e) => backfillJob({ siteId: e.id }, `on-add:${e.id}`)),
      );
      if (fresh.length > 0) this.#pools.backfill.wake();
    }
    const first = queued.filter((j) => never.has(this.#sites.get(j.data.siteId)!.origin));
    if (first.length > 0)
      logger.info(
        {
          sites: first.length,
          ...(first.length <= PLAN_LOGGED
            ? {
                plan: first.map((j) => ({
                  site: this.#sites.get(j.data.siteId)!.origin,
                  dueAt: j.startAfter,
                })),
              }
            : {}),
        },
        'first checks queued',
      );
  }

  /** A planning fire per check schedule in use, and the digest's fire. */
  #syncTasks(): void {
    const { logger } = this.#deps;
    const options = (name: string) => ({
      name,
      timezone: this.#deps.config.schedule.timezone,
      logger: cronLogger(logger),
    });
    for (const [expression, task] of this.#planTasks)
      if (!this.#bySchedule.has(expression)) {
        void task.destroy();
        this.#planTasks.delete(expression);
      }
    for (const expression of this.#bySchedule.keys()) {
      if (this.#planTasks.has(expression)) continue;
      const task = cron.schedule(
        expression,
        (context) => this.#queuePlan(expression, context.date),
        options(`plan ${expression}`),
      );
      task.on('execution:missed', (context) =>
        logger.warn(
          { schedule: expression, fire: context.date },
          'schedule fire missed (the process was busy); the period is planned by the upkeep',
        ),
      );
      this.#planTasks.set(expression, task);
    }
    const registry = this.#deps.registry && this.#deps.catalog.file.registry;
    const refresh = registry?.url === null ? undefined : registry?.refresh;
    if (this.#registryTask?.expression !== refresh) {
      if (this.#registryTask !== null) void this.#registryTask.task.destroy();
      this.#registryTask =
        refresh === undefined
          ? null
          : {
              expression: refresh,
              task: cron.schedule(
                refresh,
                (context) => this.#queueRegistry(context.date),
                options('registry'),
              ),
            };
    }
    const digest = this.#deps.catalog.file.schedule.digest;
    if (this.#digestTask?.expression !== digest) {
      if (this.#digestTask !== null) void this.#digestTask.task.destroy();
      this.#digestTask = {
        expression: digest,
        task: cron.schedule(
          digest,
          (context) => this.#queueDigest(context.date),
          options('digest'),
        ),
      };
    }
  }

  /**
   * Stops the schedules and the pools (no new job is taken), lets running jobs finish
   * for up to `deadlineMs` and hands the rest back to the engine, then stops the upkeep.
   * Nothing of the daemon runs once this resolves.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.#deps.logger.info({ deadlineMs }, 'daemon stopping');
    this.#stopping.abort();
    for (const task of this.#planTasks.values()) await task.destroy();
    if (this.#digestTask !== null) await this.#digestTask.task.destroy();
    if (this.#registryTask !== null) await this.#registryTask.task.destroy();
    const left = await Promise.all(Object.values(this.#pools).map((p) => p.stop(deadlineMs)));
    await this.#upkeep;
    await this.#deps.jobs.stop();
    this.#stopped = true;
    const handedBack = left.reduce((a, b) => a + b, 0);
    this.#deps.logger.info(
      { finished: handedBack === 0, handedBack },
      handedBack === 0 ? 'daemon stopped' : 'daemon stopped at the deadline',
    );
  }

  /** Jobs waiting and running, per queue (all processes). */
  jobCounts(): Promise<Record<string, { waiting: number; running: number }>> {
    return this.#deps.jobs.counts();
  }

  /** When the daemon's upkeep last ran; null before it starts. */
  lastTick(): Date | null {
    return this.#lastTick;
  }

  /**
   * Whether the daemon does its job: its loop is alive, some check completed (in any
   * process) within what the schedules allow, and no notification has been failing for
   * longer than notify.unhealthyAfterMs.
   */
  async health(): Promise<DaemonHealth> {
    const { config, store } = this.#deps;
    const now = this.#deps.check.now().getTime();
    const running = this.#lastTick !== null && now - this.#lastTick.getTime() < 4 * UPKEEP_MS;
    const expectedWithinMs = this.#checkAllowanceMs();
    const [lastCheckAt, failing] = await Promise.all([
      store.lastCheckAt(),
      store.failingDelivery(),
    ]);
    const since = Math.max(lastCheckAt?.getTime() ?? 0, this.#startedAt?.getTime() ?? now);
    const checksOk = this.#sites.size === 0 || now - since <= expectedWithinMs;
    const deliveriesOk =
      failing === null || now - failing.since.getTime() <= config.notify.unhealthyAfterMs;
    return {
      ok: running && checksOk && deliveriesOk,
      running,
      lastTickAt: this.#lastTick,
      checks: {
        ok: checksOk,
        lastCheckAt,
        expectedWithinMs,
        ...(checksOk
          ? {}
          : {
              problem: `no site has finished a check since ${new Date(since).toISOString()}, longer than the ${formatDuration(expectedWithinMs)} the schedules allow: checks are stuck or failing (see the log)`,
            }),
      },
      deliveries: {
        ok: deliveriesOk,
        failingSince: failing?.since ?? null,
        ...(deliveriesOk || failing === null
          ? {}
          : {
              problem: `${failing.channel} notifications have been failing since ${failing.since.toISOString()}: ${failing.error}`,
            }),
      },
    };
  }

  /** Twice the longest period of any check schedule, and a lease: no check at all in that long is a fault. */
  #checkAllowanceMs(): number {
    const now = this.#deps.check.now();
    let longest = 0;
    for (const expression of this.#bySchedule.keys()) {
      const p = periodAt(expression, this.#deps.config.schedule.timezone, now);
      longest = Math.max(longest, p.end.getTime() - p.start.getTime());
    }
    return 2 * longest + this.#deps.config.schedule.leaseMs;
  }

  async #upkeepLoop(): Promise<void> {
    const { logger, config } = this.#deps;
    const signal = this.#stopping.signal;
    const every = Math.min(UPKEEP_MS, Math.max(1_000, Math.floor(config.schedule.leaseMs / 2)));
    let lastPrune = 0;
    let analyzeEvery = FIRST_ANALYZE_MS;
    let lastAnalyze = this.#deps.check.now().getTime();
    let lastVacuum = lastAnalyze;
    let failures = 0;
    while (!signal.aborted) {
      this.#lastTick = this.#deps.check.now();
      this.#deps.heartbeat?.();
      try {
        await this.#queueCurrent();
        // Sites added, edited or paused in another process (this one's apply at once).
        await this.#deps.catalog.refresh();
        // A registry another process fetched, or the first fetch of a new registry.url.
        await this.#syncRegistry();
        const now = this.#deps.check.now();
        if (now.getTime() - lastPrune >= PRUNE_MS) {
          const before = new Date(now.getTime() - config.schedule.retentionDays * 86_400_000);
          const pruned = await this.#deps.store.pruneDeliveries(before);
          if (pruned > 0) logger.info({ pruned, before }, 'sent notifications pruned');
          lastPrune = now.getTime();
        }
        const { store } = this.#deps;
        if (store.maintainDatabase !== undefined && now.getTime() - lastAnalyze >= analyzeEvery) {
          const vacuum = now.getTime() - lastVacuum >= VACUUM_MS;
          const started = Date.now();
          await store.maintainDatabase(vacuum);
          logger.info(
            { tookMs: Date.now() - started },
            vacuum ? 'embedded database vacuumed and analyzed' : 'embedded database analyzed',
          );
          lastAnalyze = now.getTime();
          analyzeEvery = Math.min(analyzeEvery * 4, ANALYZE_MS);
          if (vacuum) lastVacuum = now.getTime();
        }
        if (failures > 0) logger.info({ failures }, 'upkeep works again');
        failures = 0;
      } catch (error) {
        if (failures++ === 0)
          logger.error({ error: oneLine(error) }, 'upkeep failed (the database?); trying again');
      }
      await this.#deps.sleep(every, signal);
    }
  }

  /**
   * Queues the current period's planning of each schedule and a missed digest (each a
   * no-op when queued already).
   */
  async #queueCurrent(): Promise<void> {
    const { config, jobs, store } = this.#deps;
    const now = this.#deps.check.now();
    const plans = [...this.#bySchedule.keys()].map((expression) =>
      planJob(expression, periodAt(expression, config.schedule.timezone, now)),
    );
    await jobs.send('plan', plans);
    const lastDigest = await store.lastDigestEnd();
    const digest = this.#deps.catalog.file.schedule.digest;
    const fire = periodAt(digest, config.schedule.timezone, now).start;
    if (lastDigest !== null && lastDigest.getTime() < fire.getTime()) await this.#queueDigest(fire);
    this.#pools.plan.wake();
  }

  async #queuePlan(expression: string, fire: Date): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    try {
      const period = periodAt(expression, this.#deps.config.schedule.timezone, fire);
      await this.#deps.jobs.send('plan', [planJob(expression, period)]);
      this.#pools.plan.wake();
    } catch (error) {
      this.#deps.logger.error(
        { schedule: expression, fire, error: oneLine(error) },
        'could not queue the planning of a period; the upkeep queues it',
      );
    }
  }

  /** Queues a schedule's fire as one job, named by the fire: queued once across processes. */
  async #queueFire(queue: 'digest' | 'registry', fire: Date, failure: string): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    try {
      await this.#deps.jobs.send(queue, [
        { id: jobId(`${queue}:${fire.toISOString()}`), data: { fire: fire.toISOString() } },
      ]);
      this.#pools[queue].wake();
    } catch (error) {
      this.#deps.logger.error({ fire, error: oneLine(error) }, failure);
    }
  }

  #queueDigest(fire: Date): Promise<void> {
    return this.#queueFire('digest', fire, 'could not queue the digest; the upkeep queues it');
  }

  async #plan(job: PlanJob): Promise<void> {
    const { config, jobs, logger } = this.#deps;
    const now = this.#deps.check.now();
    const period = periodAt(job.schedule, config.schedule.timezone, new Date(job.at));
    await this.#deps.catalog.refresh(); // the period's sites as they are now, in any process
    if (period.end.getTime() <= now.getTime()) {
      logger.warn({ schedule: job.schedule, period }, 'period over before it was planned; skipped');
      return;
    }
    const sites = (this.#bySchedule.get(job.schedule) ?? []).map((id) => ({
      id,
      config: this.#sites.get(id)!,
    }));
    const plan = await planPeriod(
      jobs,
      sites,
      job.schedule,
      config.schedule.timezone,
      new Date(job.at),
      now,
    );
    // Folded, not spread into Math.min: a period may plan 150,000 sites.
    let first = Infinity;
    let last = -Infinity;
    for (const j of plan.planned) {
      first = Math.min(first, j.startAfter!.getTime());
      last = Math.max(last, j.startAfter!.getTime());
    }
    logger.info(
      {
        schedule: job.schedule,
        sites: plan.planned.length,
        periodStart: plan.period.start,
        periodEnd: plan.period.end,
        firstDueAt: plan.planned.length > 0 ? new Date(first) : null,
        lastDueAt: plan.planned.length > 0 ? new Date(last) : null,
        ...(plan.planned.length <= PLAN_LOGGED
          ? {
              plan: plan.planned.map((j) => ({
                site: this.#sites.get(j.data.siteId)!.origin,
                dueAt: j.startAfter,
              })),
            }
          : {}),
      },
      'checks planned',
    );
    if (plan.skipped.length > 0) {
      this.#deps.onSkipped?.(plan.skipped.length);
      logger.warn(
        {
          schedule: job.schedule,
          periodStart: plan.period.start,
          skipped: plan.skipped.length,
          sites: plan.skipped.slice(0, PLAN_LOGGED).map((s) => s.origin),
        },
        'checks skipped this period: these sites still wait for their check from an earlier period, which runs first',
      );
    }
    this.#pools.check.wake();
  }

  async #check(job: { id: string; data: CheckJob; retries: number }): Promise<void> {
    // A site added in another process moments ago: this one learns of it now.
    if (!this.#sites.has(job.data.siteId)) await this.#deps.catalog.fresh(1_000);
    const result = await runCheckJob(this.#deps.check, this.#sites, job);
    if (result.outcome === null) return;
    const outcome = result.outcome;
    this.#deps.onChecked?.(outcome);
    const fields = {
      site: outcome.site,
      snapshot: outcome.snapshotId,
      status: outcome.status,
      ...(result.late ? { late: true, periodEnd: job.data.periodEnd } : {}),
    };
    if (outcome.kind === 'refused') {
      const cause = outcome.causes.find((c) => c.type === 'refused');
      this.#deps.logger.warn(
        { site: outcome.site, since: outcome.refused?.since, reason: cause?.reason },
        cause === undefined ? 'not checked: refused' : refusalLine(cause),
      );
      if (outcome.refused?.began === true) this.#pools.deliver.wake(); // its alert is queued
      return;
    }
    if (outcome.kind === 'unchanged') this.#deps.logger.info(fields, 'checked: unchanged');
    else
      this.#deps.logger.info(
        { ...fields, events: outcome.events.length },
        `checked: ${outcome.kind}`,
      );
    if (outcome.events.length > 0) this.#pools.deliver.wake(); // its alerts are queued
  }

  #queueRegistry(fire: Date): Promise<void> {
    return this.#queueFire(
      'registry',
      fire,
      'could not queue the AI crawler registry refresh; it is tried at the next fire',
    );
  }

  /**
   * Uses the registry it should (the shipped one, or the last one fetched from
   * registry.url, whichever process fetched it) and records it when it differs from the
   * one used before (an upgrade that ships a new one says what it changes). With a
   * registry.url never fetched yet, fetches it once.
   */
  async #syncRegistry(): Promise<void> {
    const deps = this.#deps.registry;
    if (deps === undefined || this.#stopping.signal.aborted) return;
    const { catalog } = this.#deps;
    const { url, active } = catalog.file.registry;
    // Most upkeeps: what is recorded is what is in use (only its version is read).
    const head = await deps.store.latestRegistryVersion();
    const inUse = active.version.sha256;
    if (head?.sha256 === inUse && (url === null ? head.source === 'shipped' : head.source === url))
      return;
    // registry.url not served yet: fetched once at the start, then by its schedule.
    if (url !== null && head?.source !== url && this.#registryFetched === url) return;
    const stored = await deps.store.latestRegistry();
    const wanted = registryFromStore(stored, catalog.file, deps.shipped);
    if (wanted === null) {
      if (url !== null && this.#registryFetched !== url) await this.#refreshRegistry();
      return;
    }
    if (url === null && stored?.version.sha256 !== wanted.version.sha256)
      this.#report(await adoptRegistry(deps, catalog.config, wanted, deps.shippedContent));
    await this.#useRegistry(wanted);
  }

  /**
   * Queues the loading of a site's history from the Internet Archive (the "Load history"
   * button, the API, `robowatch backfill` beside this daemon); one waits per site.
   */
  async queueBackfill(job: BackfillJob): Promise<void> {
    if (this.#deps.backfill === undefined) throw new Error('backfill is not wired in this process');
    await this.#deps.jobs.send('backfill', [backfillJob(job, randomUUID())]);
    this.#pools.backfill.wake();
  }

  /** The sites whose history is being loaded (running) or waits to be (any process's jobs). */
  async backfillsPending(): Promise<Map<number, 'waiting' | 'running'>> {
    const keys = await this.#deps.jobs.pendingKeys('backfill');
    return new Map([...keys].map(([key, state]) => [Number(key.split(':')[1]), state]));
  }

  /**
   * Reads a slice of a site's archived history (about ten minutes of spaced requests),
   * and queues the next slice when there is more: a job stays within its lease, and the
   * site's page shows the history as it grows.
   */
  async #backfill(job: BackfillJob): Promise<void> {
    const deps = this.#deps.backfill;
    const entry = this.#deps.catalog.get(job.siteId);
    if (deps === undefined || entry === undefined) return;
    const { logger, config } = this.#deps;
    const perMinute = config.archive.requestsPerMinute;
    const outcome = await backfillSite(deps, entry.site, job.siteId, {
      ...readBackfillOptions(job),
      limit: perMinute === 0 ? 1000 : Math.max(20, perMinute * 10),
    });
    logger.info(
      { ...outcome, until: outcome.until.toISOString() },
      outcome.more
        ? 'history loaded in part from the Internet Archive; the rest follows'
        : 'history loaded from the Internet Archive',
    );
    if (outcome.more && !this.#stopping.signal.aborted) await this.queueBackfill(job);
  }

  /** Fetches registry.url; adopts and uses what it serves if that is new. */
  async #refreshRegistry(): Promise<void> {
    const deps = this.#deps.registry;
    if (deps === undefined) return;
    const config = this.#deps.catalog.config;
    if (config.registry.url === null) return;
    this.#registryFetched = config.registry.url;
    const outcome = await refreshRegistry(deps, config);
    this.#report(outcome);
    if (outcome.kind !== 'failed') await this.#useRegistry(outcome.active);
    else if ((await deps.store.latestRegistry()) === null)
      // Nothing recorded yet: the shipped copy, in use meanwhile, is (so verdicts name it).
      this.#report(await adoptRegistry(deps, config, deps.shipped, deps.shippedContent));
  }

  #report(outcome: RegistryOutcome): void {
    const { logger } = this.#deps;
    const url = this.#deps.catalog.file.registry.url;
    if (outcome.kind === 'failed')
      logger.warn(
        { url: outcome.url, error: outcome.error },
        `AI crawler registry not refreshed; ${describeVersion(this.#deps.catalog.file.registry.active.version)} stays in use`,
      );
    else if (outcome.kind === 'unchanged')
      logger.info({ url, sha256: outcome.active.version.sha256 }, 'AI crawler registry unchanged');
    else {
      logger.info(
        {
          registry: outcome.active.version,
          previous: outcome.previous?.version ?? null,
          sites: outcome.sites,
          alerting: outcome.alerting,
        },
        outcome.previous === null
          ? 'AI crawler registry recorded'
          : outcome.recordedElsewhere
            ? 'AI crawler registry updated (recorded by another process)'
            : 'AI crawler registry updated: what it means for each site recorded',
      );
      if (outcome.alerting > 0) this.#pools.deliver.wake();
    }
  }

  /** Makes the sites' AI presets from `registry`, unless it is in use or was refused. */
  async #useRegistry(registry: ActiveRegistry): Promise<void> {
    const { catalog, logger } = this.#deps;
    const sha = registry.version.sha256;
    if (catalog.file.registry.active.version.sha256 === sha || this.#registryRefused === sha)
      return;
    try {
      await catalog.useRegistry(registry);
      logger.info(
        { registry: registry.version },
        `AI crawler registry in use: ${describeVersion(registry.version)}`,
      );
    } catch (error) {
      this.#registryRefused = sha;
      logger.error(
        { registry: registry.version, error: oneLine(error) },
        `AI crawler registry not used: the configuration does not hold with it; ${describeVersion(catalog.file.registry.active.version)} stays in use`,
      );
    }
  }

  async #sendDigests(fire: Date): Promise<void> {
    // The period runs from the previous fire to this one, so that every process names it
    // alike and consecutive digests neither overlap nor leave a gap.
    const { timezone } = this.#deps.config.schedule;
    const { digest } = this.#deps.catalog.file.schedule;
    const period = periodEndingAt(digest, timezone, fire);
    const digests = await prepareDigests(this.#deps.digests, this.#deps.catalog.config, period, {
      record: true,
    });
    for (const d of digests) {
      this.#deps.logger.info(
        { recipient: d.recipient, digest: d.id },
        d.id === null ? 'digest already sent' : 'digest queued',
      );
    }
    this.#pools.deliver.wake();
  }
}

/** node-cron's log lines, as JSON through the daemon's logger. */
function cronLogger(logger: Logger) {
  const line = (message: unknown, extra?: unknown) =>
    [message, extra]
      .filter((p) => p !== undefined && p !== '')
      .map((p) => oneLine(p))
      .join(': ');
  return {
    info: (message: string) => logger.info({ component: 'node-cron' }, line(message)),
    warn: (message: string) => logger.warn({ component: 'node-cron' }, line(message)),
    error: (message: string | Error, extra?: unknown) =>
      logger.error({ component: 'node-cron' }, line(message, extra)),
    debug: () => undefined,
  };
}

/** A backfill job: its id from `name` (queued once per name), one waiting per site. */
function backfillJob(job: BackfillJob, name: string): NewJob<BackfillJob> {
  return { id: jobId(`backfill:${name}`), data: job, singletonKey: `site:${job.siteId}` };
}
