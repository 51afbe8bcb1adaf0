import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { openDatabase } from '../../src/store/db.js';
import type { Database, DatabaseHandle } from '../../src/store/db.js';
import { sites } from '../../src/store/schema.js';
import { PglitePool } from './pglite-pool.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** PostgreSQL server URL for tests, if any (TEST_DATABASE_URL, else DATABASE_URL). */
export function postgresUrl(): string | undefined {
  const url = process.env['TEST_DATABASE_URL'] || process.env['DATABASE_URL'];
  return url === '' ? undefined : url;
}

/** The databases integration tests run on: PGlite always, PostgreSQL when configured. */
export function databaseKinds(): DatabaseKind[] {
  return postgresUrl() === undefined ? ['pglite'] : ['pglite', 'postgres'];
}

/** The URL of database `name` on the test server (as `user`, else as the server URL's). */
export function databaseUrl(name: string, user?: string): string {
  const url = new URL(postgresUrl()!);
  url.pathname = `/${name}`;
  if (user !== undefined) url.username = user;
  return url.toString();
}

/** Runs SQL on the test server's maintenance connection; returns how many rows it gave. */
export async function adminQuery(text: string): Promise<number> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    return (await client.query(text)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * Waits until no backend serves `role` (up to `timeoutMs`). A backend goes on counting
 * against the role's connection limit for a moment after its client has closed: a command
 * started as the last one ends can be refused "too many connections for role". Read from
 * pg_stat_activity on the maintenance connection, every 20 ms.
 */
export async function roleConnectionsGone(role: string, timeoutMs = 30_000): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1',
        [role],
      );
      if (rows[0]!.n === 0) return;
      if (Date.now() > deadline)
        throw new Error(`${rows[0]!.n} backend(s) still serve ${role} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

export const TEMPLATE_ENV = 'ROBOWATCH_TEST_PG_TEMPLATE';

let counter = 0;

/**
 * The migrated embedded database as an uncompressed dump, written once by
 * test/global-setup.ts for every test process (opening the build's seed and dumping it
 * took each process about 3.4 s of CPU; reading the dump back, nothing measurable).
 */
export const PGLITE_TEMPLATE_ENV = 'ROBOWATCH_TEST_PGLITE_TEMPLATE';

/** The migrated embedded database, dumped: what each test's own embedded database starts from. */
export async function dumpMigratedPglite(): Promise<Blob> {
  const handle = await openDatabase({ url: undefined, dataDir: '', inMemory: true });
  try {
    return await handle.dump!();
  } finally {
    await handle.close();
  }
}

let pgliteTemplate: Promise<Blob> | undefined;
function migratedPglite(): Promise<Blob> {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  // Without the global setup's file (a test run by other means), this process dumps its own.
  pgliteTemplate ??=
    file === undefined ? dumpMigratedPglite() : readFile(file).then((bytes) => new Blob([bytes]));
  return pgliteTemplate;
}

/** This process's embedded databases, kept between its tests (pglite-pool.ts). */
const pglitePool = new PglitePool(migratedPglite);

export interface TestDatabase {
  readonly handle: DatabaseHandle;
  /** For PostgreSQL, the URL of this test's own database (CLI tests pass it on). */
  readonly url: string | undefined;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database: PGlite in memory (one a test before emptied, or one opened
 * from the template's dump), or a PostgreSQL database cloned from the template that
 * test/global-setup.ts migrated once.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const handle = await pglitePool.take();
    return { handle, url: undefined, close: () => handle.close() };
  }
  const template = process.env[TEMPLATE_ENV];
  if (template === undefined)
    throw new Error('the PostgreSQL template was not prepared (test/global-setup.ts)');
  const name = `robowatch_test_${process.pid}_${++counter}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = databaseUrl(name);
  const handle = await openDatabase({ url, dataDir: '' });
  return {
    handle,
    url,
    close: async () => {
      await handle.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** `count` bare sites (https://s0.example, https://s1.example, …), as rows; their ids. */
export async function insertSites(db: Database, count: number): Promise<number[]> {
  const rows = await db
    .insert(sites)
    .values(Array.from({ length: count }, (_, i) => ({ origin: `https://s${i}.example` })))
    .returning({ id: sites.id });
  return rows.map((r) => r.id);
}
