/**
 * The schedules every process keeps: a planning fire per check schedule in use, the
 * digest's fire and registry.url's refresh. A fire queues one job named by the fire, so
 * that it is done once across processes (a fire missed, or a process down then, is
 * queued by the upkeep). The times come from a CronScheduler: node-cron in a process.
 */
import cron from 'node-cron';
import { oneLine } from '../lib/errors.js';
import { jobId } from '../lib/job-id.js';
import type { Logger } from '../lib/logger.js';
import { periodAt } from '../policy/periods.js';
import { planJob } from '../monitor/check/plan.js';
import type { CronScheduler, DaemonContext } from './job-kind.js';

type Task = { stop(): Promise<void> };

export class ScheduleFires {
  /** The planning fire of each check schedule in use. */
  readonly #plans = new Map<string, Task>();
  #digest: { expression: string; task: Task } | null = null;
  #registry: { expression: string; task: Task } | null = null;

  constructor(private readonly context: DaemonContext) {}

  /** Fires for the schedules in use now, the digest's and registry.url's (a reload may change them). */
  sync(): void {
    const { deps } = this.context;
    const schedules = this.context.bySchedule();
    for (const [expression, task] of this.#plans)
      if (!schedules.has(expression)) {
        void task.stop();
        this.#plans.delete(expression);
      }
    for (const expression of schedules.keys()) {
      if (this.#plans.has(expression)) continue;
      this.#plans.set(
        expression,
        this.#schedule(
          expression,
          `plan ${expression}`,
          (fire) => this.queuePlan(expression, fire),
          (fire) => this.context.events.emit('fire:missed', { schedule: expression, fire }),
        ),
      );
    }
    const { registry, schedule } = deps.catalog.file;
    const refresh =
      this.context.registry === undefined || registry.url === null ? undefined : registry.refresh;
    if (this.#registry?.expression !== refresh) {
      if (this.#registry !== null) void this.#registry.task.stop();
      this.#registry =
        refresh === undefined
          ? null
          : {
              expression: refresh,
              task: this.#schedule(refresh, 'registry', (fire) =>
                this.queueFire(
                  'registry',
                  fire,
                  'could not queue the AI crawler registry refresh; it is tried at the next fire',
                ),
              ),
            };
    }
    if (this.#digest?.expression !== schedule.digest) {
      if (this.#digest !== null) void this.#digest.task.stop();
      this.#digest = {
        expression: schedule.digest,
        task: this.#schedule(schedule.digest, 'digest', (fire) => this.queueDigest(fire)),
      };
    }
  }

  /** Stops every fire. */
  async stop(): Promise<void> {
    for (const task of this.#plans.values()) await task.stop();
    this.#plans.clear();
    await this.#digest?.task.stop();
    await this.#registry?.task.stop();
    this.#digest = this.#registry = null;
  }

  #schedule(
    expression: string,
    name: string,
    onFire: (fire: Date) => Promise<void>,
    onMissed: (fire: Date) => void = () => undefined,
  ): Task {
    const { deps } = this.context;
    return deps.cron.schedule(
      expression,
      { name, timezone: deps.config.schedule.timezone },
      (fire) => void onFire(fire),
      onMissed,
    );
  }

  /** Queues the planning of the period a fire of `expression` starts. */
  async queuePlan(expression: string, fire: Date): Promise<void> {
    const { deps, events, stopping } = this.context;
    if (stopping.aborted) return;
    try {
      const period = periodAt(expression, deps.config.schedule.timezone, fire);
      await deps.jobs.send('plan', [planJob(expression, period)]);
      this.context.wake('plan');
    } catch (error) {
      events.emit('fire:failed', {
        what: 'could not queue the planning of a period; the upkeep queues it',
        schedule: expression,
        fire,
        error: oneLine(error),
      });
    }
  }

  queueDigest(fire: Date): Promise<void> {
    return this.queueFire('digest', fire, 'could not queue the digest; the upkeep queues it');
  }

  /** Queues a schedule's fire as one job, named by the fire: queued once across processes. */
  async queueFire(queue: 'digest' | 'registry', fire: Date, failure: string): Promise<void> {
    const { deps, events, stopping } = this.context;
    if (stopping.aborted) return;
    try {
      await deps.jobs.send(queue, [
        { id: jobId(`${queue}:${fire.toISOString()}`), data: { fire: fire.toISOString() } },
      ]);
      this.context.wake(queue);
    } catch (error) {
      events.emit('fire:failed', { what: failure, fire, error: oneLine(error) });
    }
  }
}

/** node-cron's schedules, its log lines as JSON through the daemon's logger. */
export function nodeCronScheduler(logger: Logger): CronScheduler {
  return {
    schedule(expression, options, onFire, onMissed) {
      const task = cron.schedule(expression, (context) => onFire(context.date), {
        ...options,
        logger: cronLogger(logger),
      });
      task.on('execution:missed', (context) => onMissed(context.date));
      return {
        stop: async () => {
          await task.destroy();
        },
      };
    },
  };
}

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
