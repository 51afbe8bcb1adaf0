/**
 * `robowatch gate` as CI runs it: a draft robots.txt in a checkout, a configuration that
 * names the site (its watched pages, crawlers and intent), the live site on loopback with
 * its sitemap. Exit 0 lets the deploy go on, 1 stops it, 2 is a mistake in the command;
 * every format is read as its reader reads it. No database is opened, but to read an
 * intent set in the web UI.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../../src/store/db.js';
import { saveIntent } from '../../src/store/intent.js';
import { runInProcess } from '../support/cli.js';
import { FixtureServer } from '../support/fixture-server.js';

const site = new FixtureServer();
let repo = '';
let elsewhere = '';
const env = { DATABASE_URL: '' };

const POSTS = Array.from({ length: 200 }, (_, i) => `/blog/post-${i}`);
const ITEMS = Array.from({ length: 50 }, (_, i) => `/shop/item-${i}`);
const GOOD = 'User-agent: *\nDisallow: /admin\n\nUser-agent: GPTBot\nDisallow: /shop\n';
/** Blocks the pricing page (line 4) and the blog (line 3) for every crawler. */
const BAD = 'User-agent: *\nDisallow: /admin\nDisallow: /blog\nDisallow: /pricing\n';

beforeAll(async () => {
  await site.start();
  site.serve(
    '/robots.txt',
    200,
    `User-agent: *\nDisallow: /admin\nSitemap: ${site.origin}/sitemap.xml\n`,
  );
  site.serve(
    '/sitemap.xml',
    200,
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[...POSTS, ...ITEMS, '/pricing'].map((p) => `<url><loc>${site.origin}${p}</loc></url>`).join('')}</urlset>`,
    { 'content-type': 'application/xml' },
  );
  // A checkout: the configuration and the draft, as a repository holds them.
  repo = mkdtempSync(join(tmpdir(), 'robowatch-gate-'));
  mkdirSync(join(repo, 'config'));
  mkdirSync(join(repo, 'public'));
  writeFileSync(
    join(repo, 'config', 'robowatch.yaml'),
    `dataDir: ${join(repo, 'data')}
fetch: {allowPrivateAddresses: 'loopback', timeoutMs: 5000}
sites:
  - url: ${site.origin}
    name: Shop
    watch: [/, /pricing, /blog/post-1, /shop/item-1]
    agents: [Googlebot, Bingbot, GPTBot]
    intent:
      - {watch: /*, agents: [Googlebot, Bingbot], expect: allowed}
      - {watch: /shop/*, agents: [GPTBot], expect: disallowed}
`,
  );
  writeFileSync(join(repo, 'public', 'good.txt'), GOOD);
  writeFileSync(join(repo, 'public', 'bad.txt'), BAD);
  elsewhere = mkdtempSync(join(tmpdir(), 'robowatch-gate-bare-'));
});
afterAll(async () => {
  await site.stop();
});

const gate = (args: string[], options: { cwd?: string; stdin?: string } = {}) =>
  runInProcess(['gate', ...args], { cwd: options.cwd ?? repo, env, ...options });

describe('robowatch gate', () => {
  it('passes a draft that keeps the site as intended (exit 0), reading the live file and its sitemap', async () => {
    const before = site.requests.length;
    // The site is watched on http: named without a scheme, as people type it, it is found.
    const run = await gate(['public/good.txt', '--site', new URL(site.origin).host]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('Live file: ' + site.origin + '/robots.txt answers 200');
    expect(run.stdout).toContain('sitemap URL set: 251 URLs');
    expect(run.stdout).toContain(
      'PASS: the draft keeps Shop (127.0.0.1:' + new URL(site.origin).port + ') as intended',
    );
    const paths = site.requests.slice(before).map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml']));
    // No database: the data directory is never made.
    expect(() => readFileSync(join(repo, 'data'))).toThrow();
  });

  it('stops a draft that breaks the intent (exit 1), with GitHub annotations on its lines', async () => {
    const run = await gate(['public/bad.txt', '--site', site.origin, '--format', 'github']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `robowatch: gate failed: the draft must not ship for Shop (${new URL(site.origin).host}); the report above says why\n`,
    );
    const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors).toContain(
      '::error file=public/bad.txt,line=4,title=robowatch gate%3A Not as intended::`/pricing` is blocked for Googlebot and Bingbot, meant to be crawled. Why: Disallow: /pricing (line 4) blocks pages meant to be crawled.',
    );
    expect(errors.some((l) => l.startsWith('::error file=public/bad.txt,line=3,'))).toBe(true);
  });

  it('writes a JUnit report to -o FILE that a JUnit reader takes in', async () => {
    const out = join(repo, 'gate.xml');
    const run = await gate([
      'public/bad.txt',
      '--site',
      site.origin,
      '--format',
      'junit',
      '-o',
      out,
    ]);
    expect([run.code, run.stdout]).toEqual([1, '']);
    const xml = readFileSync(out, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
      testsuites: {
        testsuite: { failures: string; testcase: { name: string; failure?: object }[] };
      };
    };
    const failed = doc.testsuites.testsuite.testcase.filter((c) => c.failure).map((c) => c.name);
    expect(failed).toEqual([
      `as intended: ${site.origin}/pricing`,
      `as intended: ${site.origin}/blog/post-1`,
      // GPTBot is meant to be kept out of the shop: the live file and the draft let it in.
      `as intended: ${site.origin}/shop/item-1`,
      'sitemap URL set: Googlebot',
      'sitemap URL set: Bingbot',
      // The blog, newly blocked for GPTBot too (the shop, meant to be, is not counted).
      'sitemap URL set: GPTBot',
    ]);
    expect(doc.testsuites.testsuite.failures).toBe('6');
  });

  it('judges any site with --against, without a configuration: the draft on standard input, as JSON', async () => {
    const args = [
      '-',
      '--against',
      site.origin,
      '--watch',
      '/pricing',
      '--agent',
      'Googlebot',
      '--allow-loopback',
      '--format',
      'json',
    ];
    const bad = await gate(args, { cwd: elsewhere, stdin: BAD });
    expect(bad.code).toBe(1);
    const doc = JSON.parse(bad.stdout) as {
      passed: boolean;
      intent: { violations: { url: string; line: number }[] };
    };
    expect(doc.passed).toBe(false);
    expect(doc.intent.violations).toEqual([
      expect.objectContaining({ url: `${site.origin}/pricing`, line: 4 }),
    ]);
    const good = await gate(args, { cwd: elsewhere, stdin: GOOD });
    expect([good.code, good.stderr]).toEqual([0, '']);
    expect((JSON.parse(good.stdout) as { passed: boolean }).passed).toBe(true);
  });

  it('says where the live file came from when robots.txt redirects to another host', async () => {
    const other = await new FixtureServer().start('127.0.0.2');
    try {
      other.serve('/robots.txt', 301, '', { location: `${site.origin}/robots.txt` });
      const args = ['-', '--against', other.origin, '--watch', '/pricing', '--no-sitemaps'];
      const run = await gate([...args, '--allow-loopback'], {
        cwd: elsewhere,
        stdin: GOOD,
      });
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toContain(
        `Live file: ${other.origin}/robots.txt answers 200 from ${site.origin}/robots.txt (redirected)\n`,
      );
      const json = await gate([...args, '--allow-private-addresses', '--format', 'json'], {
        cwd: elsewhere,
        stdin: GOOD,
      });
      expect((JSON.parse(json.stdout) as { live: { redirect: unknown } }).live.redirect).toEqual({
        to: `${site.origin}/robots.txt`,
        hops: 1,
      });
    } finally {
      await other.stop();
    }
  });

  it('prints the draft’s control characters as escapes, in the text and GitHub reports', async () => {
    const draft = `${GOOD}Foo\u001b[2J\u001b]0;pwned\u0007: bar\n`;
    for (const format of ['text', 'github']) {
      const run = await gate(
        [
          '-',
          '--against',
          site.origin,
          '--watch',
          '/',
          '--no-sitemaps',
          '--allow-private-addresses',
          '--format',
          format,
        ],
        { cwd: elsewhere, stdin: draft },
      );
      expect(run.code).toBe(0);
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(run.stdout).toContain('Unknown key "Foo\\x1b[2J\\x1b]0;pwned\\x07" on line 6');
    }
  });

  it('exits 2 in one line, naming the flag, when the live file is at an address robowatch does not fetch', async () => {
    const before = site.requests.length;
    const run = await gate(['-', '--against', site.origin, '--watch', '/pricing'], {
      cwd: elsewhere,
      stdin: GOOD,
    });
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr.trim().split('\n')).toEqual([
      `robowatch: cannot read the live robots.txt ${site.origin}/robots.txt: 127.0.0.1 is a private or reserved address, which robowatch does not fetch, so what crawlers find there is not known; --allow-loopback fetches it if it is on this machine, --allow-private-addresses (or fetch.allowPrivateAddresses: true) if it is on this network (a staging site)`,
    ]);
    // --allow-loopback reaches this machine only: an address that is not loopback is still
    // refused, and the line names only the flag that would reach it.
    const unspecified = `http://0.0.0.0:${new URL(site.origin).port}`;
    const narrow = await gate(
      ['-', '--against', unspecified, '--watch', '/pricing', '--allow-loopback'],
      { cwd: elsewhere, stdin: GOOD },
    );
    expect([narrow.code, narrow.stdout]).toEqual([2, '']);
    expect(narrow.stderr.trim().split('\n')).toEqual([
      `robowatch: cannot read the live robots.txt ${unspecified}/robots.txt: 0.0.0.0 is a private or reserved address, which robowatch does not fetch, so what crawlers find there is not known; --allow-private-addresses (or fetch.allowPrivateAddresses: true) fetches it (a staging site on this network)`,
    ]);
    // Refused before connecting: the site never heard of it.
    expect(site.requests.length).toBe(before);
  });

  it('finds a site added outside the file (imported, in the database) when the file does not list it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-gate-db-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}\nwatch: [/, /pricing]\nagents: [Googlebot]\nfetch: {allowPrivateAddresses: 'loopback'}\n`,
    );
    writeFileSync(join(dir, 'list.txt'), `${site.origin}\n`);
    const imported = await runInProcess(
      ['sites', 'import', '--config', config, join(dir, 'list.txt')],
      {
        env,
      },
    );
    expect([imported.code, imported.stderr]).toEqual([0, '']);
    const run = await gate([
      join(repo, 'public', 'bad.txt'),
      '--site',
      site.origin,
      '--config',
      config,
      '--no-sitemaps',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Watched: 2 pages × 1 crawler');
    expect(run.stdout).toContain('line 4: Not as intended: `/pricing` is blocked for Googlebot');
  });

  it('judges a site of the file against its intent set in the web UI, as the daemon alerts on it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-gate-web-intent-'));
    const config = join(dir, 'robowatch.yaml');
    // No intent in the file: the built-in one (the search engines everywhere) judges it.
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}\nagents: [Googlebot, GPTBot]\nfetch: {allowPrivateAddresses: 'loopback'}\nsites:\n  - url: ${site.origin}\n    watch: [/, /shop/item-1]\n`,
    );
    const draft = join(repo, 'public', 'open.txt');
    writeFileSync(draft, 'User-agent: *\nDisallow: /admin\n');
    const args = [draft, '--site', site.origin, '--config', config, '--no-sitemaps'];
    // No database yet: the file's site as the file gives it.
    const before = await gate(args);
    expect([before.code, before.stderr]).toEqual([0, '']);
    expect(before.stdout).toContain('the built-in intent judges 2 pairs');
    // Checked once (its row), then GPTBot is meant to be kept out of the shop, in the web.
    const checked = await runInProcess(['check', '--config', config], { env });
    expect([checked.code, checked.stderr]).toEqual([0, '']);
    const handle = await openDatabase({ url: undefined, dataDir: join(dir, 'data') });
    try {
      const [row] = await queryRows<{ id: number }>(
        handle.db,
        sql`SELECT id FROM sites WHERE origin = ${site.origin}`,
      );
      await saveIntent(handle.db, row!.id, [
        { watch: '/*', agents: ['Googlebot'], expect: 'allowed' },
        { watch: '/shop/*', agents: ['GPTBot'], expect: 'disallowed' },
      ]);
    } finally {
      await handle.close();
    }
    const run = await gate(args);
    expect([run.code, run.stderr]).toEqual([1, expect.stringContaining('gate failed')]);
    expect(run.stdout).toContain('its intent set in the web UI judges 3 pairs');
    expect(run.stdout).toContain(
      'once deployed, /shop/item-1 would be open to GPTBot (1 watched page × crawler pair differs from the intent)',
    );
    // A database that cannot be read: judged against the file, and said on standard error.
    const unread = await runInProcess(['gate', ...args], {
      cwd: repo,
      env: { DATABASE_URL: 'postgres://robowatch@127.0.0.1:1/robowatch' },
    });
    expect(unread.code).toBe(0);
    expect(unread.stderr).toMatch(
      /^robowatch: gate: http:\/\/127\.0\.0\.1:\d+ is judged against .*robowatch\.yaml alone: its database cannot be read here \(.+\), so an intent set in the web UI is not applied\n$/,
    );
  });

  it.each([
    [['public/good.txt'], 'name the site: --site ORIGIN'],
    [['public/good.txt', '--site', 'SITE', '--format', 'xml'], '--format must be one of'],
    [['public/missing.txt', '--site', 'http://127.0.0.1:1'], 'is not a site of'],
    [['public/missing.txt', '--against', 'http://127.0.0.1:1'], 'cannot read draft robots.txt'],
    [['public/good.txt', '--site', 'x', '--watch', '/'], '--watch and --agent go with --against'],
    [['public/good.txt', '--against', 'https://example.com/blog'], '--against must be a site'],
    [['public/good.txt', '--site', 'x', '--config', 'nope.yaml'], 'cannot read the configuration'],
  ])('exits 2 with one line on a usage error: %j', async (args, message) => {
    const run = await gate(args.map((a) => a.replace('SITE', site.origin)));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
