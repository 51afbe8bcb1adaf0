/**
 * The site catalog of a one-shot command that names its sites (robowatch backfill ORIGIN):
 * of the sites added in the UI or API it resolves only those named, on both databases.
 * And the import that adds them (robowatch sites import): each site with its own settings
 * over several statements, and a removed or paused site brought back as it was imported.
 * And one site read without a write (history, diff, the gate): as the daemon resolves it.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { SiteCatalog } from '../../../src/monitor/sites/catalog.js';
import { createSiteDirectory } from '../../../src/store/index.js';
import { queryRows } from '../../../src/store/db.js';
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

  it('reads one site added in the UI or API as the daemon resolves it, writing nothing', async () => {
    const config = parseConfig(
      'watch: [/]\nagents: [Googlebot]\nsites:\n  - url: https://file.example\n',
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const now = () => new Date('2026-11-24T12:00:00Z');
    const db = database.handle.db;
    await importManagedSites(
      db,
      [
        { origin: 'https://team.example', settings: { watch: ['/', '/shop'], agents: ['@team'] } },
        { origin: 'https://broken.example', settings: { agents: ['@gone'] } },
      ],
      () => undefined,
    );
    // A preset and an intent made in the web, as the daemon's catalog writes them.
    const daemon = new SiteCatalog(createSiteDirectory(db), config, now);
    await daemon.setPreset('@team', { agents: ['Googlebot', 'GPTBot'] });
    const team = daemon.entries().find((e) => e.site.origin === 'https://team.example')!;
    await daemon.setIntent(team.id, [{ watch: '/shop', agents: ['GPTBot'], expect: 'disallowed' }]);
    const rows = async () =>
      (await queryRows<{ origin: string }>(db, sql`SELECT origin FROM sites ORDER BY origin`)).map(
        (r) => r.origin,
      );
    // A site the file starts listing, never given a row.
    const later = parseConfig(
      'watch: [/]\nagents: [Googlebot]\nsites:\n  - url: https://file.example\n  - url: https://later.example\n',
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const before = await rows();
    const reader = new SiteCatalog(createSiteDirectory(db), later, now);

    const site = await reader.readSite('https://team.example');
    expect(site).toMatchObject({
      origin: 'https://team.example',
      agents: [{ token: 'Googlebot' }, { token: 'GPTBot' }],
      watches: ['https://team.example/', 'https://team.example/shop'],
      intent: {
        from: 'web',
        entries: [{ watch: '/shop', agents: ['GPTBot'], expect: 'disallowed' }],
      },
    });
    expect(await reader.readSite('https://broken.example')).toMatch(
      /^https:\/\/broken\.example is not checked: its settings no longer hold with test\.yaml: .*@gone/,
    );
    expect(await reader.readSite('https://file.example')).toBeUndefined();
    expect(await reader.readSite('https://unknown.example')).toBeUndefined();
    expect(await rows()).toEqual(before);
    expect(before).not.toContain('https://later.example');

    // Every site as the daemon runs them (a digest's preview), loaded to read: the file's
    // site never checked is there as the file gives it, and is given no row.
    const running = new SiteCatalog(createSiteDirectory(db), later, now);
    await running.load({ readOnly: true });
    expect(running.config.sites.map((s) => s.origin)).toEqual([
      'https://file.example',
      'https://later.example',
      'https://team.example',
    ]);
    expect(running.config.sites[2]!.intent.from).toBe('web');
    expect(running.entries().map((e) => e.site.origin)).toEqual([
      'https://file.example',
      'https://team.example',
    ]);
    expect(await rows()).toEqual(before);
  });

  it('reads many sites’ names at once without resolving their settings or writing', async () => {
    const config = parseConfig(
      'watch: [/]\nsites:\n  - {url: https://file.example, name: File site}\n  - url: https://plain.example\n',
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const db = database.handle.db;
    await importManagedSites(
      db,
      [
        { origin: 'https://shop.example', settings: { name: 'Shop', watch: ['/'] } },
        // Settings that no longer hold (a preset gone): its name is still its name.
        { origin: 'https://broken.example', settings: { name: 'Broken', agents: ['@gone'] } },
        { origin: 'https://nameless.example', settings: { watch: ['/'] } },
        { origin: 'https://gone.example', settings: { name: 'Gone', watch: ['/'] } },
      ],
      () => undefined,
    );
    await db.execute(
      sql`UPDATE sites SET removed_at = now() WHERE origin = 'https://gone.example'`,
    );
    const rows = async () =>
      (await queryRows<{ origin: string }>(db, sql`SELECT origin FROM sites ORDER BY origin`)).map(
        (r) => r.origin,
      );
    const before = await rows();
    const reader = new SiteCatalog(createSiteDirectory(db), config, () => new Date());
    const names = await reader.names([
      'https://file.example',
      'https://plain.example',
      'https://shop.example',
      'https://broken.example',
      'https://nameless.example',
      'https://gone.example',
      'https://unknown.example',
    ]);
    expect(Object.fromEntries(names)).toEqual({
      'https://file.example': 'File site',
      'https://plain.example': null,
      'https://shop.example': 'Shop',
      'https://broken.example': 'Broken',
      'https://nameless.example': null,
    });
    // The file's sites are given no row by a read.
    expect(await rows()).toEqual(before);
    expect(before).not.toContain('https://file.example');
  });

  it('imports each site with its own settings, and brings a removed or paused one back', async () => {
    const db = database.handle.db;
    const sites = (rows: number) =>
      Array.from({ length: rows }, (_, i) => ({
        origin: `https://site-${i + 1}.example`,
        settings: { watch: ['/', `/page-${i + 1}`], rank: i + 1, tags: ['it\'s "quoted"'] },
      }));
    // More than one statement's worth (2,000 a statement).
    const written: number[] = [];
    expect(await importManagedSites(db, sites(4_500), (n) => written.push(n))).toBe(4_500);
    expect(written).toEqual([2_000, 4_000, 4_500]);
    const read = () =>
      queryRows<{ id: number; origin: string; settings: unknown; gone: boolean }>(
        db,
        sql`SELECT id, origin, settings, removed_at IS NOT NULL OR paused_at IS NOT NULL AS gone
          FROM sites ORDER BY id`,
      );
    const before = await read();
    expect(before).toHaveLength(4_500);
    expect(before[4_321]).toMatchObject({
      origin: 'https://site-4322.example',
      settings: { watch: ['/', '/page-4322'], rank: 4_322, tags: ['it\'s "quoted"'] },
      gone: false,
    });
    // One removed, one paused: imported again with new settings, both are back as they are
    // now imported, under the ids their history hangs on.
    await db.execute(
      sql`UPDATE sites SET removed_at = now() WHERE origin = 'https://site-7.example'`,
    );
    await db.execute(
      sql`UPDATE sites SET paused_at = now() WHERE origin = 'https://site-9.example'`,
    );
    await importManagedSites(
      db,
      ['https://site-7.example', 'https://site-9.example'].map((origin) => ({
        origin,
        settings: { watch: ['/new'] },
      })),
      () => undefined,
    );
    const after = await read();
    expect(after).toHaveLength(4_500);
    expect(
      after.filter(
        (s) => s.origin === 'https://site-7.example' || s.origin === 'https://site-9.example',
      ),
    ).toEqual([
      {
        id: before[6]!.id,
        origin: 'https://site-7.example',
        settings: { watch: ['/new'] },
        gone: false,
      },
      {
        id: before[8]!.id,
        origin: 'https://site-9.example',
        settings: { watch: ['/new'] },
        gone: false,
      },
    ]);
  });
});
