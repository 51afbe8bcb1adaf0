/** Check rows by group commit: every row stored once, failures reported to their callers. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sites, snapshots } from '../../../src/store/schema.js';
import { countRows } from '../../../src/store/sites.js';
import { CheckWriter } from '../../../src/store/snapshots.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.each(databaseKinds())('CheckWriter on %s', (kind) => {
  let database: TestDatabase;
  let snapshotId: number;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    const { db } = database.handle;
    const [site] = await db.insert(sites).values({ origin: 'https://e.com' }).returning();
    const [snapshot] = await db
      .insert(snapshots)
      .values({ siteId: site!.id, finalUrl: 'https://e.com/robots.txt', firstSeenAt: new Date() })
      .returning();
    snapshotId = snapshot!.id;
  });
  afterEach(() => database.close());

  it('stores every row of many concurrent checks, each acknowledged after it is written', async () => {
    const writer = new CheckWriter(database.handle.db);
    const at = new Date('2026-05-01T00:00:00Z');
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        writer.record({
          snapshotId,
          checkedAt: new Date(at.getTime() + i),
          durationMs: i,
          transient: i % 7 ? null : '503',
        }),
      ),
    );
    expect((await countRows(database.handle.db))['checks']).toBe(300);
  });

  it('rejects the checks of a batch that fails, and goes on with the next', async () => {
    const writer = new CheckWriter(database.handle.db);
    const row = (id: number) => ({
      snapshotId: id,
      checkedAt: new Date(),
      durationMs: 1,
      transient: null,
    });
    const results = await Promise.allSettled([
      writer.record(row(snapshotId)),
      writer.record(row(999_999)),
    ]);
    // The two may share a batch (both fail) or not (only the bad one fails); the bad one always does.
    expect(results[1].status).toBe('rejected');
    await writer.record(row(snapshotId));
    const stored = (await countRows(database.handle.db))['checks'];
    expect(stored).toBe(results[0].status === 'fulfilled' ? 2 : 1);
  });
});
