/**
 * The outbox's upkeep: sent notifications older than the retention are deleted (and
 * nothing else), the oldest failing one is what /healthz reports, and the next attempt
 * of each unsent one is named by notification and attempt (queued once).
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { failingDelivery, pruneOutbox, unsentDeliveries } from '../../../src/store/outbox.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

const DAY = 86_400_000;
const NOW = new Date('2026-11-23T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

describe.each(databaseKinds())('the outbox upkeep on %s', (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    const rows: [string, string | null, number, string | null, string][] = [
      // key, sent at, attempts, last error, created at
      ['sent-long-ago', ago(10), 0, null, ago(10)],
      ['sent-yesterday', ago(1), 0, null, ago(1)],
      ['failing-since-3-days', null, 4, 'hooks.example.com/… answered 500', ago(3)],
      ['failing-since-1-day', null, 1, 'connect ECONNREFUSED', ago(1)],
      ['new', null, 0, null, ago(0)],
    ];
    for (const [key, sent, attempts, error, created] of rows)
      await database.handle.db.execute(sql`
        INSERT INTO outbox (key, channel, destination, payload, created_at, next_attempt_at, attempts, last_error, sent_at)
        VALUES (${key}, 'webhook', 'https://hooks.example.com/x', '{}'::jsonb, ${created}::timestamptz,
          ${created}::timestamptz, ${attempts}, ${error}, ${sent}::timestamptz)`);
  });
  afterEach(() => database.close());

  const keys = async () =>
    (
      await queryRows<{ key: string }>(database.handle.db, sql`SELECT key FROM outbox ORDER BY id`)
    ).map((r) => r.key);

  it('deletes only what was sent before the retention began', async () => {
    expect(await pruneOutbox(database.handle.db, new Date(ago(7)))).toBe(1);
    expect(await keys()).toEqual([
      'sent-yesterday',
      'failing-since-3-days',
      'failing-since-1-day',
      'new',
    ]);
  });

  it('reports the oldest failing notification, and queues each unsent one at its attempt', async () => {
    expect(await failingDelivery(database.handle.db)).toEqual({
      since: new Date(ago(3)),
      error: 'hooks.example.com/… answered 500',
      channel: 'webhook',
    });
    const jobs = await unsentDeliveries(database.handle.db);
    expect(jobs.map((j) => j.data.attempt).sort()).toEqual([0, 1, 4]);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(3);
    // The same notification at the same attempt is the same job.
    expect((await unsentDeliveries(database.handle.db)).map((j) => j.id)).toEqual(
      jobs.map((j) => j.id),
    );
  });
});
