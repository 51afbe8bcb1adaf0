/** Sharing the work between processes through the database: site runs and cron fires. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { siteRuns } from '../../../src/store/schema.js';
import { syncSites } from '../../../src/store/sites.js';
import {
  claimCronRun,
  completeCronRun,
  finishRun,
  leaseRuns,
  nextDueAt,
  planRuns,
  releaseRuns,
  renewLeases,
  retryRun,
} from '../../../src/store/runs.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

const MIN = 60_000;
const at = (minutes: number) => new Date(Date.UTC(2026, 5, 1) + minutes * MIN);

describe.each(databaseKinds())('site runs on %s', (kind) => {
  let database: TestDatabase;
  let ids: number[];
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    const sites = await syncSites(database.handle.db, [
      'https://a.com',
      'https://b.com',
      'https://c.com',
      'https://d.com',
    ]);
    ids = sites.map((s) => s.id).sort((a, b) => a - b);
  });
  afterEach(() => database.close());

  const plan = (due: number[], start = 0, end = 1440) =>
    planRuns(
      database.handle.db,
      ids.map((siteId, i) => ({
        siteId,
        periodStart: at(start),
        periodEnd: at(end),
        dueAt: at(due[i]!),
      })),
      at(start),
    );
  const rows = () => database.handle.db.select().from(siteRuns);

  it('plans idempotently: every process may plan the same period', async () => {
    await plan([10, 20, 30, 40]);
    await plan([99, 99, 99, 99]);
    const planned = await rows();
    expect(planned).toHaveLength(4);
    expect(planned.map((r) => r.dueAt.getTime()).sort()).toEqual(
      [10, 20, 30, 40].map((m) => at(m).getTime()),
    );
    expect(await nextDueAt(database.handle.db, at(0))).toEqual(at(10));
    // A run held by a process is next leasable when its lease expires.
    await leaseRuns(database.handle.db, 'p1', at(10), 1, 30 * MIN);
    expect(await nextDueAt(database.handle.db, at(11))).toEqual(at(20));
    await leaseRuns(database.handle.db, 'p1', at(40), 3, 30 * MIN);
    expect(await nextDueAt(database.handle.db, at(41))).toEqual(at(40));
    // Runs whose period is over are not waited for.
    expect(await nextDueAt(database.handle.db, at(1440))).toBeNull();
  });

  it('leases only what is due, each run to one process', async () => {
    await plan([10, 20, 30, 40]);
    expect(await leaseRuns(database.handle.db, 'p1', at(5), 10, 5 * MIN)).toEqual([]);
    const [p1, p2] = await Promise.all([
      leaseRuns(database.handle.db, 'p1', at(35), 2, 5 * MIN),
      leaseRuns(database.handle.db, 'p2', at(35), 2, 5 * MIN),
    ]);
    const leased = [...p1, ...p2].map((r) => r.siteId).sort();
    expect(leased).toEqual(ids.slice(0, 3)); // the three due at 35, none twice
    expect(await leaseRuns(database.handle.db, 'p3', at(36), 10, 5 * MIN)).toEqual([]); // all held
  });

  it("takes over a crashed process's run when its lease expires", async () => {
    await plan([10, 20, 30, 40]);
    const [run] = await leaseRuns(database.handle.db, 'crashed', at(10), 1, 5 * MIN);
    expect(await leaseRuns(database.handle.db, 'other', at(14), 1, 5 * MIN)).toEqual([]);
    const [taken] = await leaseRuns(database.handle.db, 'other', at(16), 1, 5 * MIN);
    expect(taken?.siteId).toBe(run!.siteId);
    // The crashed process can no longer finish it; the new holder can.
    await finishRun(database.handle.db, run!, 'crashed', at(17));
    expect((await rows()).find((r) => r.siteId === run!.siteId)?.doneAt).toBeNull();
    await finishRun(database.handle.db, taken!, 'other', at(17));
    expect((await rows()).find((r) => r.siteId === run!.siteId)?.doneAt).toEqual(at(17));
  });

  it('retries a failed run later in the period, and gives up past its end', async () => {
    await plan([10, 20, 30, 40], 0, 60);
    const [run] = await leaseRuns(database.handle.db, 'p1', at(10), 1, 5 * MIN);
    await retryRun(database.handle.db, run!, 'p1', 'database hiccup', at(12));
    expect(await leaseRuns(database.handle.db, 'p1', at(11), 1, 5 * MIN)).toEqual([]);
    const [again] = await leaseRuns(database.handle.db, 'p1', at(12), 1, 5 * MIN);
    expect(again).toMatchObject({ siteId: run!.siteId, attempts: 1 });
    await retryRun(database.handle.db, again!, 'p1', 'still failing', at(61));
    const row = (await rows()).find((r) => r.siteId === run!.siteId)!;
    expect(row).toMatchObject({ attempts: 2, lastError: 'still failing', doneAt: at(61) });
  });

  it('supersedes a run of an earlier period that is still undone', async () => {
    await plan([10, 20, 30, 40], 0, 1440);
    await plan([1450, 1460, 1470, 1480], 1440, 2880);
    const planned = await rows();
    expect(planned).toHaveLength(8);
    expect(planned.filter((r) => r.doneAt === null).map((r) => r.periodStart)).toEqual(
      Array(4).fill(at(1440)),
    );
  });

  it('lets a check in flight across the period boundary finish as its own', async () => {
    await plan([10, 20, 30, 40], 0, 60);
    const [late] = await leaseRuns(database.handle.db, 'p1', at(59), 1, 5 * MIN);
    // The next period is planned while that check is still running.
    await plan([60, 60, 60, 60], 60, 120);
    // Its site is not checked twice at once; the others are.
    const next = await leaseRuns(database.handle.db, 'p2', at(61), 10, 5 * MIN);
    expect(next.map((r) => r.siteId).sort()).toEqual(ids.filter((id) => id !== late!.siteId));
    await finishRun(database.handle.db, late!, 'p1', at(61));
    const row = (await rows()).find(
      (r) => r.siteId === late!.siteId && r.periodStart.getTime() === at(0).getTime(),
    )!;
    expect(row).toMatchObject({ doneAt: at(61), lastError: null });
    const [after] = await leaseRuns(database.handle.db, 'p2', at(62), 10, 5 * MIN);
    expect(after).toMatchObject({ siteId: late!.siteId, periodStart: at(60) });
  });

  it('leaves a run whose period is over, and whose process died, to be superseded', async () => {
    await plan([10, 20, 30, 40], 0, 60);
    await leaseRuns(database.handle.db, 'crashed', at(50), 10, 5 * MIN);
    // The process died; its leases expire after the period ended: nothing is due.
    expect(await leaseRuns(database.handle.db, 'other', at(70), 10, 5 * MIN)).toEqual([]);
    await plan([70, 70, 70, 70], 60, 120);
    expect((await rows()).filter((r) => r.doneAt === null)).toHaveLength(4);
    expect(await leaseRuns(database.handle.db, 'other', at(71), 10, 5 * MIN)).toHaveLength(4);
  });

  it("renews a live process's leases, so that only a dead one's are taken over", async () => {
    await plan([10, 20, 30, 40]);
    const [held] = await leaseRuns(database.handle.db, 'alive', at(10), 1, 5 * MIN);
    await renewLeases(database.handle.db, 'alive', at(14), 10 * MIN);
    const [dead] = await leaseRuns(database.handle.db, 'dead', at(20), 1, 5 * MIN);
    expect(dead?.siteId).toBe(ids[1]);
    await renewLeases(database.handle.db, 'alive', at(22), 10 * MIN);
    const taken = await leaseRuns(database.handle.db, 'other', at(26), 10, 5 * MIN);
    // The dead process's run (due at 20) and the one due at 30 are not; 'alive' keeps its.
    expect(taken.map((r) => r.siteId)).toEqual([ids[1]]);
    await finishRun(database.handle.db, held!, 'alive', at(27));
    expect((await rows()).find((r) => r.siteId === held!.siteId)?.doneAt).toEqual(at(27));
  });

  it('gives back unfinished leases on shutdown', async () => {
    await plan([10, 20, 30, 40]);
    await leaseRuns(database.handle.db, 'stopping', at(50), 4, 60 * MIN);
    await releaseRuns(database.handle.db, 'stopping');
    expect(await leaseRuns(database.handle.db, 'next', at(51), 10, 5 * MIN)).toHaveLength(4);
  });
});

describe.each(databaseKinds())('cron fires on %s', (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(() => database.close());

  it('lets exactly one process run a fire, and another take over one that was never completed', async () => {
    const { db } = database.handle;
    const claims = await Promise.all(
      ['a', 'b', 'c'].map((owner) =>
        claimCronRun(db, 'digest:2026-06-01T08:00:00.000Z', owner, at(0), 10 * MIN),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    // Its holder died: after the lease another process may run it.
    expect(await claimCronRun(db, 'digest:2026-06-01T08:00:00.000Z', 'd', at(5), 10 * MIN)).toBe(
      false,
    );
    expect(await claimCronRun(db, 'digest:2026-06-01T08:00:00.000Z', 'd', at(11), 10 * MIN)).toBe(
      true,
    );
    await completeCronRun(db, 'digest:2026-06-01T08:00:00.000Z', 'd', at(12));
    // A completed fire is never run again.
    expect(await claimCronRun(db, 'digest:2026-06-01T08:00:00.000Z', 'e', at(60), 10 * MIN)).toBe(
      false,
    );
    expect(await claimCronRun(db, 'digest:2026-06-08T08:00:00.000Z', 'e', at(60), 10 * MIN)).toBe(
      true,
    );
  });
});
