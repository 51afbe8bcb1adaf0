/**
 * Migration 0020 moves each state's change events from their own rows into the state's
 * snapshot: every event kept, in the order it was recorded, with the state's event types;
 * states without events keep none. The events API then lists them as before.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { countEventsBySnapshot, listEvents } from '../../../src/store/events.js';
import { databaseKinds } from '../../support/database.js';
import { beforeMigration } from '../../support/migrations.js';

const site = 'https://shop.example';
const disallowed = (url: string) => ({
  type: 'newly_disallowed',
  site,
  url: `${site}${url}`,
  agent: 'Googlebot',
  cause: { type: 'rule', directive: 'disallow', pattern: '/', line: 2 },
});
const status = {
  type: 'fetch_status_changed',
  site,
  before: { access: 'ok', status: 200 },
  after: { access: 'unreachable', status: 503 },
};

describe.each(databaseKinds())('migration 0020 on %s', (kind) => {
  it("keeps every state's events, in order, in its snapshot", async () => {
    await beforeMigration(
      kind,
      '0020_snapshot_events',
      'robowatch_migrate_0020',
      async (db, migrateRest) => {
        await db.execute(sql`INSERT INTO sites (origin) VALUES (${site})`);
        await db.execute(sql`
          INSERT INTO snapshots (site_id, previous_id, status, final_url, first_seen_at)
          SELECT id, NULL, 200, ${`${site}/robots.txt`}, '2026-01-01T00:00:00Z' FROM sites`);
        await db.execute(sql`
          INSERT INTO snapshots (site_id, previous_id, status, final_url, first_seen_at)
          SELECT site_id, id, 200, final_url, '2026-01-02T00:00:00Z' FROM snapshots`);
        await db.execute(sql`
          INSERT INTO snapshots (site_id, previous_id, status, final_url, first_seen_at)
          SELECT site_id, max(id), 503, final_url, '2026-01-03T00:00:00Z' FROM snapshots
          GROUP BY site_id, final_url`);
        // The second state's events were written in this order; the third's has one.
        const events = [
          [2, disallowed('/b')],
          [2, disallowed('/a')],
          [3, status],
          [2, disallowed('/c')],
        ] as const;
        for (const [snapshot, event] of events)
          await db.execute(sql`
            INSERT INTO change_events (site_id, snapshot_id, type, event, created_at)
            SELECT site_id, id, ${event.type}, ${JSON.stringify(event)}::jsonb, first_seen_at
            FROM snapshots WHERE id = ${snapshot}`);
        await migrateRest();

        const rows = await queryRows<{ id: number; event_types: string[] | null }>(
          db,
          sql`SELECT id::int, event_types FROM snapshots ORDER BY id`,
        );
        expect(rows.map((r) => [r.id, r.event_types])).toEqual([
          [1, null],
          [2, ['newly_disallowed']],
          [3, ['fetch_status_changed']],
        ]);
        expect(await countEventsBySnapshot(db, 1)).toEqual(
          new Map([
            [2, 3],
            [3, 1],
          ]),
        );
        const listed = await listEvents(db, { limit: 10 });
        expect(listed.map((e) => [e.snapshotId, e.event])).toEqual([
          [3, status],
          [2, disallowed('/c')],
          [2, disallowed('/a')],
          [2, disallowed('/b')],
        ]);
        expect(listed[1]!.at).toEqual(new Date('2026-01-02T00:00:00Z'));
        // Paged by id, and by type, as before the move.
        const after = await listEvents(db, { limit: 10, beforeId: listed[1]!.id });
        expect(after.map((e) => e.event)).toEqual([disallowed('/a'), disallowed('/b')]);
        const byType = await listEvents(db, { limit: 10, types: ['fetch_status_changed'] });
        expect(byType.map((e) => e.event)).toEqual([status]);
        // Any of several types, paged; a type no state has finds none.
        const either = await listEvents(db, {
          limit: 2,
          types: ['fetch_status_changed', 'newly_disallowed'],
        });
        expect(either.map((e) => e.event)).toEqual([status, disallowed('/c')]);
        const rest = await listEvents(db, {
          limit: 10,
          types: ['newly_disallowed', 'fetch_status_changed'],
          beforeId: either[1]!.id,
        });
        expect(rest.map((e) => e.event)).toEqual([disallowed('/a'), disallowed('/b')]);
        expect(await listEvents(db, { limit: 10, types: ['newly_allowed'] })).toEqual([]);
      },
    );
  });
});
