/**
 * The embedded database (PGlite: PostgreSQL in WebAssembly) under the data directory,
 * loaded by db.ts only when DATABASE_URL is not set, and the seed `npm run build` makes.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { x as extractTar } from 'tar';
import { isRunning } from '../lib/process.js';
import { installJobSchema } from './job-schema.js';
import * as schema from './schema.js';
import {
  DatabaseError,
  DatabaseInUseError,
  MIGRATIONS_FOLDER,
  pendingMigrations,
  SEED_FILE,
  describe,
} from './db.js';
import type { DatabaseHandle, SqlExecutor } from './db.js';

/**
 * PGlite's settings, with PostgreSQL's shared buffers at 8 MB instead of 128 MB: they
 * live in PGlite's WebAssembly memory, and one process's database needs few (a first
 * `check` of 1,000 sites: 279 MB peak RSS at 8 MB, 303 MB at 16 MB, the same time).
 */
const PGLITE_START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=8MB',
  '-c',
  'wal_buffers=1MB',
];

/** Statements on an embedded database, as the job engine sends them. */
function pgliteExecutor(client: PGlite): SqlExecutor {
  return {
    executeSql: async (text, values) => {
      if (values !== undefined && values.length > 0) return client.query(text, values);
      const results = await client.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
  };
}

/** Writes SEED_FILE: an embedded database with every migration applied. */
export async function writeSeed(file = SEED_FILE): Promise<void> {
  const client = await PGlite.create({ startParams: PGLITE_START_PARAMS });
  await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  await installJobSchema(pgliteExecutor(client));
  const dump = await client.dumpDataDir('gzip');
  await client.close();
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
}

/**
 * Unpacks the seed into a new data directory (PGlite then opens it as it reopens any):
 * true when it did, false when this build has no seed or the directory holds a database.
 */
async function unpackSeed(directory: string): Promise<boolean> {
  if (!existsSync(SEED_FILE) || readdirSync(directory).length > 0) return false;
  // Its paths are absolute (/base/…): the leading "/" is dropped, which tar reports as
  // information; anything else it reports means a damaged seed.
  const problems: string[] = [];
  await extractTar({
    file: SEED_FILE,
    cwd: directory,
    onwarn: (code, message) => {
      if (code !== 'TAR_ENTRY_INFO') problems.push(`${code}: ${String(message)}`);
    },
  });
  if (problems.length > 0) throw new Error(`the seed ${SEED_FILE} is damaged (${problems[0]})`);
  return true;
}

/** A PGlite client in memory, started from a dump (its files), with robowatch's settings. */
export function pgliteInMemory(dump: Blob): Promise<PGlite> {
  return PGlite.create('memory://', { startParams: PGLITE_START_PARAMS, loadDataDir: dump });
}

export async function openPglite(
  dataDir: string | undefined,
  fromDump: Blob | undefined,
): Promise<DatabaseHandle> {
  const directory = dataDir === undefined ? 'memory://' : join(dataDir, 'pglite');
  if (dataDir !== undefined) mkdirSync(directory, { recursive: true });
  const releaseLock = dataDir === undefined ? () => undefined : lockDirectory(dataDir);
  let client: PGlite;
  try {
    const options = { startParams: PGLITE_START_PARAMS };
    if (dataDir === undefined) {
      const seed =
        fromDump ?? (existsSync(SEED_FILE) ? new Blob([readFileSync(SEED_FILE)]) : undefined);
      client = seed ? await pgliteInMemory(seed) : await PGlite.create(directory, options);
    } else {
      const seeded = await unpackSeed(directory);
      try {
        client = await PGlite.create(directory, options);
      } catch (error) {
        // A seed this PGlite cannot open (made for another version): initdb, as without one.
        if (!seeded) throw error;
        rmSync(directory, { recursive: true, force: true });
        mkdirSync(directory, { recursive: true });
        client = await PGlite.create(directory, options);
      }
    }
    const db = drizzlePglite(client, { schema });
    const applied = await pendingMigrations((text) => client.query<{ created_at: unknown }>(text));
    // Up to date (nearly every open): the migrator would read every migration to do nothing.
    if (applied.length > 0) await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
    const handle = {
      ...pgliteHandle(
        client,
        directory,
        async () => {
          await client.close();
          releaseLock();
        },
        db,
      ),
      applied,
    };
    await installJobSchema(handle.executor);
    return handle;
  } catch (error) {
    releaseLock();
    throw new DatabaseError(
      `cannot open the embedded database in ${directory}: ${describe(error)}`,
    );
  }
}

/**
 * A handle on a PGlite client already open (openPglite's, or a test's kept between tests):
 * `close` is what closing the handle does.
 */
export function pgliteHandle(
  client: PGlite,
  location: string,
  close: () => Promise<void>,
  db: PgliteDatabase<typeof schema> = drizzlePglite(client, { schema }),
): DatabaseHandle {
  return {
    db,
    kind: 'pglite',
    location,
    close,
    dump: () => client.dumpDataDir('none'),
    executor: pgliteExecutor(client),
  };
}

/**
 * PGlite is one process's database: a second process opening the same directory would
 * corrupt it. A lock file with the owner's pid keeps a second one out with a clear
 * message; a lock left by a process that no longer runs is taken over.
 */
function lockDirectory(dataDir: string): () => void {
  const path = join(dataDir, 'robowatch.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)) {
        throw new DatabaseInUseError(
          `the embedded database in ${dataDir} is in use by process ${owner}; ` +
            'stop it first, or set DATABASE_URL to a PostgreSQL database to run several processes',
          owner,
          dataDir,
        );
      }
      rmSync(path, { force: true }); // stale lock
    }
  }
  throw new DatabaseError(`cannot lock the embedded database in ${dataDir}`);
}
