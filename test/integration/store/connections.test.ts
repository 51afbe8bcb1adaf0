/**
 * The connections robowatch holds on PostgreSQL, as `pg_stat_activity` shows them to the
 * server's operator: a daemon's checks on one connection of their own ("robowatch
 * checks"), everything else on the pool ("robowatch").
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { createTestDatabase, postgresUrl } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.runIf(postgresUrl() !== undefined)('the connections on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it("runs the checks' statements on one connection of their own, however many are asked at once", async () => {
    database = await createTestDatabase('postgres');
    const { db, checks } = database.handle;
    expect(checks).toBeDefined();
    // Eight at once, each holding its connection a moment: the pool would spread them.
    const asked = () =>
      queryRows<{ pid: number; name: string }>(
        checks!,
        sql`SELECT pg_backend_pid() AS pid, current_setting('application_name') AS name,
              pg_sleep(0.02)::text`,
      );
    const rows = (await Promise.all(Array.from({ length: 8 }, asked))).flat();
    expect(new Set(rows.map((r) => r.pid)).size).toBe(1);
    expect(rows[0]!.name).toBe('robowatch checks');

    const [other] = await queryRows<{ pid: number; name: string }>(
      db,
      sql`SELECT pg_backend_pid() AS pid, current_setting('application_name') AS name`,
    );
    expect(other!.name).toBe('robowatch');
    expect(other!.pid).not.toBe(rows[0]!.pid);
  });

  it('keeps one database: a state written on the checks connection is read on the pool', async () => {
    database = await createTestDatabase('postgres');
    const { db, checks } = database.handle;
    await queryRows(checks!, sql`INSERT INTO sites (origin) VALUES ('https://one.example')`);
    const [row] = await queryRows<{ origin: string }>(db, sql`SELECT origin FROM sites`);
    expect(row?.origin).toBe('https://one.example');
  });
});
