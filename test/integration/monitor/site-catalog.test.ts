/**
 * The site catalog of a one-shot command that names its sites (robowatch backfill ORIGIN):
 * of the sites added in the UI or API it resolves only those named, on both databases.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { SiteCatalog } from '../../../src/monitor/sites/catalog.js';
import { createSiteDirectory } from '../../../src/store/index.js';
import { importManagedSites } from '../../../src/store/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.each(databaseKinds())('the site catalog on %s', (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(() => database.close());

  it('resolves only the named sites added in the UI or API, and every site of the file', async () => {
    const config = parseConfig('watch: [/]\nsites:\n  - url: https://file.example\n', {
      file: 'test.yaml',
      cwd: '/tmp',
      env: {},
      version: 'test',
    });
    await importManagedSites(
      database.handle.db,
      ['https://a.example', 'https://b.example', 'https://c.example'].map((origin) => ({
        origin,
        settings: { watch: ['/'] },
      })),
      () => undefined,
    );
    const now = () => new Date('2026-11-24T12:00:00Z');
    const all = new SiteCatalog(createSiteDirectory(database.handle.db), config, now);
    await all.load();
    expect(all.entries().map((e) => e.site.origin)).toEqual([
      'https://file.example',
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ]);
    const named = new SiteCatalog(createSiteDirectory(database.handle.db), config, now);
    await named.load({ origins: new Set(['https://b.example']) });
    expect(named.entries().map((e) => [e.site.origin, e.id])).toEqual([
      ['https://file.example', all.entries()[0]!.id],
      ['https://b.example', all.entries()[2]!.id],
    ]);
  });
});
