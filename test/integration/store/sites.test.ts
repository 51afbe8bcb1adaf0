/**
 * The sites' rows as checks and the daemon read them: every origin asked for comes back
 * once, however many (the daemon's start reads every site it never checked, a page at a
 * time), and unknown ones are simply absent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSiteIds, loadSites, syncSites } from '../../../src/store/sites.js';
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

  it('adds only the origins it lacks, and gives every one its id, old and new alike', async () => {
    const db = database.handle.db;
    const before = await syncSites(db, ['https://a.example', 'https://b.example']);
    const ids = await ensureSiteIds(db, [
      'https://a.example',
      'https://c.example',
      'https://b.example',
    ]);
    expect(ids).toHaveLength(3);
    const idOf = new Map(ids.map((s) => [s.origin, s.id]));
    for (const site of before) expect(idOf.get(site.origin)).toBe(site.id);
    const again = await syncSites(db, ['https://c.example', 'https://d.example']);
    expect(new Map(again.map((s) => [s.origin, s.id])).get('https://c.example')).toBe(
      idOf.get('https://c.example'),
    );
    expect(again.map((s) => s.origin).sort()).toEqual(['https://c.example', 'https://d.example']);
    expect(await loadSites(db, ['https://d.example'])).toHaveLength(1);
  });
});
