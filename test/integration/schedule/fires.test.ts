/**
 * Scheduled fires run once across processes, through node-cron's run coordinator backed
 * by the cron_runs table; a fire that failed or whose process died is taken up again.
 */
import type { TaskContext } from 'node-cron';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FireCoordinator } from '../../../src/schedule/coordinator.js';
import { createDaemonStore } from '../../../src/store/index.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

const MIN = 60_000;
const FIRE = new Date('2026-06-01T08:00:00.000Z');
const KEY = `digest:${FIRE.toISOString()}`;

describe.each(databaseKinds())('scheduled fires on %s', (kind) => {
  let database: TestDatabase;
  let now: Date;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    now = FIRE;
  });
  afterEach(() => database.close());

  /** One process's coordinator, with a digest task that records its runs (or fails). */
  function instance(owner: string, outcome: { fail: boolean } = { fail: false }) {
    const runs: Date[] = [];
    const errors: string[] = [];
    const coordinator = new FireCoordinator({
      store: createDaemonStore(database.handle.db, owner, 10 * MIN).cron,
      now: () => now,
      ttlMs: 10 * MIN,
      retryMs: 5 * MIN,
      onError: (key) => errors.push(key),
    });
    const handler = coordinator.task('digest', (fire) => {
      if (outcome.fail) return Promise.reject(new Error('SMTP is on fire'));
      runs.push(fire);
      return Promise.resolve();
    });
    /** What node-cron does at a fire: ask, run, complete. */
    const fire = async (date = FIRE) => {
      const key = `digest:${date.toISOString()}`;
      if (!(await coordinator.runCoordinator.shouldRun(key, 10 * MIN))) return false;
      await handler({ date } as TaskContext);
      await coordinator.runCoordinator.onComplete?.(key);
      return true;
    };
    return { coordinator, fire, runs, errors, outcome };
  }

  it('runs a fire in exactly one of several processes', async () => {
    const processes = ['a', 'b', 'c'].map((owner) => instance(owner));
    const ran = await Promise.all(processes.map((p) => p.fire()));
    expect(ran.filter(Boolean)).toHaveLength(1);
    expect(processes.flatMap((p) => p.runs)).toEqual([FIRE]);
    now = new Date(FIRE.getTime() + 60 * MIN);
    expect(await Promise.all(processes.map((p) => p.coordinator.sweep()))).toEqual([0, 0, 0]);
  });

  it('takes a failed fire up again after its retry delay, in any process', async () => {
    const failing = instance('a', { fail: true });
    const other = instance('b');
    expect(await failing.fire()).toBe(true);
    expect(failing.errors).toEqual([KEY]);
    now = new Date(FIRE.getTime() + 4 * MIN);
    expect(await other.coordinator.sweep()).toBe(0); // not yet
    now = new Date(FIRE.getTime() + 6 * MIN);
    expect(await other.coordinator.sweep()).toBe(1);
    expect(other.runs).toEqual([FIRE]);
    now = new Date(FIRE.getTime() + 60 * MIN);
    expect(await failing.coordinator.sweep()).toBe(0); // done, never again
  });

  it("takes over a dead process's fire once its claim expires, and never twice", async () => {
    const dead = instance('dead');
    // It claimed the fire and died before running it.
    expect(await dead.coordinator.runCoordinator.shouldRun(KEY, 10 * MIN)).toBe(true);
    const [b, c] = [instance('b'), instance('c')];
    now = new Date(FIRE.getTime() + 5 * MIN);
    expect(await b.coordinator.sweep()).toBe(0);
    now = new Date(FIRE.getTime() + 11 * MIN);
    expect(await Promise.all([b.coordinator.sweep(), c.coordinator.sweep()])).toContain(1);
    expect([...b.runs, ...c.runs]).toEqual([FIRE]);
  });

  it('sends a digest missed while every process was down, but not on a first deployment', async () => {
    const first = instance('a');
    expect(await first.coordinator.catchUp('digest', FIRE)).toBe(false);
    expect(first.runs).toEqual([]);
    // In service for that fire; the next one, a week later, finds every process down.
    expect(await first.fire()).toBe(true);
    const next = new Date(FIRE.getTime() + 7 * 24 * 60 * MIN);
    now = new Date(next.getTime() + 30 * MIN);
    const restarted = instance('b');
    expect(await restarted.coordinator.catchUp('digest', next)).toBe(true);
    expect(restarted.runs).toEqual([next]);
    expect(await instance('c').coordinator.catchUp('digest', next)).toBe(false);
  });
});
