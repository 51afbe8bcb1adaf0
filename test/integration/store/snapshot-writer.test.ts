/**
 * New states by group commit: many at once are written in few statements, each read
 * back whole (body, verdicts, events, check, the site's pointer); two states of one
 * site from the same starting point record one, and the other caller is told.
 */
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateMovedError } from '../../../src/lib/errors.js';
import type { NewSnapshot } from '../../../src/monitor/records.js';
import type { AlertDraft } from '../../../src/policy/alerts.js';
import { encodeVerdicts } from '../../../src/policy/verdict-sets.js';
import type { WatchVerdict } from '../../../src/policy/verdicts.js';
import { queryRows } from '../../../src/store/db.js';
import { outbox, sites } from '../../../src/store/schema.js';
import { countRows } from '../../../src/store/sites.js';
import {
  PreviousReader,
  SnapshotWriter,
  loadBody,
  loadVerdicts,
  replaceVerdicts,
} from '../../../src/store/snapshots.js';
import { createTestDatabase, databaseKinds, insertSites } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

const AT = new Date('2026-05-01T00:00:00Z');

/** The verdicts of the i-th site's state. */
function verdictsOf(i: number): WatchVerdict[] {
  return [
    { url: `https://s${i}.example/`, agent: '*', profile: 'google', allowed: true, cause: null },
    {
      url: `https://s${i}.example/site-${i}/x`,
      agent: '*',
      profile: 'google',
      allowed: false,
      cause: { type: 'rule', directive: 'disallow', pattern: `/site-${i}/`, line: 2 },
    },
  ];
}

function state(siteId: number, i: number): NewSnapshot {
  const bytes = new TextEncoder().encode(`User-agent: *\nDisallow: /site-${i}/\n`);
  return {
    siteId,
    previousId: null,
    status: 200,
    error: null,
    errorDetail: null,
    redirects: [],
    finalUrl: `https://s${i}.example/robots.txt`,
    body: { sha256: `sha-${i}`, bytes },
    cut: null,
    stale: false,
    lastGoodId: null,
    firstSeenAt: AT,
    verdicts: encodeVerdicts(verdictsOf(i)),
    verdictsKey: 'k',
    events: [
      {
        type: 'sitemaps_changed',
        site: `https://s${i}.example`,
        added: [`/s${i}.xml`],
        removed: [],
      },
    ],
    causes: [],
    fileCondition: 'robots',
    alerts: [],
    unreachableSince: null,
    check: { checkedAt: AT, durationMs: i, transient: null },
  };
}

