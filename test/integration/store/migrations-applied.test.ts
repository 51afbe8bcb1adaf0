/**
 * Opening a database tells which migrations it applied, and `robowatch migrate` says so:
 * "applied 2 migrations (0019_… to 0020_…)" on a database that lacked them, "up to date"
 * on one that did not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationSummary } from '../../../src/cli/migrate.js';
import { MIGRATIONS_FOLDER, openDatabase } from '../../../src/store/db.js';
import type { DatabaseHandle } from '../../../src/store/db.js';
import { databaseKinds } from '../../support/database.js';
import { bareDatabase, migrationsBefore } from '../../support/migrations.js';
import type { BareDatabase } from '../../support/migrations.js';

const tags = (
  JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  }
).entries.map((e) => e.tag);

/** The database as robowatch opens it: by its URL, or from the embedded one's files. */
async function open(bare: BareDatabase): Promise<DatabaseHandle> {
  return bare.url !== undefined
    ? openDatabase({ url: bare.url, dataDir: '' })
    : openDatabase({ url: undefined, dataDir: '', inMemory: true, fromDump: await bare.dump!() });
}

describe.each(databaseKinds())('migrations applied on opening, %s', (kind) => {
  it('names the migrations a database lacked, then none', async () => {
    const [before, last] = tags.slice(-2) as [string, string];
    const bare = await bareDatabase(kind, 'robowatch_applied');
    let opened: DatabaseHandle | undefined;
    try {
      await bare.migrate(migrationsBefore(before));
      opened = await open(bare);
      expect(opened.applied).toEqual([before, last]);
      expect(migrationSummary(opened)).toBe(
        `applied 2 migrations (${before} to ${last}): ${kind} at ${opened.location} is up to date`,
      );
      await opened.close();
      opened = undefined;
      if (kind === 'postgres') {
        // The embedded one in memory is gone once closed; the server's keeps what it applied.
        opened = await open(bare);
        expect(opened.applied).toEqual([]);
        expect(migrationSummary(opened)).toBe(
          `database is up to date: postgres at ${opened.location}`,
        );
      }
    } finally {
      await opened?.close();
      await bare.close();
    }
  });

  it('applies every migration to a database never migrated, and counts them', async () => {
    const bare = await bareDatabase(kind, 'robowatch_applied_all');
    let opened: DatabaseHandle | undefined;
    try {
      opened = await open(bare);
      expect(opened.applied).toEqual(tags);
      expect(migrationSummary(opened)).toMatch(
        new RegExp(`^applied ${tags.length} migrations \\(0000_initial to ${tags.at(-1)}\\): `),
      );
    } finally {
      await opened?.close();
      await bare.close();
    }
  });
});
