import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../src/store/db.js';
import {
  adminQuery,
  databaseUrl,
  dumpMigratedPglite,
  PGLITE_TEMPLATE_ENV,
  postgresUrl,
  TEMPLATE_ENV,
} from './support/database.js';
import { killLeftovers } from './support/leftovers.js';

/**
 * Before the suite: build the CLI as `npm run build` does (compiled, then bundled) and its
 * embedded-database seed (end-to-end tests run it as users do); dump the migrated embedded
 * database once, for each test's own to start from; and when a PostgreSQL server is
 * configured, migrate a template database that each test file clones (CREATE DATABASE …
 * TEMPLATE is much faster than migrating each time).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // Every temporary directory of this run, the tests' own, the commands' and daemons' they
  // start and the browser's, goes under one directory removed when the run ends: the tests
  // create hundreds (databases, configurations, exports), about 1.5 GB a run, and leaving
  // them filled the machine's /tmp run after run. Workers and their children inherit TMPDIR,
  // which os.tmpdir() reads on every call.
  const runDir = mkdtempSync(join(tmpdir(), 'robowatch-test-'));
  process.env['TMPDIR'] = runDir;
  // No name but localhost is looked up, in the workers or the commands they start
  // (support/loopback-dns.mjs): traffic stays on loopback.
  const guard = pathToFileURL(join(root, 'test/support/loopback-dns.mjs')).href;
  process.env['NODE_OPTIONS'] = [process.env['NODE_OPTIONS'], `--import=${guard}`]
    .filter(Boolean)
    .join(' ');
  const script = join(root, 'dist/main.js');
  // What a test that timed out or failed before stopping it left running is killed, and
  // said, when the run ends (support/leftovers.ts).
  const removeRunDir = () => {
    killLeftovers(runDir, script);
    rmSync(runDir, { recursive: true, force: true });
  };
  // Compiled file by file with esbuild, as `npm run build` does (the types are checked by
  // `npm run typecheck`, which `npm test` runs first): 2 s instead of tsc's 23.
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/transpile.ts'], {
    cwd: root,
    stdio: 'inherit',
  });
  // The command as it ships: dist/main.js bundled with its dependencies.
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bundle.ts'], {
    cwd: root,
    stdio: 'ignore',
  });
  // The migrated embedded database new data directories start from, as `npm run build` makes.
  execFileSync(process.execPath, ['dist/build-seed.js'], { cwd: root, stdio: 'ignore' });
  const dumpDir = mkdtempSync(join(tmpdir(), 'robowatch-pglite-template-'));
  const dump = join(dumpDir, 'migrated.tar');
  writeFileSync(dump, Buffer.from(await (await dumpMigratedPglite()).arrayBuffer()));
  process.env[PGLITE_TEMPLATE_ENV] = dump;
  // The commands the tests run keep configurations' parsed and validated forms in a
  // directory of this run's, not in the home directory's cache.
  const cacheDir = mkdtempSync(join(tmpdir(), 'robowatch-test-cache-'));
  process.env['ROBOWATCH_CACHE_DIR'] = cacheDir;
  if (postgresUrl() === undefined) return () => Promise.resolve(removeRunDir());
  const template = `robowatch_template_${process.pid}`;
  await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${template}`);
  const handle = await openDatabase({ url: databaseUrl(template), dataDir: '' });
  await handle.close();
  process.env[TEMPLATE_ENV] = template;
  return async () => {
    removeRunDir();
    await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  };
}