describe.each(databaseKinds())('SnapshotWriter on %s', (kind) => {
  let database: TestDatabase;
  let ids: number[];
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    ids = await insertSites(database.handle.db, 50);
  });
  afterEach(() => database.close());

  it('writes fifty states at once, each whole', async () => {
    const writer = new SnapshotWriter(database.handle.db);
    const snapshotIds = (
      await Promise.all(ids.map((id, i) => writer.recordState(state(id, i))))
    ).map((r) => r.snapshotId);
    expect(new Set(snapshotIds).size).toBe(50);
    expect(await countRows(database.handle.db)).toMatchObject({
      snapshots: 50,
      bodies: 50,
      checks: 50,
      change_events: 50,
      verdicts: 100,
    });
    for (const [i, id] of [0, 17, 49].map((i) => [i, snapshotIds[i]!] as const)) {
      expect(await loadVerdicts(database.handle.db, id)).toEqual(verdictsOf(i));
      expect(new TextDecoder().decode(await loadBody(database.handle.db, `sha-${i}`))).toBe(
        `User-agent: *\nDisallow: /site-${i}/\n`,
      );
      const [site] = await database.handle.db.select().from(sites).where(eq(sites.id, ids[i]!));
      expect(site!.currentSnapshotId).toBe(id);
    }
  });

  it('keeps a body of any bytes exactly, as the store reads it and as the next check does', async () => {
    // Every byte value, NUL and bytes that are not UTF-8 included, and an odd length.
    const bytes = new Uint8Array(Array.from({ length: 1001 }, (_, i) => (i * 7) % 256));
    // A view into a larger buffer, as a body cut from a read is: only its own bytes go.
    const view = new Uint8Array([9, 9, ...bytes, 9]).subarray(2, 2 + bytes.length);
    const { snapshotId } = await new SnapshotWriter(database.handle.db).recordState({
      ...state(ids[0]!, 0),
      body: { sha256: 'sha-any', bytes: view },
    });
    expect([...(await loadBody(database.handle.db, 'sha-any'))]).toEqual([...bytes]);
    const previous = await new PreviousReader(database.handle.db).load(
      ids[0]!,
      snapshotId,
      'sha-any',
    );
    expect([...previous.body!]).toEqual([...bytes]);
    const [size] = await queryRows<{ size: number }>(
      database.handle.db,
      sql`SELECT size FROM bodies WHERE sha256 = 'sha-any'`,
    );
    expect(size).toEqual({ size: 1001 });
  });

  it('records one of two states of a site from the same starting point', async () => {
    const writer = new SnapshotWriter(database.handle.db);
    const results = await Promise.allSettled([
      writer.recordState(state(ids[0]!, 0)),
      writer.recordState(state(ids[0]!, 1)),
      writer.recordState(state(ids[1]!, 2)),
    ]);
    const [a, b, c] = results;
    expect([a.status, b.status].sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = [a, b].find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(StateMovedError);
    expect(c.status).toBe('fulfilled');
    expect(await countRows(database.handle.db)).toMatchObject({ snapshots: 2, checks: 2 });
  });

  it("takes a new state's URLs and crawlers from the state before's set, only while they are its own", async () => {
    const writer = new SnapshotWriter(database.handle.db);
    const db = database.handle.db;
    const first = await writer.recordState(state(ids[0]!, 0));
    // The same watches and crawlers, other verdicts: the axes are not sent again.
    const verdicts = verdictsOf(0).map((v) => ({ ...v, allowed: true, cause: null }));
    const next: NewSnapshot = {
      ...state(ids[0]!, 0),
      previousId: first.snapshotId,
      body: { sha256: 'sha-next', bytes: new TextEncoder().encode('User-agent: *\nAllow: /\n') },
      verdicts: encodeVerdicts(verdicts),
      axesAsBefore: true,
    };
    const second = await writer.recordState(next);
    expect(await loadVerdicts(db, second.snapshotId)).toEqual(verdicts);
    // The state before it read back with the check's own axes: the same verdicts.
    const reader = new PreviousReader(db);
    const axes = {
      urls: ['https://s0.example/', 'https://s0.example/site-0/x'],
      agents: ['*'],
      profiles: ['google' as const],
    };
    const [given, read] = await Promise.all([
      reader.load(ids[0]!, second.snapshotId, 'sha-next', axes),
      reader.load(ids[0]!, second.snapshotId, 'sha-next'),
    ]);
    for (const verdict of verdicts)
      expect(given.verdicts.find(verdict, 0)).toEqual(read.verdicts.find(verdict, 0));
    expect(given.verdicts.find(verdicts[1]!, 1)).toEqual(verdicts[1]);
    // Its watches changed meanwhile (another process recomputed the current verdicts for
    // other URLs): a state made for the old ones cannot take the axes, and is not written.
    await replaceVerdicts(db, ids[0]!, second.snapshotId, verdictsOf(5), 'k2');
    await expect(
      writer.recordState({ ...next, previousId: second.snapshotId, body: null }),
    ).rejects.toBeInstanceOf(StateMovedError);
    expect(await countRows(db)).toMatchObject({ snapshots: 2 });
  });

  it('writes states with alerts together, each with its alerts and their first attempts', async () => {
    const writer = new SnapshotWriter(database.handle.db);
    const alerted = (siteId: number, i: number): NewSnapshot => {
      const alert: AlertDraft = {
        channel: 'webhook',
        url: `http://127.0.0.1:9/hook-${i}`,
        format: 'json',
        site: `https://s${i}.example`,
        events: [],
        causes: [],
        agents: ['*'],
      };
      return { ...state(siteId, i), alerts: [alert, { ...alert, url: `${alert.url}-b` }] };
    };
    const results = await Promise.allSettled([
      ...ids.slice(0, 20).map((id, i) => writer.recordState(alerted(id, i))),
      // A second state of the first site from the same starting point: not recorded, and
      // so neither are its alerts.
      writer.recordState(alerted(ids[0]!, 99)),
    ]);
    const recorded = results.filter((r) => r.status === 'fulfilled');
    expect(recorded).toHaveLength(20);
    const moved = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(moved.reason).toBeInstanceOf(StateMovedError);
    const rows = await database.handle.db.select().from(outbox);
    expect(rows).toHaveLength(40);
    const snapshotIds = new Set(recorded.map((r) => r.value.snapshotId));
    expect(new Set(rows.map((r) => r.snapshotId))).toEqual(snapshotIds);
    for (const row of rows)
      expect(row.payload).toMatchObject({ kind: 'alert', snapshotId: row.snapshotId });
    // Each notification's first delivery attempt is queued in the same transaction.
    const [jobs] = await queryRows<{ n: number }>(
      database.handle.db,
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'deliver'`,
    );
    expect(jobs!.n).toBe(40);
  });
});
