import { hash } from 'node:crypto';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { CACHED_FROM_BYTES, cacheDirectory, TreeCache } from '../../../src/config/tree-cache.js';

/** A configuration of `sites` sites, each with its own watch list (about 125 bytes a site). */
function fleet(sites: number, path = '/pricing'): string {
  const watch = JSON.stringify(['/', path, '/blog/', '/docs/manual.pdf', '/search?q=robots']);
  const lines = Array.from(
    { length: sites },
    (_, i) => `  - {url: 'https://site-${i}.example', name: 'Site ${i}', watch: ${watch}}`,
  );
  return `agents: [Googlebot, GPTBot]\nsites:\n${lines.join('\n')}\n`;
}

/**
 * An entry's form (tree-cache.ts): each site's watch list once, in `lists`, and the
 * file's form in `value`.
 */
interface EntryForm<T> {
  lists: string[][];
  watch: number[];
  value: T;
}

function setUp(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-tree-cache-'));
  const path = join(dir, 'robowatch.yaml');
  writeFileSync(path, text);
  const cacheDir = join(dir, 'cache');
  const load = (env: Record<string, string> = { ROBOWATCH_CACHE_DIR: cacheDir }, build?: string) =>
    loadConfig({ path, cwd: dir, env, version: '1', build });
  const entries = () => {
    try {
      return readdirSync(cacheDir);
    } catch {
      return [];
    }
  };
  return { dir, path, cacheDir, load, entries };
}

