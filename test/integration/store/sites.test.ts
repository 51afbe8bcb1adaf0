/**
 * The sites' rows as checks and the daemon read them: every origin asked for comes back
 * once, however many (the daemon's start reads every site it never checked, a page at a
 * time), and unknown ones are simply absent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSites, syncSites } from '../../../src/store/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.each(databaseKinds())('sites on %s', (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(() => database.close());

  it('reads 25,000 sites back, each once, past the page of 10,000 a statement reads', async () => {
    const origins = Array.from({ length: 25_000 }, (_, i) => `https://s${i}.example`);
    const made = await syncSites(database.handle.db, origins);
    expect(new Set(made.map((s) => s.origin)).size).toBe(25_000);
    const read = await loadSites(database.handle.db, [...origins, 'https://unknown.example']);
    expect(read).toHaveLength(25_000);
    const ids = new Map(made.map((s) => [s.origin, s.id]));
    expect(read.every((s) => ids.get(s.origin) === s.id && s.current === null)).toBe(true);
  });
});
