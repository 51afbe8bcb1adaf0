/**
 * PostgreSQL ending a session while robowatch holds its connection between two
 * statements of a transaction (a restart, a failover, an administrator): the process
 * lives on, the transaction fails and the pool answers the next query.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { adminQuery, createTestDatabase, postgresUrl } from '../../support/database.js';

const onPostgres = postgresUrl() === undefined ? describe.skip : describe;

onPostgres('a session ended by the server in the middle of a transaction', () => {
  it('fails that transaction, not the process, and the pool answers again', async () => {
    const database = await createTestDatabase('postgres');
    const crashes: unknown[] = [];
    const onCrash = (error: unknown) => crashes.push(error);
    process.on('uncaughtException', onCrash);
    try {
      const { db } = database.handle;
      const ended = db.transaction(async (tx) => {
        const [row] = await queryRows<{ pid: number }>(tx, sql`SELECT pg_backend_pid() AS pid`);
        await adminQuery(`SELECT pg_terminate_backend(${row!.pid})`);
        // The server's goodbye reaches the client while no statement is under way.
        await vi.waitFor(
          async () => {
            const gone = await adminQuery(`SELECT 1 FROM pg_stat_activity WHERE pid = ${row!.pid}`);
            expect(gone).toBe(0);
          },
          { timeout: 20_000, interval: 50 },
        );
        await tx.execute(sql`SELECT 1`);
      });
      await expect(ended).rejects.toThrow();
      const [answer] = await queryRows<{ one: number }>(db, sql`SELECT 1 AS one`);
      expect(answer!.one).toBe(1);
      expect(crashes).toEqual([]);
    } finally {
      process.off('uncaughtException', onCrash);
      await database.close();
    }
  });
});
