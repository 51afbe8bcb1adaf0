/**
 * Statements marked `prepared()` are prepared once per connection on PostgreSQL (the
 * server keeps them by name, and parses them once), and run as any other on PGlite; their
 * results are the same either way. A batch's arrays (`batchParam`) let the server keep one
 * plan for them instead of planning each run anew.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchParam, prepared, queryRows } from '../../../src/store/db.js';
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

  it('keeps one plan for batches of any size from the sixth run on', async () => {
    const total = (xs: number[]) =>
      prepared(
        'test-batch',
        sql`SELECT coalesce(sum(x), 0)::int AS value FROM unnest(${batchParam(xs, 'int[]')}) AS t(x)`,
      );
    const batches = [[1], [2, 3], [4, 5, 6], [7], [8, 9], [10], [11, 12, 13, 14], [], [15]];
    const { values, plans } = await database.handle.db.transaction(async (tx) => {
      const values: number[] = [];
      for (const xs of batches)
        values.push((await queryRows<{ value: number }>(tx, total(xs)))[0]!.value);
      const plans =
        kind === 'postgres'
          ? (
              await queryRows<{ generic: number; custom: number }>(
                tx,
                sql`SELECT generic_plans::int AS generic, custom_plans::int AS custom
                  FROM pg_prepared_statements WHERE name = 'test-batch'`,
              )
            )[0]
          : undefined;
      return { values, plans };
    });
    expect(values).toEqual([1, 5, 15, 7, 17, 10, 50, 0, 15]);
    // Planned for its values five times, as PostgreSQL starts; then one plan for all.
    if (kind === 'postgres') expect(plans).toEqual({ generic: 4, custom: 5 });
  });

  it('refuses a name that is not lower-case words', () => {
    expect(() => prepared('Bad name', sql`SELECT 1`)).toThrow(/bad prepared statement name/);
  });
});
