/**
 * The daemon's job pool on the real job engine: how often it asks the database for jobs.
 * A check spread over its period runs mostly alone, so each statement the pool sends per
 * job is paid by every check (docs/performance.md, the daemon's spread sweep).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Job, JobQueue } from '../../../src/monitor/ports.js';
import { JobPool } from '../../../src/schedule/job-pool.js';
import { JobEngine } from '../../../src/store/jobs.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { startTestEngine } from '../../support/job-engine.js';

/** Conditions are polled with a generous deadline: a busy machine is slow, not wrong. */
const waiting = { timeout: 30_000, interval: 5 };

describe.each(databaseKinds())('the job pool on %s', (kind) => {
  let database: TestDatabase;
  let engine: JobEngine;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    engine = await startTestEngine(database.handle.executor);
  });

  afterEach(async () => {
    await engine.stop();
    await database.close();
  });

  it('takes the due jobs and tells when the next waiting one falls due, in one go', async () => {
    const now = Date.now();
    const later = new Date(Math.ceil((now + 3_600_000) / 1000) * 1000);
    const [a, b, c] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await engine.send('deliver', [
      { id: a, data: {}, startAfter: new Date(now - 60_000) },
      { id: b, data: {}, startAfter: new Date(now - 30_000) },
      { id: c, data: {}, startAfter: later },
    ]);
    // One of the two due: the next due is the other, already due (not the one taken).
    const first = await engine.take('deliver', 1);
    expect(first.jobs.map((j) => j.id)).toEqual([a]);
    expect(first.nextDue?.getTime()).toBe(now - 30_000);
    // The rest of what is due; the next is the one in an hour.
    const second = await engine.take('deliver', 5);
    expect(second.jobs.map((j) => j.id)).toEqual([b]);
    expect(second.nextDue?.getTime()).toBe(later.getTime());
    await engine.complete('deliver', a);
    await engine.complete('deliver', b);
    // Nothing due: when the next one is; with nothing waiting, no next.
    expect(await engine.take('deliver', 5)).toEqual({ jobs: [], nextDue: later });
    expect(await engine.take('digest', 5)).toEqual({ jobs: [], nextDue: null });
  });

  it('takes the longest-due jobs of a backlog by its index, without sorting the whole backlog', async () => {
    // The statement a take sends, kept to be explained on the same database.
    let take: { text: string; values: unknown[] } | undefined;
    const { executor } = database.handle;
    const watching = await startTestEngine({
      executeSql: (text, values = []) => {
        if (text.includes('job-take-check')) take = { text, values };
        return executor.executeSql(text, values);
      },
    });
    try {
      // A first sweep's backlog: 2,000 checks due, one a second over the last hour.
      const now = Math.floor(Date.now() / 1000) * 1000;
      const backlog = Array.from({ length: 2_000 }, (_, n) => ({
        id: crypto.randomUUID(),
        data: { n },
        startAfter: new Date(now - 3_600_000 + n * 1_000),
        // Keyed by site, as the planner queues checks (the queue keeps one waiting a key).
        singletonKey: String(n),
      }));
      await watching.send('check', backlog.slice(1_000));
      await watching.send('check', backlog.slice(0, 1_000));
      const taken = await watching.take<{ n: number }>('check', 64);
      expect(taken.jobs.map((j) => j.data.n)).toEqual(backlog.slice(0, 64).map((j) => j.data.n));
      expect(take).toBeDefined();
      // Read from the (name, start_after) index in its order, stopping at the 64th: no
      // sort of every due job. Ordered by keys the index only includes, each take sorted
      // the whole backlog again (110–230 ms a take with 80,000 due).
      const { rows } = await executor.executeSql(
        `EXPLAIN (FORMAT JSON) ${take!.text}`,
        take!.values,
      );
      const plan = JSON.stringify(rows[0]);
      expect(plan).not.toContain('"Node Type":"Sort"');
      expect(plan).toContain('"Node Type":"Limit"');
    } finally {
      await watching.stop();
    }
  });

  it('says in one look which queues have a job due, as another process finds them', async () => {
    const now = Date.now();
    await engine.send('deliver', [
      { id: crypto.randomUUID(), data: {}, startAfter: new Date(now - 60_000) },
    ]);
    await engine.send('digest', [
      { id: crypto.randomUUID(), data: {}, startAfter: new Date(now + 3_600_000) },
    ]);
    const queues = ['check', 'deliver', 'digest'] as const;
    expect(await engine.due(queues)).toEqual(new Set(['deliver']));
    // On a clock before the deliver job's time (a test's), nothing is due yet.
    expect(await engine.due(queues, new Date(now - 120_000))).toEqual(new Set());
    // Taken (running), it is no longer waiting for anyone.
    await engine.take('deliver', 5);
    expect(await engine.due(queues)).toEqual(new Set());
    expect(await engine.due([])).toEqual(new Set());
  });

  it('takes the jobs that fall due close together in one go, none before its time', async () => {
    const { jobs, calls } = counted(engine);
    const start = Date.now();
    const due = [100, 200, 300, 400].map((ms) => new Date(start + ms));
    await engine.send(
      'deliver',
      due.map((startAfter, n) => ({ id: crypto.randomUUID(), data: { n }, startAfter })),
    );
    const started: { n: number; early: boolean }[] = [];
    const pool = poolOf(
      jobs,
      (job) => {
        started.push({ n: job.data.n, early: Date.now() < due[job.data.n]!.getTime() });
      },
      1_000,
    );
    pool.start();
    await vi.waitFor(() => expect(started.length === 4 && pool.running === 0).toBe(true), waiting);
    // Gathering for a second: the first look found none due (or, on a slow machine, the
    // first); the next, a second later, took the rest together. Looking as each fell due took them one at a
    // time, their statements shared by none.
    expect(calls.withJobs).toBeLessThanOrEqual(2);
    expect(started.map((s) => s.n).sort()).toEqual([0, 1, 2, 3]);
    expect(started.filter((s) => s.early)).toEqual([]);
    await pool.stop(10_000);
  });

  it('does not look for jobs again when one ends in a pool that is not full', async () => {
    const { jobs, calls } = counted(engine);
    const done: string[] = [];
    await engine.send('deliver', [
      { id: crypto.randomUUID(), data: { n: 1 } },
      { id: crypto.randomUUID(), data: { n: 2 } },
      { id: crypto.randomUUID(), data: { n: 3 } },
    ]);
    const pool = poolOf(jobs, (job) => {
      done.push(job.id);
    });
    pool.start();
    // The three jobs end.
    await vi.waitFor(() => expect(done.length === 3 && pool.running === 0).toBe(true), waiting);
    // The pool took the three in one fetch, found no other job due and sleeps until one
    // is queued (a wake) or its poll: a job's end is neither. (A woken pool fetches at
    // once, before this test's next poll of its state.)
    expect(calls.take).toBe(1);
    pool.wake();
    // The pool looks again after the wake.
    await vi.waitFor(() => expect(calls.take).toBe(2), waiting);
    await pool.stop(10_000);
  });

  it('takes a failed job again when its retry falls due, however seldom it polls', async () => {
    // Short leases: the engine retries a failed job after a second or two (not a minute).
    const quick = await JobEngine.start(database.handle.executor, {
      leaseSeconds: 1,
      retentionDays: 7,
      keepFinishedSeconds: 3_600,
      maintenanceSeconds: 60,
      onError: () => undefined,
      supervise: false,
    });
    const { jobs, calls } = counted(quick);
    const attempts: number[] = [];
    const failures: string[] = [];
    await quick.send('deliver', [{ id: crypto.randomUUID(), data: { n: 1 } }]);
    const pool = new JobPool<{ n: number }>({
      ...poolOptions(jobs),
      handle: (job) => {
        attempts.push(job.retries);
        return attempts.length === 1 ? Promise.reject(new Error('refused')) : Promise.resolve();
      },
      onError: (_job, error) => {
        failures.push(error);
      },
    });
    pool.start();
    // It polls every ten minutes: only a look after the failure finds the retry's time.
    await vi.waitFor(() => expect(attempts).toEqual([0, 1]), waiting);
    expect(failures).toEqual(['refused']);
    expect(calls.withJobs).toBe(2);
    await pool.stop(10_000);
    await quick.stop();
  });
});

