/**
 * Statements marked `prepared()` are prepared once per connection on PostgreSQL (the
 * server keeps them by name, and parses them once), and run as any other on PGlite; their
 * results are the same either way.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepared, queryRows } from '../../../src/store/db.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.each(databaseKinds())('prepared statements on %s', (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(() => database.close());

  it('answers with its parameters of each run, prepared once per connection', async () => {
    const square = (n: number) =>
      prepared('test-square', sql`SELECT (${n}::int * ${n}::int) AS value`);
    // One transaction: one connection, whose prepared statements can be listed.
    const { values, names } = await database.handle.db.transaction(async (tx) => {
      const values: number[] = [];
      for (const n of [2, 3, 4])
        values.push((await queryRows<{ value: number }>(tx, square(n)))[0]!.value);
      const names =
        kind === 'postgres'
          ? (
              await queryRows<{ name: string }>(
                tx,
                sql`SELECT name FROM pg_prepared_statements WHERE name LIKE 'test-%'`,
              )
            ).map((r) => r.name)
          : [];
      return { values, names };
    });
    expect(values).toEqual([4, 9, 16]);
    if (kind === 'postgres') expect(names).toEqual(['test-square']);
  });

  it('refuses a name that is not lower-case words', () => {
    expect(() => prepared('Bad name', sql`SELECT 1`)).toThrow(/bad prepared statement name/);
  });
});
