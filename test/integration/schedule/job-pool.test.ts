/**
 * The daemon's job pool on the real job engine: how often it asks the database for jobs.
 * A check spread over its period runs mostly alone, so each statement the pool sends per
 * job is paid by every check (docs/performance.md, the daemon's spread sweep).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job, JobQueue } from '../../../src/monitor/ports.js';
import { JobPool } from '../../../src/schedule/job-pool.js';
import type { JobEngine } from '../../../src/store/jobs.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { startTestEngine } from '../../support/job-engine.js';

/** Waits for a condition, polling; a generous deadline (a busy machine is slow, not wrong). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

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

  it('does not look for jobs again when one ends in a pool that is not full', async () => {
    // The engine as the pool sees it, its calls counted.
    const calls = { fetch: 0, nextDue: 0 };
    const jobs: JobQueue = {
      send: (queue, list) => engine.send(queue, list),
      existing: (queue, ids) => engine.existing(queue, ids),
      fetch: <T>(queue: Parameters<JobQueue['fetch']>[0], count: number, dueBy?: Date) => {
        calls.fetch++;
        return engine.fetch<T>(queue, count, dueBy);
      },
      nextDue: (queue) => {
        calls.nextDue++;
        return engine.nextDue(queue);
      },
      complete: (queue, id) => engine.complete(queue, id),
      fail: (queue, id, error) => engine.fail(queue, id, error),
      counts: () => engine.counts(),
      pendingKeys: (queue) => engine.pendingKeys(queue),
      stop: () => engine.stop(),
    };
    const done: string[] = [];
    await engine.send('deliver', [
      { id: crypto.randomUUID(), data: { n: 1 } },
      { id: crypto.randomUUID(), data: { n: 2 } },
      { id: crypto.randomUUID(), data: { n: 3 } },
    ]);
    const pool = new JobPool<{ n: number }>({
      queue: 'deliver',
      jobs,
      concurrency: 16,
      pollMs: 600_000,
      settleForMs: 10_000,
      handle: (job: Job<{ n: number }>) => {
        done.push(job.id);
        return Promise.resolve();
      },
      onError: (_job, error) => {
        throw new Error(error);
      },
      sleep: (ms, signal) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
      now: () => new Date(Date.now() + 60_000),
    });
    pool.start();
    await until(() => done.length === 3 && pool.running === 0, 'the three jobs to end');
    // The pool took the three in one fetch, found no other job due and sleeps until one
    // is queued (a wake) or its poll: a job's end is neither. (A woken pool fetches at
    // once, before this test's next poll of its state.)
    expect(calls).toEqual({ fetch: 1, nextDue: 1 });
    pool.wake();
    await until(() => calls.nextDue === 2, 'the pool to look again after the wake');
    expect(calls.fetch).toBe(2);
    await pool.stop(10_000);
  });
});
