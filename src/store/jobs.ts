/**
 * The job engine: pg-boss on robowatch's own database (PostgreSQL or the embedded
 * PGlite, through pg-boss's `db` adapter), so that one code path runs a single embedded
 * process and a fleet on one PostgreSQL. Jobs have name-based ids: the same work (a
 * site's check in a period, a notification's attempt) is queued once however many
 * processes plan it. Workers are robowatch's own (schedule/job-pool.ts): pg-boss's
 * `work()` leaves a failed completion as an unhandled rejection when the database is
 * gone, so the pool fetches, completes and fails jobs itself.
 */
import { hash } from 'node:crypto';
import PgBoss from 'pg-boss';
import { queueOptions, SCHEMA } from './job-schema.js';
import type { JobEngineOptions } from './job-schema.js';

export type { JobEngineOptions };
import { Batcher } from './batcher.js';
import { toBoss } from './job-rows.js';
import type { SqlExecutor } from './db.js';
import type { Job, JobQueue, NewJob, QueueName, Taken } from '../monitor/ports.js';

/** An executor that knows how many of its statements are running (to stop after the last). */
class CountingExecutor implements SqlExecutor {
  running = 0;
  #idle: (() => void)[] = [];
  constructor(private readonly inner: SqlExecutor) {}

  async executeSql(text: string, values?: unknown[]) {
    this.running++;
    try {
      return await this.inner.executeSql(text, values);
    } finally {
      if (--this.running === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  idle(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((r) => this.#idle.push(r));
  }
}

export class JobEngine implements JobQueue {
  readonly #boss: PgBoss;
  readonly #executor: CountingExecutor;
  #stopped = false;
  /** Completions per queue, batched: the jobs that end while one is recorded go in one statement. */
  readonly #completions = new Map<QueueName, Batcher<string, undefined>>();
  /**
   * Each queue's own table: pg-boss 10 keeps a queue's jobs in a partition of its `job`
   * table. The statements a daemon sends for every job (take, complete, when is the next
   * one due) name it directly: on the partitioned parent, PostgreSQL plans each run anew
   * to prune the partitions (0.25-0.4 ms of the server's CPU apiece, more than running
   * it); on the partition, a prepared statement is planned once.
   */
  readonly #tables = new Map<QueueName, string>();
  /** due's statements, by the list of queues they look at. */
  readonly #dueStatements = new Map<string, string>();

  private constructor(boss: PgBoss, executor: CountingExecutor) {
    this.#boss = boss;
    this.#executor = executor;
  }

  /**
   * Installs or upgrades the engine's tables (once across processes), and its queues.
   * Processes starting together on a new database race to create the engine's schema;
   * the losers start again and find it.
   */
  static async start(executor: SqlExecutor, options: JobEngineOptions): Promise<JobEngine> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await JobEngine.#start(executor, options);
      } catch (error) {
        if (attempt === 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt + Math.random() * 500));
      }
    }
  }

  static async #start(executor: SqlExecutor, options: JobEngineOptions): Promise<JobEngine> {
    const counting = new CountingExecutor(executor);
    const boss = new PgBoss({
      db: counting,
      schema: SCHEMA,
      schedule: false, // robowatch's schedules are node-cron's, in every process
      supervise: options.supervise ?? true,
      migrate: true,
      maintenanceIntervalSeconds: options.maintenanceSeconds,
      archiveCompletedAfterSeconds: Math.max(60, options.keepFinishedSeconds),
      archiveFailedAfterSeconds: Math.max(60, options.keepFinishedSeconds),
      deleteAfterDays: options.retentionDays,
    });
    const engine = new JobEngine(boss, counting);
    boss.on('error', (error) => {
      if (!engine.#stopped) options.onError(error);
    });
    try {
      await boss.start();
      return await engine.#queues(options);
    } catch (error) {
      engine.#stopped = true;
      await boss.stop({ graceful: false, close: false }).catch(() => undefined);
      throw error;
    }
  }

