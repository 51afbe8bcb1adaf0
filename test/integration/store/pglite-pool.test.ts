/**
 * The embedded databases the tests share one after another (test/support/pglite-pool.ts):
 * each test must find the migrated template's state, whatever the test before it did, or
 * a test's outcome would depend on the order the tests run in.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { syncSites } from '../../../src/store/sites.js';
import { createTestDatabase } from '../../support/database.js';

type Handle = Awaited<ReturnType<typeof createTestDatabase>>['handle'];

const count = async (handle: Handle): Promise<number> => {
  const result = await handle.executor.executeSql('SELECT count(*)::int AS n FROM sites');
  return (result.rows[0] as { n: number }).n;
};

/** The message of the error a statement ends in (drizzle wraps the driver's in its own). */
const failure = async (statement: Promise<unknown>): Promise<string> => {
  const error = await statement.then(
    () => undefined,
    (e: unknown) => e as Error & { cause?: unknown },
  );
  if (error === undefined) return 'no error';
  return error.cause instanceof Error ? error.cause.message : error.message;
};

describe('embedded databases kept between tests', () => {
  it("gives the next test the template's rows and sequences, not the last test's", async () => {
    const first = await createTestDatabase('pglite');
    const made = await syncSites(first.handle.db, ['https://a.example', 'https://b.example']);
    const queues = await first.handle.executor.executeSql('SELECT name FROM pgboss.queue');
    await first.handle.executor.executeSql('DELETE FROM pgboss.queue');
    await first.close();

    const second = await createTestDatabase('pglite');
    expect(await count(second.handle)).toBe(0);
    // The same ids again: the sequences are where the template left them.
    const again = await syncSites(second.handle.db, ['https://a.example', 'https://b.example']);
    expect(again.map((s) => s.id).sort()).toEqual(made.map((s) => s.id).sort());
    // The template's own rows are back.
    const back = await second.handle.executor.executeSql('SELECT name FROM pgboss.queue');
    expect(back.rows.map((r: { name: string }) => r.name).sort()).toEqual(
      queues.rows.map((r: { name: string }) => r.name).sort(),
    );
    await second.close();
  });

  it("gives the next test no planner statistics and no dead rows of the last test's data", async () => {
    const first = await createTestDatabase('pglite');
    const origins = Array.from({ length: 500 }, (_, i) => `https://s${i}.example`);
    await syncSites(first.handle.db, origins);
    await first.handle.executor.executeSql('ANALYZE sites');
    await first.close();

    const second = await createTestDatabase('pglite');
    const facts = await second.handle.executor.executeSql(
      `SELECT (SELECT count(*)::int FROM pg_statistic WHERE starelid = 'sites'::regclass) AS stats,
        pg_relation_size('sites')::int AS bytes`,
    );
    // A planner told of 500 sites, or pages of their dead rows, would plan for data gone.
    expect(facts.rows[0]).toEqual({ stats: 0, bytes: 0 });
    await second.close();
  });

  it('refuses statements on a handle once the test has closed it', async () => {
    const database = await createTestDatabase('pglite');
    const late = database.handle;
    await database.close();
    expect(await failure(count(late))).toMatch(/PGlite is closed/);
    // …and the next test's database (the same one, emptied) does not get the late write.
    const next = await createTestDatabase('pglite');
    expect(await failure(syncSites(late.db, ['https://late.example']))).toMatch(/PGlite is closed/);
    expect(await count(next.handle)).toBe(0);
    await next.close();
  });

  it('gives a fresh database after a test changed the schema', async () => {
    const first = await createTestDatabase('pglite');
    await first.handle.db.execute(sql`ALTER TABLE sites ADD COLUMN leftover text`);
    await first.close();

    const second = await createTestDatabase('pglite');
    const columns = await second.handle.executor.executeSql(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'sites'`,
    );
    expect(columns.rows.map((r: { column_name: string }) => r.column_name)).not.toContain(
      'leftover',
    );
    await second.close();
  });

  it('gives a clean session after a test left a transaction open and changed its settings', async () => {
    const first = await createTestDatabase('pglite');
    await first.handle.executor.executeSql("SET TIME ZONE 'Asia/Tokyo'");
    await first.handle.executor.executeSql('BEGIN');
    await first.handle.executor.executeSql(
      "INSERT INTO sites (origin) VALUES ('https://uncommitted.example')",
    );
    await first.close();

    const second = await createTestDatabase('pglite');
    expect(await count(second.handle)).toBe(0);
    const zone = await second.handle.executor.executeSql('SHOW TIME ZONE');
    expect(zone.rows[0]).not.toEqual({ TimeZone: 'Asia/Tokyo' });
    await second.close();
  });
});
