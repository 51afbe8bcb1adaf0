/**
 * `robowatch start`: every process runs the same schedules (in the configuration's time
 * zone) and queues each period's planning as a job named by the period, so that it is
 * planned once; planning queues one check job per site; a pool of workers per job kind
 * runs checks, notifications, digests, registry refreshes, backfills and the fleet's
 * upkeep as they fall due. The job engine (pg-boss) expires the jobs of a process that
 * died and retries them; nothing here holds state another process needs. What happens is
 * told as typed events (events.ts), which the log, the metrics and the tests hear.
 */
import { randomUUID } from 'node:crypto';
import type { SiteConfig } from '../config/config.js';
import type { JobQueue, QueueName } from '../monitor/ports.js';
import { periodsAt } from '../policy/periods.js';
import { checkJobs } from '../monitor/check/plan.js';
import { DaemonEvents } from './events.js';
import { ScheduleFires } from './fires.js';
import { daemonHealth } from './health.js';
import type { DaemonHealth } from './health.js';
import { JobPool } from './job-pool.js';
import type { CatalogListening, DaemonContext, DaemonDeps, JobKind } from './job-kind.js';
import { backfillJob, backfillJobKind } from './jobs/backfill-job.js';
import type { BackfillJob } from './jobs/backfill-job.js';
import { checkJobKind } from './jobs/check-job.js';
import { deliverJobKind } from './jobs/deliver-job.js';
import { digestJobKind } from './jobs/digest-job.js';
import { planJobKind } from './jobs/plan-job.js';
import { registryJobKind } from './jobs/registry-job.js';
import { upkeepJobKind } from './jobs/upkeep-job.js';
import { Tick } from './tick.js';

export type { BackfillJob, DaemonDeps, DaemonHealth };

/**
 * How often the daemon looks for jobs its pools were not told of: those another process
 * queued (a web process of its own, another replica) and those whose lease ran out. A pool
 * is woken for the jobs its own process queues, and sleeps until the next one it knows of
 * falls due; so, at most ten seconds, and half the lease when that is shorter (the
 * engine's maintenance hands an expired job back on the same beat). One look serves the
 * seven queues (JobQueue.due), and wakes the pools with a job due: seven pools looking
 * each for itself were two thirds of an idle daemon's CPU (docs/performance.md).
 */
function idleLookMs(leaseMs: number): number {
  return Math.min(10_000, Math.max(1_000, Math.floor(leaseMs / 2)));
}

/**
 * A pool's own look, behind the daemon's: should the daemon's fail for a while (the
 * database away), each pool still finds its jobs.
 */
const POOL_LOOKS_APART = 10;

/** Up to this many sites, the first checks queued are listed. */
const FIRST_LISTED = 50;

export class Daemon {
  /** What the daemon does, as it happens. */
  readonly events = new DaemonEvents();
  readonly #deps: DaemonDeps;
  readonly #stopping = new AbortController();
  readonly #context: DaemonContext;
  readonly #pools: Map<QueueName, JobPool<unknown>>;
  readonly #fires: ScheduleFires;
  readonly #tick: Tick;
  #sites = new Map<number, SiteConfig>();
  #bySchedule = new Map<string, number[]>();
  #loop: Promise<void> | null = null;
  /** The sites were taken once (the start's are not "changed"). */
  #applied = false;
  #startedAt: Date | null = null;
  #stopped = false;
  #looking: Promise<void> | null = null;
  #listening: CatalogListening | undefined;
  /** The catalogue's read an announcement started, and whether another came meanwhile. */
  #refreshing: Promise<void> | null = null;
  #announcedAgain = false;