  async #queues(options: JobEngineOptions): Promise<JobEngine> {
    const boss = this.#boss;
    for (const queue of Object.values(queueOptions(options))) {
      await boss.createQueue(queue.name, queue);
      await boss.updateQueue(queue.name, queue);
    }
    const { rows } = await this.#executor.executeSql(
      `SELECT name, partition_name FROM ${SCHEMA}.queue`,
      [],
    );
    for (const row of rows as { name: QueueName; partition_name: string | null }[])
      if (row.partition_name !== null && /^[a-z0-9_]+$/.test(row.partition_name))
        this.#tables.set(row.name, `${SCHEMA}.${row.partition_name}`);
    return this;
  }

  /** A queue's table: its partition, or the parent where there is none. */
  #table(queue: QueueName): string {
    return this.#tables.get(queue) ?? `${SCHEMA}.job`;
  }

  async send(queue: QueueName, jobs: readonly NewJob<unknown>[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += 1000)
      await this.#boss.insert(jobs.slice(i, i + 1000).map((j) => toBoss(queue, j)));
  }

  async existing(queue: QueueName, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 5000) {
      const { rows } = await this.#executor.executeSql(
        `SELECT id::text AS id FROM ${SCHEMA}.job WHERE name = $1 AND id = ANY($2::uuid[])`,
        [queue, ids.slice(i, i + 5000)],
      );
      for (const row of rows as { id: string }[]) found.add(row.id);
    }
    return found;
  }

  /**
   * Takes up to `count` due jobs, the longest due first. pg-boss's own fetch orders by
   * priority and creation time, which its index cannot give: with a backlog (100,000
   * first checks, or overload) each fetch sorted every due job (4.6 ms each at 10,000).
   * This is its statement with the order its (name, start_after) index gives, which is
   * also the order the checks should run in (oldest due first). Our queues use neither
   * priorities nor the singleton or stately policies that its fetch also handles.
   * Ordered by start_after alone: the index carries created_on and id only as included
   * columns, not as keys, so ordering by them too sorted every due job again under the
   * row locks (LockRows keeps the limit out of the sort), whatever the statistics said:
   * 110–230 ms a take with 80,000 first checks due, a backlog's sweep quadratic again
   * (docs/performance.md, at 100,000 sites). Jobs due at the same instant go in the
   * index's order.
   */
  async fetch<T>(queue: QueueName, count: number, dueBy?: Date): Promise<Job<T>[]> {
    return (await this.take<T>(queue, count, dueBy)).jobs;
  }

  /**
   * fetch, and when the queue's next waiting job (of those it left) falls due, in one
   * statement. A pool takes what is due and sleeps until the next one; asking for each
   * in a statement of its own cost an idle daemon two statements a second per queue.
   */
  async take<T>(queue: QueueName, count: number, dueBy?: Date): Promise<Taken<T>> {
    const table = this.#table(queue);
    const { rows } = await this.#executor.executeSql(
      `/* prepared job-take-${queue} */ WITH next AS (
        SELECT id FROM ${table}
        WHERE name = $1 AND state < 'active' AND start_after < now()
          AND ($3::timestamptz IS NULL OR start_after <= $3::timestamptz)
        ORDER BY start_after
        LIMIT $2
        FOR UPDATE SKIP LOCKED),
      taken AS (
        UPDATE ${table} AS j SET state = 'active', started_on = now(),
          retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
        FROM next WHERE j.name = $1 AND j.id = next.id
        RETURNING j.id::text AS id, j.data, j.retry_count, j.start_after)
      SELECT id, data, retry_count, start_after, NULL::timestamptz AS next_due FROM taken
      UNION ALL
      SELECT NULL, NULL, NULL, NULL, (SELECT min(start_after) FROM ${table}
        WHERE name = $1 AND state < 'active' AND id NOT IN (SELECT id FROM next))`,
      [queue, count, dueBy?.toISOString() ?? null],
    );
    const all = rows as {
      id: string | null;
      data: T;
      retry_count: number;
      start_after: Date | string;
      next_due: Date | string | null;
    }[];
    const next = all.find((r) => r.id === null)?.next_due ?? null;
    const jobs = all
      .filter((r) => r.id !== null)
      .sort((a, b) => new Date(a.start_after).getTime() - new Date(b.start_after).getTime())
      .map((j) => ({ id: j.id!, data: j.data, retries: j.retry_count }));
    return { jobs, nextDue: next === null ? null : new Date(next) };
  }

  /**
   * Which of the queues have a job due, in one statement: an index probe of each queue's
   * table (a look per queue cost an idle daemon seven statements every few seconds, two
   * thirds of its CPU; docs/performance.md).
   */
  async due(queues: readonly QueueName[], dueBy?: Date): Promise<Set<QueueName>> {
    if (queues.length === 0) return new Set();
    const { rows } = await this.#executor.executeSql(this.#dueStatement(queues), [
      dueBy?.toISOString() ?? null,
      ...queues,
    ]);
    return new Set((rows as { name: QueueName }[]).map((r) => r.name));
  }

  /** due's statement for a list of queues, made once (a daemon looks with the same list). */
  #dueStatement(queues: readonly QueueName[]): string {
    const key = queues.join(',');
    let text = this.#dueStatements.get(key);
    if (text === undefined) {
      const probes = queues.map(
        (
          queue,
          i,
        ) => `SELECT $${i + 2}::text AS name WHERE EXISTS (SELECT 1 FROM ${this.#table(queue)}
          WHERE name = $${i + 2} AND state < 'active' AND start_after < now()
            AND ($1::timestamptz IS NULL OR start_after <= $1::timestamptz))`,
      );
      // Named by its queues (a prepared statement's name is at most 63 bytes).
      text = `/* prepared job-due-${hash('sha1', key, 'hex').slice(0, 12)} */ ${probes.join('\nUNION ALL ')}`;
      this.#dueStatements.set(key, text);
    }
    return text;
  }

  async complete(queue: QueueName, id: string): Promise<void> {
    let batch = this.#completions.get(queue);
    if (batch === undefined) {
      // pg-boss's own completion (its `complete`), on the queue's table, its ids behind a
      // sub-select as db.ts's batchParam puts them: one plan for batches of any size.
      const text = `/* prepared job-complete-${queue} */ UPDATE ${this.#table(queue)}
        SET completed_on = now(), state = 'completed', output = NULL
        WHERE name = $1 AND id = ANY((SELECT $2::uuid[])::uuid[]) AND state = 'active'`;
      batch = new Batcher(async (ids) => {
        await this.#executor.executeSql(text, [queue, ids]);
        return ids.map(() => undefined);
      }, 500);
      this.#completions.set(queue, batch);
    }
    await batch.add(id);
  }

  async fail(queue: QueueName, id: string, error: string): Promise<void> {
    await this.#boss.fail(queue, id, { message: error });
  }

  /** Jobs waiting (queued or to be retried) and running, per queue (metrics). */
  async counts(): Promise<Record<QueueName, { waiting: number; running: number }>> {
    const { rows } = await this.#executor.executeSql(
      `SELECT name, count(*) FILTER (WHERE state < 'active')::int AS waiting,
         count(*) FILTER (WHERE state = 'active')::int AS running
       FROM ${SCHEMA}.job GROUP BY name`,
      [],
    );
    const counts = {
      check: { waiting: 0, running: 0 },
      plan: { waiting: 0, running: 0 },
      deliver: { waiting: 0, running: 0 },
      digest: { waiting: 0, running: 0 },
      registry: { waiting: 0, running: 0 },
      backfill: { waiting: 0, running: 0 },
      upkeep: { waiting: 0, running: 0 },
    };
    for (const row of rows as { name: QueueName; waiting: number; running: number }[])
      if (row.name in counts) counts[row.name] = { waiting: row.waiting, running: row.running };
    return counts;
  }

  /** The singleton keys of a queue's jobs waiting or running, with which they are (in any process). */
  async pendingKeys(queue: QueueName): Promise<Map<string, 'waiting' | 'running'>> {
    const { rows } = await this.#executor.executeSql(
      `SELECT singleton_key AS key, bool_or(state = 'active') AS running
       FROM ${SCHEMA}.job WHERE name = $1 AND state <= 'active' AND singleton_key IS NOT NULL
       GROUP BY 1`,
      [queue],
    );
    return new Map(
      (rows as { key: string; running: boolean }[]).map((r) => [
        r.key,
        r.running ? 'running' : 'waiting',
      ]),
    );
  }

  /**
   * Stops maintenance and waits for the engine's last statement (the workers are
   * stopped first, by their pools): nothing of it runs once this resolves.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#boss.stop({ graceful: false, close: false, wait: true });
    await Promise.race([this.#executor.idle(), new Promise((r) => setTimeout(r, 10_000).unref())]);
  }
}
