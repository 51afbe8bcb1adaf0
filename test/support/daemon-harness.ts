/**
 * The daemon in the test's own process, wired as `robowatch start` wires it (compose's
 * wireDaemon) on a test database, with a clock the test moves and cron fires the test
 * makes. Waiting is on the daemon's events, never on time.
 */
import nodemailer from 'nodemailer';
import { Agent } from 'undici';
import { guardedLookup } from '../../src/fetch/public-lookup.js';
import { parseConfig } from '../../src/config/validate.js';
import type { Config } from '../../src/config/config.js';
import { createRobotsFetcher } from '../../src/fetch/robots-fetcher.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createMetrics } from '../../src/lib/metrics.js';
import { wireCatalog } from '../../src/compose.js';
import { wireDaemon } from '../../src/compose-daemon.js';
import type { Platform } from '../../src/compose.js';
import type { Daemon } from '../../src/schedule/daemon.js';
import type { DaemonEventMap, DaemonEventName } from '../../src/schedule/events.js';
import type { CronScheduler } from '../../src/schedule/job-kind.js';
import type { CheckDeps, QueueName } from '../../src/monitor/ports.js';
import { JobEngine } from '../../src/store/jobs.js';
import type { DatabaseHandle } from '../../src/store/db.js';

/**
 * A clock the test moves. Sleepers wake when it passes their time (or their signal
 * aborts); the clock must stay behind the real one, which the job engine's database
 * compares due times with too.
 */
export class FakeClock {
  #now: Date;
  #sleepers: { until: number; wake: () => void }[] = [];

  constructor(start: Date) {
    this.#now = start;
  }

  now = (): Date => this.#now;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        until: this.#now.getTime() + ms,
        wake: () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          signal?.removeEventListener('abort', sleeper.wake);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', sleeper.wake, { once: true });
    });
  };

  /** Moves the clock on, waking every sleeper whose time came. */
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
    for (const sleeper of [...this.#sleepers])
      if (sleeper.until <= this.#now.getTime()) sleeper.wake();
  }

  /** Moves the clock to `at` (never back). */
  advanceTo(at: Date): void {
    this.advance(Math.max(0, at.getTime() - this.#now.getTime()));
  }
}

/** Cron fires the test makes: `fire(name, at)` runs a schedule's fire at `at`. */
export class FakeCron implements CronScheduler {
  readonly tasks = new Map<string, { expression: string; onFire: (fire: Date) => void }>();

  schedule(
    expression: string,
    options: { readonly name: string },
    onFire: (fire: Date) => void,
  ): { stop(): Promise<void> } {
    this.tasks.set(options.name, { expression, onFire });
    return {
      stop: () => {
        this.tasks.delete(options.name);
        return Promise.resolve();
      },
    };
  }

  fire(name: string, at: Date): void {
    const task = this.tasks.get(name);
    if (task === undefined) throw new Error(`no schedule named "${name}"`);
    task.onFire(at);
  }
}

export interface InProcessDaemon {
  readonly daemon: Daemon;
  readonly config: Config;
  /** Every event it told, in order. */
  readonly heard: { event: DaemonEventName; payload: unknown }[];
  /** Events of one kind heard so far. */
  heardOf<E extends DaemonEventName>(event: E): DaemonEventMap[E][];
  /** The jobs it queued, by queue, in the order it queued them (ids). */
  readonly queued: { queue: string; id: string }[];
  /**
   * Each look of its pools for due jobs, in order: the queue, how many events it had told
   * before (`heard.length` then), to say what a look followed, and whether it has ended.
   */
  readonly looks: { queue: string; after: number; ended: boolean }[];
  /** Applies `config` as a SIGHUP's reload of the file would. */
  reload(config: Config): Promise<void>;
  /** What its checks run with. */
  readonly check: CheckDeps;
  stop(): Promise<void>;
}

const platform = (clock: FakeClock): Platform => ({
  owner: 'test',
  openStore: () => Promise.reject(new Error('the harness opens the database')),
  createFetcher: (config) => createRobotsFetcher(config.fetch),
  createMailTransport: (url) => nodemailer.createTransport({ url, connectionTimeout: 5_000 }),
  createDispatcher: (options) =>
    new Agent({
      pipelining: 0,
      ...(options?.guard === undefined
        ? {}
        : { connect: { lookup: guardedLookup(options.guard) } }),
    }),
  createLogger: () => silentLogger,
  listen: () => Promise.reject(new Error('the harness serves nothing')),
  now: clock.now,
  sleep: clock.sleep,
  startJobEngine: (executor, options) => JobEngine.start(executor, options),
});

/** Parses a test's configuration (YAML), on loopback sites. */
export function daemonConfig(yaml: string): Config {
  return parseConfig(yaml, { file: 'daemon-test.yaml', cwd: '/tmp', env: {}, version: 'test' });
}

/** Starts a daemon on `handle` with `config`, the test's clock and cron. */
export async function startInProcess(
  handle: DatabaseHandle,
  config: Config,
  clock: FakeClock,
  cron: FakeCron,
): Promise<InProcessDaemon> {
  const test = platform(clock);
  const jobs = await JobEngine.start(handle.executor, {
    leaseSeconds: Math.ceil(config.schedule.leaseMs / 1000),
    retentionDays: config.schedule.retentionDays,
    keepFinishedSeconds: 30 * 86_400,
    maintenanceSeconds: 60,
    onError: () => undefined,
    supervise: false,
  });
  const queued: InProcessDaemon['queued'] = [];
  const send = jobs.send.bind(jobs);
  jobs.send = (queue, list) => {
    for (const job of list) queued.push({ queue, id: job.id });
    return send(queue, list);
  };
  const heard: InProcessDaemon['heard'] = [];
  const looks: InProcessDaemon['looks'] = [];
  const take = jobs.take.bind(jobs);
  jobs.take = <T>(queue: QueueName, count: number, dueBy?: Date) => {
    const look = { queue, after: heard.length, ended: false };
    looks.push(look);
    return take<T>(queue, count, dueBy).finally(() => {
      look.ended = true;
    });
  };
  const fetcher = test.createFetcher(config);
  const catalog = wireCatalog(test, config, handle.db);
  const wired = wireDaemon(test, config, {
    handle,
    jobs,
    fetcher,
    catalog,
    logger: silentLogger,
    metrics: createMetrics(),
    heartbeat: () => undefined,
    cron,
  });
  const names: DaemonEventName[] = [
    'daemon:started',
    'daemon:tick',
    'daemon:stopped',
    'sites:changed',
    'sites:first-checks',
    'period:planned',
    'period:over',
    'check:skipped',
    'check:done',
    'check:refused',
    'job:failed',
    'delivery:sent',
    'delivery:failed',
    'digest:queued',
    'upkeep:done',
    'upkeep:failed',
    'fire:failed',
    'registry:refreshed',
    'registry:used',
    'backfill:done',
  ];
  for (const event of names)
    wired.daemon.events.on(event, (payload) => heard.push({ event, payload }));
  await wired.daemon.start();
  return {
    daemon: wired.daemon,
    config,
    heard,
    heardOf: <E extends DaemonEventName>(event: E) =>
      heard.filter((h) => h.event === event).map((h) => h.payload as DaemonEventMap[E]),
    queued,
    looks,
    reload: async (next) => {
      await catalog.reload(next);
    },
    check: wired.check,
    stop: async () => {
      await wired.daemon.stop(5_000);
      await fetcher.close();
      await wired.close();
    },
  };
}