  constructor(given: DaemonDeps) {
    const deps = { ...given, jobs: onClock(given.jobs, () => given.now()) };
    this.#deps = deps;
    this.#context = {
      deps,
      events: this.events,
      sites: () => this.#sites,
      bySchedule: () => this.#bySchedule,
      registry: deps.registry?.(deps.catalog, this.events),
      wake: (queue) => this.#pools.get(queue)?.wake(),
      stopping: this.#stopping.signal,
    };
    const kinds: JobKind<never>[] = [
      planJobKind(this.#context),
      checkJobKind(this.#context),
      deliverJobKind(this.#context),
      digestJobKind(this.#context),
      registryJobKind(this.#context),
      backfillJobKind(this.#context, (job) => this.queueBackfill(job)),
      upkeepJobKind(this.#context),
    ] as JobKind<never>[];
    this.#pools = new Map(kinds.map((kind) => [kind.queue, this.#pool(kind)]));
    this.#fires = new ScheduleFires(this.#context);
    this.#tick = new Tick(this.#context, this.#fires);
  }

  #pool(kind: JobKind<unknown>): JobPool<unknown> {
    const { jobs, config } = this.#deps;
    return new JobPool({
      queue: kind.queue,
      jobs,
      concurrency: kind.concurrency,
      pollMs: idleLookMs(config.schedule.leaseMs) * POOL_LOOKS_APART,
      ...(kind.gatherMs === undefined ? {} : { gatherMs: kind.gatherMs }),
      settleForMs: config.schedule.leaseMs,
      sleep: (ms, signal) => this.#deps.sleep(ms, signal),
      now: () => this.#deps.now(),
      handle: (job) => kind.handle(job),
      onError: (job, error, what) => {
        if (this.#stopped) return;
        this.events.emit('job:failed', {
          queue: kind.queue,
          what: kind.describe(job),
          job: job.id,
          retries: job.retries,
          error,
          unrecorded: what === 'unrecorded',
        });
      },
    });
  }

  async start(): Promise<void> {
    const { catalog, jobs, store } = this.#deps;
    this.#startedAt = this.#deps.now();
    await catalog.load();
    await this.#context.registry?.sync();
    for (const message of catalog.problems()) this.events.emit('daemon:problem', { message });
    await this.#applySites();
    catalog.onChange(() => this.#applySites());
    this.#listening = this.#deps.catalogChanges?.(() => this.#catalogChanged());
    // The current period of each schedule is planned now (by whichever process gets to
    // it first), and the digest a down fleet missed is queued. Notifications an older
    // robowatch queued without a job get theirs (a job is queued once, by its name).
    await this.#tick.queueCurrent();
    await jobs.send('deliver', await store.unsentDeliveries());
    for (const pool of this.#pools.values()) pool.start();
    this.#looking = this.#look();
    this.#loop = this.#tick.loop();
    this.events.emit('daemon:started', {
      sites: this.#sites.size,
      schedules: [...this.#bySchedule.keys()],
    });
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
    const { catalog, jobs, config } = this.#deps;
    const starting = !this.#applied;
    this.#applied = true;
    const before = this.#sites;
    const active = catalog.entries().filter((e) => e.pausedAt === null);
    this.#sites = new Map(active.map((e) => [e.id, e.site]));
    this.#bySchedule = new Map();
    for (const [id, site] of this.#sites) {
      const ids = this.#bySchedule.get(site.schedule);
      if (ids === undefined) this.#bySchedule.set(site.schedule, [id]);
      else ids.push(id);
    }
    this.#fires.sync();

    const added = active.filter((e) => !before.has(e.id));
    const removed = [...before.keys()].filter((id) => !this.#sites.has(id)).length;
    if (!starting && (added.length > 0 || removed > 0))
      this.events.emit('sites:changed', {
        sites: this.#sites.size,
        added: added.map((e) => e.site.origin),
        removed,
      });
    if (added.length === 0) return;
    const now = this.#deps.now();
    const stored = await this.#deps.check.store.loadSites(added.map((e) => e.site.origin));
    const never = new Set(stored.filter((s) => s.current === null).map((s) => s.origin));
    // At the start the current period's planning queues the checks of the sites checked
    // before; later, the period was planned without the sites that came since.
    const queued = checkJobs(
      added
        .filter((e) => !starting || never.has(e.site.origin))
        .map((e) => ({ id: e.id, config: e.site, first: never.has(e.site.origin) })),
      periodsAt(config.schedule.timezone, now),
      now,
    );
    await jobs.send('check', queued);
    this.#context.wake('check');
    if (this.#deps.backfill !== undefined && catalog.config.backfill.onAdd) {
      // backfill.onAdd: a new site's history from the Internet Archive, queued once.
      const fresh = added.filter((e) => never.has(e.site.origin));
      await jobs.send(
        'backfill',
        fresh.map((e) => backfillJob({ siteId: e.id }, `on-add:${e.id}`)),
      );
      if (fresh.length > 0) this.#context.wake('backfill');
    }
    const first = queued.filter((j) => never.has(this.#sites.get(j.data.siteId)!.origin));
    if (first.length > 0)
      this.events.emit('sites:first-checks', {
        plan: first.slice(0, FIRST_LISTED).map((j) => ({
          site: this.#sites.get(j.data.siteId)!.origin,
          dueAt: j.startAfter!,
        })),
      });
  }

  /** Listening for the catalogue's changes is in place (tests wait for it). */
  get listening(): Promise<void> {
    return this.#listening?.ready ?? Promise.resolve();
  }

  /**
   * Another process changed the site catalogue (or the listener connected again): it is
   * read now. Announcements that come while it is read make one more read, not one each
   * (an import of 10,000 sites is one; an editor's clicks may be several).
   */
  #catalogChanged(): void {
    if (this.#stopping.signal.aborted) return;
    if (this.#refreshing !== null) {
      this.#announcedAgain = true;
      return;
    }
    this.#refreshing = (async () => {
      do {
        this.#announcedAgain = false;
        // A failed read is the next upkeep round's to make (it says so once).
        await this.#deps.catalog.refresh().catch(() => undefined);
      } while (this.#announcedAgain && !this.#stopping.signal.aborted);
      this.#refreshing = null;
    })();
  }

  /**
   * Looks for due jobs the pools were not told of, in one statement for all the queues,
   * every idleLookMs (from half of it at random: two daemons on one database do not look
   * in step), and wakes the pools that have one.
   */
  async #look(): Promise<void> {
    const { jobs, config } = this.#deps;
    const stopping = this.#stopping.signal;
    const queues = [...this.#pools.keys()];
    const lookMs = idleLookMs(config.schedule.leaseMs);
    while (!stopping.aborted) {
      await this.#deps.sleep(Math.round(lookMs * (0.5 + Math.random() / 2)), stopping);
      if (stopping.aborted) break;
      // A failed look is the next one's to make: the pools' own looks cover a long outage.
      const due = await jobs.due(queues).catch(() => new Set<QueueName>());
      for (const queue of due) this.#pools.get(queue)?.wake();
    }
  }

  /**
   * Stops the schedules and the pools (no new job is taken), lets running jobs finish
   * for up to `deadlineMs` and hands the rest back to the engine, then stops the upkeep.
   * Nothing of the daemon runs once this resolves.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.events.emit('daemon:stopping', { deadlineMs });
    this.#stopping.abort();
    await this.#listening?.close();
    await this.#refreshing;
    await this.#fires.stop();
    const left = await Promise.all([...this.#pools.values()].map((p) => p.stop(deadlineMs)));
    await this.#looking;
    await this.#loop;
    await this.#deps.jobs.stop();
    this.#stopped = true;
    this.events.emit('daemon:stopped', { handedBack: left.reduce((a, b) => a + b, 0) });
  }

  /** Jobs waiting and running, per queue (all processes). */
  jobCounts(): Promise<Record<string, { waiting: number; running: number }>> {
    return this.#deps.jobs.counts();
  }

  /** When the daemon's upkeep last ran; null before it starts. */
  lastTick(): Date | null {
    return this.#tick.lastTick;
  }

  /** Whether the daemon does its job (/healthz). */
  health(): Promise<DaemonHealth> {
    return daemonHealth(this.#context, this.#tick.lastTick, this.#startedAt);
  }

  /**
   * Queues the loading of a site's history from the Internet Archive (the "Load history"
   * button, the API, `robowatch backfill` beside this daemon); one waits per site.
   */
  async queueBackfill(job: BackfillJob): Promise<void> {
    if (this.#deps.backfill === undefined) throw new Error('backfill is not wired in this process');
    await this.#deps.jobs.send('backfill', [backfillJob(job, randomUUID())]);
    this.#context.wake('backfill');
  }

  /** Wakes the delivery of queued notifications (the web queued one). */
  deliverNow(): void {
    this.#context.wake('deliver');
  }

  /** The sites whose history is being loaded (running) or waits to be (any process's jobs). */
  async backfillsPending(): Promise<Map<number, 'waiting' | 'running'>> {
    const keys = await this.#deps.jobs.pendingKeys('backfill');
    return new Map([...keys].map(([key, state]) => [Number(key.split(':')[1]), state]));
  }
}

/**
 * The job queue on the daemon's clock: a job queued without a time is due now by it, and
 * a job is due when its time has come by it (a process's clock; the tests' own).
 */
function onClock(jobs: JobQueue, now: () => Date): JobQueue {
  return {
    send: (queue, list) =>
      jobs.send(
        queue,
        list.map((j) => (j.startAfter === undefined ? { ...j, startAfter: now() } : j)),
      ),
    existing: (queue, ids) => jobs.existing(queue, ids),
    fetch: (queue, count, dueBy) => jobs.fetch(queue, count, dueBy ?? now()),
    take: (queue, count, dueBy) => jobs.take(queue, count, dueBy ?? now()),
    due: (queues, dueBy) => jobs.due(queues, dueBy ?? now()),
    complete: (queue, id) => jobs.complete(queue, id),
    fail: (queue, id, error) => jobs.fail(queue, id, error),
    counts: () => jobs.counts(),
    pendingKeys: (queue) => jobs.pendingKeys(queue),
    stop: () => jobs.stop(),
  };
}