describe('a large configuration kept between commands', () => {
  const big = fleet(700);

  it('is read back as the same configuration, from one entry per file', async () => {
    expect(big.length).toBeGreaterThan(CACHED_FROM_BYTES);
    const { load, entries, cacheDir } = setUp(big);
    const first = await load();
    expect(entries()).toHaveLength(1);
    const second = await load();
    expect(second.sites.map((s) => [s.origin, s.name, s.watches])).toEqual(
      first.sites.map((s) => [s.origin, s.name, s.watches]),
    );
    expect(second.sites[699]!.watches).toContain('https://site-699.example/pricing');
    // The entry is what the second command read: a tree kept for these bytes is used.
    const [entry] = entries();
    const [header, json] = readFileSync(join(cacheDir, entry!), 'utf8').split('\n');
    const tree = JSON.parse(json!) as EntryForm<{ sites: { name: string }[] }>;
    tree.value.sites[0]!.name = 'Read from the cache';
    writeFileSync(join(cacheDir, entry!), `${header}\n${JSON.stringify(tree)}`);
    expect((await load()).sites[0]!.name).toBe('Read from the cache');
  });

  it("writes each site's watch list once, and gives the sites listing the same one a shared list", async () => {
    // 700 sites with the same list written out, one with a list of its own, one whose
    // list needs normalising (a URL), one choosing its watches: each reads back as written.
    const text = `${fleet(700)}  - {url: 'https://own.example', watch: ['/a', '/b']}
  - {url: 'https://full.example', watch: ['https://full.example/x/../y']}
  - {url: 'https://auto.example', watch: auto}
`;
    for (const build of [undefined, 'build-a']) {
      const { load, entries, cacheDir } = setUp(text);
      const first = await load({ ROBOWATCH_CACHE_DIR: cacheDir }, build);
      const entry = readFileSync(join(cacheDir, entries()[0]!), 'utf8');
      // The 700 copies of the list are one: the entry is a fraction of the file.
      expect(entry.length).toBeLessThan(text.length * 0.6);
      const form = JSON.parse(entry.split('\n')[1]!) as EntryForm<unknown>;
      expect(form.lists).toEqual([
        ['/', '/pricing', '/blog/', '/docs/manual.pdf', '/search?q=robots'],
        ['/a', '/b'],
        ['https://full.example/x/../y'],
      ]);
      const again = await load({ ROBOWATCH_CACHE_DIR: cacheDir }, build);
      expect(again.sites.map((s) => [s.origin, s.watches, s.watchAuto])).toEqual(
        first.sites.map((s) => [s.origin, s.watches, s.watchAuto]),
      );
      expect(again.sites.at(-3)!.watches).toEqual([
        'https://own.example/a',
        'https://own.example/b',
      ]);
      expect(again.sites.at(-2)!.watches).toEqual(['https://full.example/y']);
      expect(again.sites.at(-1)!.watchAuto).toBe(true);
    }
  });

  it('is parsed again once the file is edited, and still validated and resolved each time', async () => {
    const { path, load, entries } = setUp(big);
    await load();
    writeFileSync(path, fleet(700, '/offers'));
    const edited = await load();
    expect(edited.sites[0]!.watches).toContain('https://site-0.example/offers');
    expect(entries()).toHaveLength(1);
    // The environment is read afresh: a setting from it is not kept with the tree.
    writeFileSync(
      path,
      `${fleet(700)}notify: {email: {smtp: '\${SMTP_URL}', from: robowatch@example.com, to: [a@example.com]}}\n`,
    );
    const env = (smtp?: string) => ({
      ROBOWATCH_CACHE_DIR: join(path, '..', 'cache'),
      ...(smtp === undefined ? {} : { SMTP_URL: smtp }),
    });
    expect((await load(env('smtp://mail.example:25'))).notify.email).toMatchObject({
      smtp: 'smtp://mail.example:25',
    });
    await expect(load(env())).rejects.toThrow('environment variable SMTP_URL is not set');
  });

  it("is parsed again when its entry is cut short, and a small file's tree is not kept", async () => {
    const { load, entries, cacheDir } = setUp(big);
    await load();
    const entry = join(cacheDir, entries()[0]!);
    const whole = readFileSync(entry, 'utf8');
    writeFileSync(entry, whole.slice(0, whole.length / 2));
    expect((await load()).sites).toHaveLength(700);
    expect(readFileSync(entry, 'utf8')).toBe(whole);

    const small = setUp(fleet(3));
    expect((await small.load()).sites).toHaveLength(3);
    expect(small.entries()).toEqual([]);
  });

  it("keeps a small file's validated form for a bundled build, read back unvalidated", async () => {
    const small = setUp(fleet(3));
    const env = { ROBOWATCH_CACHE_DIR: small.cacheDir };
    expect((await small.load(env, 'build-a')).sites).toHaveLength(3);
    expect(small.entries()).toEqual([expect.stringMatching(/^config-[0-9a-f]{40}-build-a\.json$/)]);
    // Its defaults filled in, the form is several times the file, and still kept.
    const entry = join(small.cacheDir, small.entries()[0]!);
    const [header, json] = readFileSync(entry, 'utf8').split('\n');
    expect(json!.length).toBeGreaterThan(2 * fleet(3).length);
    // What the file holds is kept for its owner alone.
    expect(statSync(entry).mode & 0o777).toBe(0o600);
    expect(statSync(small.cacheDir).mode & 0o777).toBe(0o700);
    const checked = JSON.parse(json!) as EntryForm<{ sites: { name: string }[] }>;
    checked.value.sites[2]!.name = 'Read from the cache';
    writeFileSync(entry, `${header}\n${JSON.stringify(checked)}`);
    expect((await small.load(env, 'build-a')).sites[2]!.name).toBe('Read from the cache');
  });

  it('never stops a command: an unwritable cache directory, or none', async () => {
    const { dir, load } = setUp(big);
    const notADirectory = join(dir, 'robowatch.yaml');
    expect((await load({ ROBOWATCH_CACHE_DIR: notADirectory })).sites).toHaveLength(700);
    expect((await load({ ROBOWATCH_CACHE_DIR: 'off', HOME: dir })).sites).toHaveLength(700);
    expect(readdirSync(dir)).toEqual(['robowatch.yaml']);
  });

  it('keeps no tree JSON would change (.inf) or that aliases make much larger than the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-tree-cache-'));
    const bytes = Buffer.from('x'.repeat(CACHED_FROM_BYTES));
    const cache = new TreeCache(dir, 'robowatch.yaml', dir, bytes, '1');
    const tree = (value: unknown) => ({ kind: 'tree', value }) as const;
    await cache.write(tree({ fetch: { timeoutMs: Number.POSITIVE_INFINITY } }));
    const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
    await cache.write(tree({ sites: Array.from({ length: 5_000 }, () => ({ tags })) }));
    expect(readdirSync(dir)).toEqual([]);
    // One watch list aliased by every site is written once, and read back shared.
    const watch = Array.from({ length: 20 }, (_, i) => `/page-${i}`);
    expect(
      await cache.write(tree({ sites: Array.from({ length: 5_000 }, () => ({ watch })) })),
    ).toBe(true);
    const read = (await cache.read()) as { value: { sites: { watch: string[] }[] } };
    expect(read.value.sites).toHaveLength(5_000);
    expect(read.value.sites[4_999]!.watch).toEqual(watch);
    expect(read.value.sites[4_999]!.watch).toBe(read.value.sites[0]!.watch);
    await cache.write(tree({ sites: [{ url: 'https://example.com', watch: ['/'] }] }));
    expect(await cache.read()).toEqual(
      tree({ sites: [{ url: 'https://example.com', watch: ['/'] }] }),
    );
  });

  it('forgets entries not written for 30 days when it writes another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-tree-cache-'));
    const bytes = Buffer.from('x'.repeat(CACHED_FROM_BYTES));
    const tree = {
      kind: 'tree',
      value: { sites: [{ url: 'https://example.com', watch: ['/'] }] },
    } as const;
    const cacheOf = (file: string) => new TreeCache(dir, file, '/', bytes, '1');
    const entryOf = (file: string) => join(dir, `config-${hash('sha1', file, 'hex')}.json`);
    await cacheOf('/gone/robowatch.yaml').write(tree);
    await cacheOf('/kept/robowatch.yaml').write(tree);
    // A build's validated form of a file gone is forgotten too.
    const built = new TreeCache(dir, '/gone/robowatch.yaml', '/', bytes, '1', 'b');
    await built.write({ kind: 'checked', value: tree.value });
    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    utimesSync(entryOf('/gone/robowatch.yaml').replace(/\.json$/, '-b.json'), days(31), days(31));
    utimesSync(entryOf('/gone/robowatch.yaml'), days(31), days(31));
    utimesSync(entryOf('/kept/robowatch.yaml'), days(29), days(29));
    writeFileSync(join(dir, 'notes.txt'), 'not robowatch’s');
    utimesSync(join(dir, 'notes.txt'), days(400), days(400));
    await cacheOf('/new/robowatch.yaml').write(tree);
    expect(await cacheOf('/gone/robowatch.yaml').read()).toBeUndefined();
    expect(await built.read()).toBeUndefined();
    expect(await cacheOf('/kept/robowatch.yaml').read()).toEqual(tree);
    expect(readdirSync(dir)).toHaveLength(3);
  });

  it('keeps the validated form for the bundled build that made it, and no other build reads it', async () => {
    const { load, entries, cacheDir } = setUp(big);
    const env = { ROBOWATCH_CACHE_DIR: cacheDir };
    const first = await load(env, 'build-a');
    expect(entries()).toHaveLength(1);
    const [entry] = entries();
    expect(entry).toMatch(/^config-[0-9a-f]{40}-build-a\.json$/);
    const [header, json] = readFileSync(join(cacheDir, entry!), 'utf8').split('\n');
    expect(header).toMatch(/^robowatch 1 config checked [0-9a-f]{64} build build-a$/);
    // What is kept is the schema's output (defaults filled in), not the file's tree.
    const checked = JSON.parse(json!) as EntryForm<{
      sites: { name: string }[];
      fetch: { concurrency?: unknown };
    }>;
    expect(typeof checked.value.fetch.concurrency).toBe('number');
    expect((await load(env, 'build-a')).sites.map((s) => [s.origin, s.watches])).toEqual(
      first.sites.map((s) => [s.origin, s.watches]),
    );
    // The entry is what the same build reads back, unchecked...
    checked.value.sites[0]!.name = 'Read from the cache';
    writeFileSync(join(cacheDir, entry!), `${header}\n${JSON.stringify(checked)}`);
    expect((await load(env, 'build-a')).sites[0]!.name).toBe('Read from the cache');
    // ...and what another build, or a run from the sources, never reads: each validates
    // the file again and keeps an entry of its own, leaving the first build's as it was.
    expect((await load(env, 'build-b')).sites[0]!.name).toBe('Site 0');
    expect((await load(env)).sites[0]!.name).toBe('Site 0');
    expect(entries()).toHaveLength(3);
    expect((await load(env, 'build-a')).sites[0]!.name).toBe('Read from the cache');
    // An entry this build cannot resolve (edited by hand) is passed over, and written again.
    const unresolvable = { lists: [], watch: [], value: { sites: 5 } };
    writeFileSync(join(cacheDir, entry!), `${header}\n${JSON.stringify(unresolvable)}`);
    expect((await load(env, 'build-a')).sites[0]!.name).toBe('Site 0');
    // So is one that is not an entry's form at all.
    writeFileSync(join(cacheDir, entry!), `${header}\n${JSON.stringify({ sites: 5 })}`);
    expect((await load(env, 'build-a')).sites[0]!.name).toBe('Site 0');
    expect(readFileSync(join(cacheDir, entry!), 'utf8')).toContain('"name":"Site 0"');
  });

  it('applies the environment afresh to a validated form, and makes one from a kept tree', async () => {
    const text = `${fleet(700)}notify: {email: {smtp: '\${SMTP_URL}', from: robowatch@example.com, to: [a@example.com]}}\n`;
    const { load, entries, cacheDir } = setUp(text);
    const env = (smtp?: string) => ({
      ROBOWATCH_CACHE_DIR: cacheDir,
      ...(smtp === undefined ? {} : { SMTP_URL: smtp }),
    });
    await load(env('smtp://one.example:25'));
    expect(entries()).toHaveLength(1);
    expect(readFileSync(join(cacheDir, entries()[0]!), 'utf8')).toMatch(/ config tree /);
    expect((await load(env('smtp://two.example:25'), 'b')).notify.email).toMatchObject({
      smtp: 'smtp://two.example:25',
    });
    const built = entries().find((name) => name.endsWith('-b.json'));
    expect(readFileSync(join(cacheDir, built!), 'utf8')).toMatch(/ config checked .* build b\n/);
    expect((await load(env('smtp://three.example:25'), 'b')).notify.email).toMatchObject({
      smtp: 'smtp://three.example:25',
    });
    await expect(load(env(), 'b')).rejects.toThrow('environment variable SMTP_URL is not set');
  });

  it('keeps no validated form that JSON would not give back as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-tree-cache-'));
    const bytes = Buffer.from('x'.repeat(CACHED_FROM_BYTES));
    const cache = new TreeCache(dir, 'robowatch.yaml', dir, bytes, '1', 'b');
    // Not kept, and said so: the loader then keeps the tree instead.
    expect(await cache.write({ kind: 'checked', value: { web: { sessionDays: undefined } } })).toBe(
      false,
    );
    expect(await cache.write({ kind: 'checked', value: { at: new Date(0) } })).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    expect(await cache.write({ kind: 'checked', value: { fetch: { concurrency: 16 } } })).toBe(
      true,
    );
    expect(await cache.read()).toEqual({ kind: 'checked', value: { fetch: { concurrency: 16 } } });
    // A cache without a build keeps trees only.
    const unnamed = new TreeCache(
      mkdtempSync(join(tmpdir(), 'robowatch-tree-cache-')),
      'robowatch.yaml',
      dir,
      bytes,
      '1',
    );
    expect(unnamed.keepsChecked).toBe(false);
  });

  it('lives in ROBOWATCH_CACHE_DIR, else $XDG_CACHE_HOME/robowatch, else ~/.cache/robowatch', () => {
    expect(cacheDirectory({ ROBOWATCH_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(
      '/c',
    );
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/robowatch');
    expect(cacheDirectory({ HOME: '/h' })).toBe('/h/.cache/robowatch');
    expect(cacheDirectory({ ROBOWATCH_CACHE_DIR: 'off', HOME: '/h' })).toBeUndefined();
    expect(cacheDirectory({})).toBeUndefined();
  });
});
