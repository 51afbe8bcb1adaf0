/**
 * A new state's judgement written in the state's own statement: the site's state against
 * intent, its report and the incident it opens or updates, all or nothing with the state;
 * and neither when another judgement of the site came between what it was decided from
 * and the statement, even one the statement waited for.
 */
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateMovedError } from '../../../src/lib/errors.js';
import type { NewSnapshot, StateJudgement } from '../../../src/monitor/records.js';
import type { Violation } from '../../../src/policy/intent.js';
import { queryRows } from '../../../src/store/db.js';
import { intentReport } from '../../../src/policy/incidents.js';
import { listIncidentHeads, listIncidents, recordJudgements } from '../../../src/store/intent.js';
import { sites } from '../../../src/store/schema.js';
import { countRows } from '../../../src/store/sites.js';
import { SnapshotWriter } from '../../../src/store/snapshots.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { DatabaseKind, TestDatabase } from '../../support/database.js';

const AT = new Date('2026-05-01T00:00:00Z');
const later = (minutes: number) => new Date(AT.getTime() + minutes * 60_000);

const blockedPricing: Violation = {
  url: 'https://s.example/pricing',
  agent: 'Googlebot',
  expected: 'allowed',
  cause: { type: 'rule', directive: 'disallow', pattern: '/pricing', line: 2 },
};
const blockedBlog: Violation = { ...blockedPricing, url: 'https://s.example/blog' };

function state(siteId: number, previousId: number | null, i: number): NewSnapshot {
  const bytes = new TextEncoder().encode(`User-agent: *\nDisallow: /pricing\n# ${i}\n`);
  return {
    siteId,
    previousId,
    status: 200,
    error: null,
    errorDetail: null,
    redirects: [],
    finalUrl: 'https://s.example/robots.txt',
    body: { sha256: `sha-${siteId}-${i}`, bytes },
    cut: null,
    stale: false,
    lastGoodId: null,
    firstSeenAt: later(i),
    verdicts: null,
    verdictsKey: 'k',
    events: [],
    causes: [],
    fileCondition: 'robots',
    alerts: [],
    unreachableSince: null,
    check: { checkedAt: later(i), durationMs: 1, transient: null },
  };
}

function judgement(
  version: number,
  violations: readonly Violation[],
  step: StateJudgement['step'],
  i: number,
): StateJudgement {
  return {
    version,
    state: 'not-as-intended',
    since: AT,
    keyPrefix: 'intent-key',
    // As a check makes it (judge.ts): with its lead.
    report: intentReport({
      state: 'not-as-intended',
      violations,
      violationCount: violations.length,
      judged: 4,
      reason: null,
    }),
    at: later(i),
    step,
    siteState: step.kind === 'none' ? null : 'not-as-intended',
    causes: step.kind === 'none' ? null : ['Disallow: /pricing (line 2) blocks pages'],
  };
}

/** A fresh database with one site, for each test of the block that calls it. */
function oneSite(kind: DatabaseKind): { database: TestDatabase; siteId: number } {
  const fixture = {} as { database: TestDatabase; siteId: number };
  beforeEach(async () => {
    fixture.database = await createTestDatabase(kind);
    const [row] = await fixture.database.handle.db
      .insert(sites)
      .values({ origin: 'https://s.example' })
      .returning({ id: sites.id });
    fixture.siteId = row!.id;
  });
  afterEach(() => fixture.database.close());
  return fixture;
}

