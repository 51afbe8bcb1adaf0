/**
 * A new embedded data directory starts from the build's migrated seed (no initdb inside
 * WebAssembly, which holds ~800 MB for good): it opens migrated, keeps what is written
 * across a reopen, and a directory that holds a database is never overwritten by it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, SEED_FILE } from '../../../src/store/db.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(dataDir: string) {
  return openDatabase({ url: undefined, dataDir });
}

async function identity(handle: Awaited<ReturnType<typeof open>>): Promise<string> {
  const [row] = await queryRows<{ id: string }>(
    handle.db,
    sql`SELECT system_identifier::text AS id FROM pg_control_system()`,
  );
  return row!.id;
}

describe('the embedded database seed', () => {
  it('is built with the CLI', () => {
    expect(existsSync(SEED_FILE)).toBe(true);
  });

  it('gives a new data directory a migrated database, kept across a reopen and never unpacked over it', async () => {
    const [a, b] = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'robowatch-seed-')));
    dirs.push(a!, b!);
    const first = await open(a!);
    // Unpacked from the seed, not made by initdb: two new directories are the same cluster.
    const other = await open(b!);
    expect(await identity(first)).toBe(await identity(other));
    await other.close();
    await first.db.execute(sql`INSERT INTO sites (origin) VALUES ('https://kept.example')`);
    const id = await identity(first);
    await first.close();

    const again = await open(a!);
    const rows = await queryRows<{ origin: string }>(again.db, sql`SELECT origin FROM sites`);
    expect(rows.map((r) => r.origin)).toEqual(['https://kept.example']);
    expect(await identity(again)).toBe(id);
    await again.close();
  });
});
