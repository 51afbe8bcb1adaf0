/**
 * On PostgreSQL, robowatch's sessions compress large values with LZ4 when the server was
 * built with it (set per session, never in the schema): every connection of the pool, not
 * only the first, and a state's verdict set is stored that way.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

const onPostgres = databaseKinds().includes('postgres');

describe.runIf(onPostgres)('compression of large values on PostgreSQL', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase('postgres');
  });
  afterEach(() => database.close());

  it('uses LZ4 on every connection when the server has it, else the server default', async () => {
    const { db } = database.handle;
    const [server] = await queryRows<{ lz4: boolean; boot: string }>(
      db,
      sql`SELECT 'lz4' = ANY(enumvals) AS lz4, boot_val AS boot
        FROM pg_settings WHERE name = 'default_toast_compression'`,
    );
    // Three transactions at once hold three connections of the pool.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const all = Promise.all(
      [1, 2, 3].map(() =>
        db.transaction(async (tx) => {
          const [row] = await queryRows<{ value: string; pid: number }>(
            tx,
            sql`SELECT current_setting('default_toast_compression') AS value,
              pg_backend_pid() AS pid`,
          );
          if (++started === 3) release();
          await held;
          return row!;
        }),
      ),
    );
    const sessions = await all;
    expect(new Set(sessions.map((s) => s.pid)).size).toBe(3);
    const expected = server!.lz4 ? 'lz4' : server!.boot;
    expect(sessions.map((s) => s.value)).toEqual([expected, expected, expected]);
  });
});