describe.each(databaseKinds())('states judged in their own statement on %s', (kind) => {
  const fixture = oneSite(kind);

  const siteRow = async () =>
    (await fixture.database.handle.db.select().from(sites).where(eq(sites.id, fixture.siteId)))[0]!;

  it('writes a first state with its judgement: the site’s state and report, and the incident it opens', async () => {
    const writer = new SnapshotWriter(fixture.database.handle.db);
    const first = await writer.recordState({
      ...state(fixture.siteId, null, 0),
      judgement: judgement(0, [blockedPricing], { kind: 'open' }, 0),
    });
    expect(first.openedIncidentId).not.toBeNull();
    const [incident] = await listIncidents(fixture.database.handle.db, { limit: 10 });
    expect(incident).toMatchObject({
      id: first.openedIncidentId,
      siteId: fixture.siteId,
      state: 'open',
      siteState: 'not-as-intended',
      violationCount: 1,
      worstCount: 1,
      causes: ['Disallow: /pricing (line 2) blocks pages'],
      violations: [blockedPricing],
      openedAt: AT,
    });
    expect(await siteRow()).toMatchObject({
      currentSnapshotId: first.snapshotId,
      intentState: 'not-as-intended',
      intentSince: AT,
      intentKey: `intent-key:${first.snapshotId}`,
      intentVersion: 1,
      intentReport: { violations: [blockedPricing], violationCount: 1, judged: 4, reason: null },
    });

    // The next state updates that incident: its cells now, the worst count kept.
    const second = await writer.recordState({
      ...state(fixture.siteId, first.snapshotId, 1),
      judgement: judgement(
        1,
        [blockedPricing, blockedBlog],
        { kind: 'update', id: first.openedIncidentId! },
        1,
      ),
    });
    expect(second.openedIncidentId).toBeNull();
    const third = await writer.recordState({
      ...state(fixture.siteId, second.snapshotId, 2),
      judgement: judgement(2, [blockedBlog], { kind: 'update', id: first.openedIncidentId! }, 2),
    });
    const incidents = await listIncidents(fixture.database.handle.db, { limit: 10 });
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ violationCount: 1, worstCount: 2, state: 'open' });
    // Its lead was written with its cells, each time: a list reads it, not them.
    const [head] = await listIncidentHeads(fixture.database.handle.db, { limit: 10 });
    expect(head!.lead).toBe('/blog is blocked for Googlebot');
    expect(head).not.toHaveProperty('violations');
    const [stored] = await queryRows<{ lead: string | null }>(
      fixture.database.handle.db,
      sql`SELECT lead FROM incidents`,
    );
    expect(stored!.lead).toBe('/blog is blocked for Googlebot');
    expect(await siteRow()).toMatchObject({
      intentKey: `intent-key:${third.snapshotId}`,
      intentVersion: 3,
    });
  });

  it('records neither the state nor its judgement when another judgement came between', async () => {
    const writer = new SnapshotWriter(fixture.database.handle.db);
    // Decided from a site never judged (version 0); a round of judgements then opens an
    // incident (a refused check, say): the state would open a second one.
    const [round] = await recordJudgements(fixture.database.handle.db, [
      {
        siteId: fixture.siteId,
        snapshotId: null,
        key: null,
        evaluation: {
          state: 'cannot-check',
          violations: [],
          violationCount: 0,
          judged: 0,
          reason: 'robowatch refuses this address',
        },
        at: AT,
        flapWindowMs: 3_600_000,
      },
    ]);
    expect(round).toMatchObject({ step: 'open' });
    expect((await siteRow()).intentVersion).toBe(1);
    await expect(
      writer.recordState({
        ...state(fixture.siteId, null, 1),
        judgement: judgement(0, [blockedPricing], { kind: 'open' }, 1),
      }),
    ).rejects.toBeInstanceOf(StateMovedError);
    expect(await countRows(fixture.database.handle.db)).toMatchObject({ snapshots: 0, checks: 0 });
    expect(await listIncidents(fixture.database.handle.db, { limit: 10 })).toHaveLength(1);
    expect(await siteRow()).toMatchObject({ currentSnapshotId: null, intentState: 'cannot-check' });
  });
});

// Another connection holding the site's row: PostgreSQL's (PGlite has one connection).
describe.each(databaseKinds().filter((k) => k === 'postgres'))(
  'a state that waits for a judgement on %s',
  (kind) => {
    const fixture = oneSite(kind);

    it('is not recorded on top of the judgement it waited for', async () => {
      // Another process judges the site (locks its row, opens an incident) and has not
      // committed yet; the state's statement waits for the row, then finds it judged.
      const other = new pg.Client({ connectionString: fixture.database.url });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT id FROM sites WHERE id = $1 FOR UPDATE', [fixture.siteId]);
        await other.query(
          `INSERT INTO incidents (site_id, state, opened_at, site_state, causes, violations,
             violation_count, worst_count, updated_at)
           VALUES ($1, 'open', $2, 'not-as-intended', '[]', '[]', 1, 1, $2)`,
          [fixture.siteId, AT],
        );
        await other.query(
          `UPDATE sites SET intent_version = intent_version + 1, intent_state = 'not-as-intended'
            WHERE id = $1`,
          [fixture.siteId],
        );
        const writer = new SnapshotWriter(fixture.database.handle.db);
        const write = writer.recordState({
          ...state(fixture.siteId, null, 1),
          judgement: judgement(0, [blockedPricing], { kind: 'open' }, 1),
        });
        const settled = write.then(
          () => 'recorded',
          (error: unknown) => error,
        );
        // Wait until the statement waits for the other's lock on the site's row.
        const deadline = Date.now() + 60_000;
        for (;;) {
          const [waiting] = await queryRows<{ n: number }>(
            fixture.database.handle.db,
            sql`SELECT count(*)::int AS n FROM pg_stat_activity
                 WHERE wait_event_type = 'Lock' AND query LIKE '%prepared insert-states%'`,
          );
          if (waiting!.n > 0) break;
          if (Date.now() > deadline) throw new Error('the state was never seen waiting');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await other.query('COMMIT');
        expect(await settled).toBeInstanceOf(StateMovedError);
        expect(await listIncidents(fixture.database.handle.db, { limit: 10 })).toHaveLength(1);
        expect(await countRows(fixture.database.handle.db)).toMatchObject({ snapshots: 0 });
      } finally {
        await other.end();
      }
    });
  },
);
