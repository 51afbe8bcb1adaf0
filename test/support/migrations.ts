/**
 * Databases migrated part of the way: a data migration's test writes rows as the code
 * before it did, then applies it and the rest.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { MIGRATIONS_FOLDER } from '../../src/store/db.js';
import type { Database } from '../../src/store/db.js';
import { adminQuery, databaseUrl } from './database.js';
import type { DatabaseKind } from './database.js';

/** The migrations up to the one before `tag` (it and every later one left out). */
export function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journal = JSON.parse(readFileSync(join(dir, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at === -1) throw new Error(`no migration ${tag}`);
  for (const entry of journal.entries.slice(at)) rmSync(join(dir, `${entry.tag}.sql`));
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(join(dir, 'meta/_journal.json'), JSON.stringify(journal));
  return dir;
}

/** An empty database of its own, migrated only as told (`migrate(folder)`). */
export interface BareDatabase {
  readonly db: Database;
  readonly migrate: (folder?: string) => Promise<void>;
  readonly close: () => Promise<void>;
  /** Where robowatch would open it: the URL of the PostgreSQL database, or the embedded one's files. */
  readonly url?: string;
  readonly dump?: () => Promise<Blob>;
}

export async function bareDatabase(kind: DatabaseKind, name: string): Promise<BareDatabase> {
  if (kind === 'pglite') {
    const client = new PGlite();
    const lite = drizzlePglite(client);
    return {
      db: lite as unknown as Database,
      migrate: (folder = MIGRATIONS_FOLDER) => migratePglite(lite, { migrationsFolder: folder }),
      close: () => client.close(),
      // Only once started: a dump asked of a PGlite still starting never answers.
      dump: async () => {
        await client.waitReady;
        return client.dumpDataDir('none');
      },
    };
  }
  const database = `${name}_${process.pid}`;
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${database}`);
  const pool = new pg.Pool({ connectionString: databaseUrl(database) });
  // As the product's pool does: a client still closing when the database is dropped
  // hears the server end its session; that is not the test's failure.
  pool.on('connect', (client) => client.on('error', () => {}));
  const node = drizzlePg(pool);
  return {
    db: node as unknown as Database,
    migrate: (folder = MIGRATIONS_FOLDER) => migratePg(node, { migrationsFolder: folder }),
    url: databaseUrl(database),
    close: async () => {
      await pool.end();
      // A session still closing is let go rather than terminated: terminated, the server
      // tells its client (57P01) after the client has stopped listening.
      for (let waited = 0; waited < 10_000; waited += 50) {
        const sessions = await adminQuery(
          `SELECT 1 FROM pg_stat_activity WHERE datname = '${database}'`,
        );
        if (sessions === 0) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    },
  };
}

/**
 * Runs `test` on a database of its own migrated up to the one before `tag`: it writes rows
 * as the code before that migration did, then calls `migrateRest()` and reads them back.
 */
export async function beforeMigration(
  kind: DatabaseKind,
  tag: string,
  name: string,
  test: (db: Database, migrateRest: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const before = migrationsBefore(tag);
  const database = await bareDatabase(kind, name);
  try {
    await database.migrate(before);
    await test(database.db, () => database.migrate());
  } finally {
    await database.close();
    rmSync(before, { recursive: true, force: true });
  }
}
