/**
 * A transaction whose connection dies before it begins (a database outage) gives its
 * connection back: the pool can still be closed, and the next transaction runs.
 */
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { createTestDatabase, postgresUrl } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.runIf(postgresUrl() !== undefined)('transactions on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('gives back a connection cut before BEGIN, so that closing the store does not wait forever', async () => {
    database = await createTestDatabase('postgres');
    const { db } = database.handle;
    const pool = (db as unknown as { $client: pg.Pool }).$client;
    // The next connection handed out is cut as it is handed out: its BEGIN fails.
    pool.once('acquire', (client) => {
      (
        client as unknown as { connection: { stream: { destroy(): void } } }
      ).connection.stream.destroy();
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
      }),
    ).rejects.toThrow();
    // Nothing is left checked out: the pool lets go of the cut connection…
    await expect.poll(() => pool.totalCount - pool.idleCount).toBe(0);
    // …the next transaction runs on a sound one…
    const [row] = await db.transaction((tx) =>
      queryRows<{ n: number }>(tx, sql`SELECT 41 + 1 AS n`),
    );
    expect(row!.n).toBe(42);
    // …and closing the store (pool.end, then the database dropped) returns.
    await database.close();
    database = undefined;
  });
});
