/**
 * The daemon's upkeep refreshes the planner's statistics where the server keeps none:
 * the embedded database (no autovacuum) and a PostgreSQL running with autovacuum off,
 * whose plans otherwise cost every table as it was when first read.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { maintainDatabase } from '../../../src/store/index.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

/** The planner's row count of a table: -1 until it is first analyzed (or vacuumed). */
async function plannerRows(database: TestDatabase, table: string): Promise<number> {
  const [row] = await queryRows<{ rows: number }>(
    database.handle.db,
    sql`SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = ${table}::regclass`,
  );
  return Number(row!.rows);
}

describe.each(databaseKinds())('the database upkeep on %s', (kind) => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });

  afterEach(async () => {
    await database.close();
  });

  it('analyzes the database where the server does not, and says which', async () => {
    const { db } = database.handle;
    const [setting] = await queryRows<{ autovacuum: string }>(
      db,
      kind === 'postgres'
        ? sql`SELECT current_setting('autovacuum') AS autovacuum`
        : sql`SELECT 'none' AS autovacuum`,
    );
    // Never analyzed: the planner guesses each table's size from its pages.
    expect(await plannerRows(database, 'snapshots')).toBe(-1);
    const done = await maintainDatabase(db, kind, false);
    if (kind === 'pglite') expect(done).toBe('embedded');
    else if (setting!.autovacuum === 'off') expect(done).toBe('postgres');
    // The server's autovacuum keeps the statistics: nothing to do.
    else expect(done).toBeNull();
    // Analyzed: the planner knows how many rows each table holds (none), where it did not.
    if (done !== null) {
      expect(await plannerRows(database, 'sites')).toBe(0);
      expect(await plannerRows(database, 'snapshots')).toBe(0);
    }
    // A vacuum too, when asked (daily).
    expect(await maintainDatabase(db, kind, true)).toBe(done);
  });
});