/** The engine as a pool sees it, its takes counted. */
function counted(engine: JobEngine): {
  jobs: JobQueue;
  calls: { take: number; withJobs: number };
} {
  const calls = { take: 0, withJobs: 0 };
  const jobs: JobQueue = {
    send: (queue, list) => engine.send(queue, list),
    existing: (queue, ids) => engine.existing(queue, ids),
    fetch: (queue, count, dueBy) => engine.fetch(queue, count, dueBy),
    take: <T>(queue: Parameters<JobQueue['take']>[0], count: number, dueBy?: Date) => {
      calls.take++;
      return engine.take<T>(queue, count, dueBy).then((taken) => {
        if (taken.jobs.length > 0) calls.withJobs++;
        return taken;
      });
    },
    due: (queues, dueBy) => engine.due(queues, dueBy),
    complete: (queue, id) => engine.complete(queue, id),
    fail: (queue, id, error) => engine.fail(queue, id, error),
    counts: () => engine.counts(),
    pendingKeys: (queue) => engine.pendingKeys(queue),
    stop: () => engine.stop(),
  };
  return { jobs, calls };
}

/** A pool on the deliver queue on the real clock, polling seldom (a wake or a due job moves it). */
function poolOf(
  jobs: JobQueue,
  handle: (job: Job<{ n: number }>) => void,
  gatherMs?: number,
): JobPool<{ n: number }> {
  return new JobPool<{ n: number }>({
    ...poolOptions(jobs),
    ...(gatherMs === undefined ? {} : { gatherMs }),
    handle: (job) => {
      handle(job);
      return Promise.resolve();
    },
    onError: (_job, error) => {
      throw new Error(error);
    },
  });
}

/** What every test's pool shares: the deliver queue, ten-minute polls, the real clock. */
function poolOptions(jobs: JobQueue) {
  return {
    queue: 'deliver' as const,
    jobs,
    concurrency: 16,
    pollMs: 600_000,
    settleForMs: 10_000,
    sleep: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    now: () => new Date(),
  };
}
