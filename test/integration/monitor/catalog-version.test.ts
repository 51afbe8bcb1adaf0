/**
 * The catalogue's count of changes, which every daemon looks at each upkeep round instead
 * of reading the whole sites table: it moves with every change another process must
 * see (a site added, edited, paused, resumed, given an intent or removed; a preset; the
 * default channels), once per transaction however many rows, and not with the checks'
 * own writes. A catalog refreshing with nothing changed reads no rows; a change made by
 * another process is in its next refresh. On both databases.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { SiteCatalog } from '../../../src/monitor/sites/catalog.js';
import type { SiteDirectoryStore } from '../../../src/monitor/ports.js';
import { createSiteDirectory } from '../../../src/store/index.js';
import { importManagedSites } from '../../../src/store/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const now = () => new Date('2026-11-24T12:00:00Z');

describe.each(databaseKinds())("the catalogue's count of changes on %s", (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    server.routes.clear();
    await database.close();
  });

  it('moves once for each change of the catalogue, and never for a check', async () => {
    const db = database.handle.db;
    const directory = createSiteDirectory(db);
    const config = historyConfig(server.origin);
    // A site's life of checks: new states, states seen again, an outage, a hostile file.
    const { deps } = await buildHistory(db, server, fetcher, config);
    const afterFirst = await directory.catalogVersion();
    expect(afterFirst).not.toBeNull();
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /\n');
    const changed = await checkSites(deps, config.sites, { concurrency: 1 });
    expect(changed.changed).toBe(1);
    expect(await directory.catalogVersion()).toBe(afterFirst);

    const moves: [string, () => Promise<unknown>][] = [
      [
        'a site added',
        async () => (addedId = await directory.saveSite('https://added.example', { watch: ['/'] })),
      ],
      ['its settings edited', () => directory.updateSettings(added(), { watch: ['/', '/a'] })],
      ['paused', () => directory.setPaused(added(), now())],
      ['resumed', () => directory.setPaused(added(), null)],
      ['given an intent', () => directory.saveIntent(added(), [])],
      ['removed', () => directory.remove(added(), now())],
      ['a preset', () => directory.savePreset('@mine', ['Googlebot'])],
      ['the default channels', () => directory.saveChannels({ email: ['seo@example.com'] })],
      [
        '4,500 sites imported in one transaction of three statements',
        () =>
          importManagedSites(
            db,
            Array.from({ length: 4_500 }, (_, i) => ({
              origin: `https://imported-${i}.example`,
              settings: { watch: ['/'] },
            })),
            () => undefined,
          ),
      ],
    ];
    let addedId: number | undefined;
    const added = () => addedId!;
    let before = afterFirst!;
    for (const [what, change] of moves) {
      await change();
      const after = await directory.catalogVersion();
      expect({ what, moved: after! - before }).toEqual({ what, moved: 1 });
      before = after!;
    }
  });

  it('lets a refresh with nothing changed read no rows, and the next one see another process', async () => {
    const db = database.handle.db;
    const config = parseConfig('watch: [/]\nsites:\n  - url: https://file.example\n', {
      file: 'test.yaml',
      cwd: '/tmp',
      env: {},
      version: 'test',
    });
    const counted = countingDirectory(createSiteDirectory(db));
    const daemon = new SiteCatalog(counted.store, config, now);
    await daemon.load();
    const web = new SiteCatalog(createSiteDirectory(db), config, now);
    await web.load();
    const reads = counted.reads();
    await daemon.refresh();
    await daemon.refresh();
    expect(counted.reads()).toBe(reads);

    const entry = await web.add({ url: 'https://managed.example', watch: ['/'] });
    await daemon.refresh();
    expect(daemon.get(entry.id)?.site.origin).toBe('https://managed.example');
    expect(counted.reads()).toBe(reads + 1);

    await web.setPaused(entry.id, true);
    await daemon.refresh();
    expect(daemon.get(entry.id)?.pausedAt).not.toBeNull();
    await daemon.refresh();
    expect(counted.reads()).toBe(reads + 2);
  });
});

/** A site directory that counts its full reads of the rows. */
function countingDirectory(store: SiteDirectoryStore): {
  store: SiteDirectoryStore;
  reads: () => number;
} {
  let reads = 0;
  return {
    store: {
      ...store,
      loadDirectory: () => {
        reads++;
        return store.loadDirectory();
      },
    },
    reads: () => reads,
  };
}
