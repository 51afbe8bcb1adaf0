/**
 * Coverage from the command line, as a user runs it: a loopback site whose robots.txt
 * names a sitemap index of a gzip urlset and a text sitemap; `robowatch check` reads them
 * after the check and `robowatch coverage` says, per crawler, how much of the site is
 * blocked and by which line — counts checked against Google's reference matcher. A second
 * check with unchanged sitemaps costs 304s. On the embedded database.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageDocument } from '../../src/monitor/documents/index.js';
import { runInProcess } from '../support/cli.js';
import { FixtureServer } from '../support/fixture-server.js';
import { referenceAllowedByRobots } from '../support/reference-matcher.js';
import { TestSmtpServer } from '../support/smtp.js';

const site = new FixtureServer();
const smtp = new TestSmtpServer();
beforeAll(async () => {
  await site.start();
  await smtp.start();
});
afterAll(async () => {
  await site.stop();
  await smtp.stop();
});

const PRODUCTS = Array.from({ length: 300 }, (_, i) =>
  i % 3 === 0 ? `/products/${i}?color=red` : `/products/${i}`,
);
const OTHERS = ['/', '/about', '/cart', '/cart/checkout', '/blog/post-1', '/blog/post-2?page=2'];

describe('robowatch coverage', () => {
  it('reads the sitemaps after a check and says how much each crawler may fetch, and why', async () => {
    const robots = () =>
      `User-agent: *\nDisallow: /cart\nDisallow: /*?\n\nUser-agent: GPTBot\nDisallow: /\n\nSitemap: ${site.origin}/sitemap_index.xml\n`;
    site.serve('/robots.txt', 200, robots());
    // With validators: a second check finds them unchanged.
    const withEtag = (path: string, body: string | Uint8Array, etag: string) =>
      site.routes.set(path, (req, res) => {
        if (req.headers['if-none-match'] === etag) {
          res.writeHead(304, { etag });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/xml', etag });
        res.end(body);
      });
    withEtag(
      '/sitemap_index.xml',
      `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.origin}/products.xml.gz</loc></sitemap><sitemap><loc>${site.origin}/pages.txt</loc></sitemap></sitemapindex>`,
      '"index-1"',
    );
    withEtag(
      '/products.xml.gz',
      gzipSync(
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${PRODUCTS.map((p) => `<url><loc>${site.origin}${p.replace('&', '&amp;')}</loc></url>`).join('')}<url><loc>https://elsewhere.example/x</loc></url></urlset>`,
      ),
      '"products-1"',
    );
    withEtag('/pages.txt', OTHERS.map((p) => site.origin + p).join('\n'), '"pages-1"');

    const dir = mkdtempSync(join(tmpdir(), 'robowatch-coverage-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
sitemaps: auto
watch: auto
sites:
  - url: ${site.origin}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 5000}
`,
    );
    const env = { DATABASE_URL: '' };
    const check = await runInProcess(['check', '--config', config], { env });
    expect([check.code, check.stderr]).toEqual([0, '']);
    // watch: auto: the home page and a few URLs of each large prefix of the sitemaps,
    // chosen once they are read: 8 URLs (/products/1, /products/0?color=red, /blog/post-1,
    // /blog/post-2?page=2, /about, /cart, /cart/checkout and /) for 2 crawlers; /*? and
    // /cart block 4 of them for Googlebot, GPTBot all 8.
    expect(check.stdout).toContain(
      'baseline   ok 200; 12 of 16 watched page × crawler pairs disallowed',
    );

    const json = await runInProcess(['coverage', site.origin, '--json', '--config', config], {
      env,
    });
    expect([json.code, json.stderr]).toEqual([0, '']);
    const doc = JSON.parse(json.stdout) as CoverageDocument;
    const paths = [...PRODUCTS, ...OTHERS];
    expect(doc.urls).toBe(paths.length);
    expect(doc.urlSet.otherOrigins).toBe(1);
    expect(
      doc.urlSet.sitemaps.map((s) => [s.url.slice(site.origin.length), s.format, s.entries]),
    ).toEqual([
      ['/sitemap_index.xml', 'index', 2],
      ['/products.xml.gz', 'urlset', 301],
      ['/pages.txt', 'text', 6],
    ]);
    // Google's reference matcher, URL by URL, says the same.
    const body = new TextEncoder().encode(robots());
    for (const agent of ['Googlebot', 'GPTBot']) {
      const blocked = paths.filter(
        (p) => !referenceAllowedByRobots(body, agent, `${site.origin}${p}`).allowed,
      );
      expect(doc.agents[agent]!.disallowed, agent).toBe(blocked.length);
      expect(doc.agents[agent]!.allowed, agent).toBe(paths.length - blocked.length);
    }
    expect(doc.agents['Googlebot']!.rules.slice(0, 2)).toEqual([
      expect.objectContaining({ line: 3, directive: 'disallow', pattern: '/*?', urls: 101 }),
      expect.objectContaining({ line: 2, directive: 'disallow', pattern: '/cart', urls: 2 }),
    ]);
    expect(doc.agents['Googlebot']!.prefixes[0]).toEqual({
      prefix: '/products/',
      disallowed: 100,
      urls: 300,
    });

    // Named without a scheme, the site watched on http is found.
    const text = await runInProcess(['coverage', new URL(site.origin).host, '--config', config], {
      env,
    });
    expect(text.stdout).toContain('Googlebot: 203 allowed, 103 disallowed (33.7%)');
    expect(text.stdout).toContain(
      '  line 3 `Disallow: /*?` blocks 101 URLs, e.g. /blog/post-2?page=2',
    );
    expect(text.stdout).toContain('GPTBot: 0 allowed, 306 disallowed (100%)');
    expect(text.stdout).toContain('1 URL of other sites in the sitemaps is not counted.');

    // Checked again with nothing changed: each sitemap answers 304, the set stays.
    const before = site.requests.length;
    const again = await runInProcess(['check', '--config', config], { env });
    expect(again.code).toBe(0);
    const asked = site.requests.slice(before).filter((r) => r.path !== '/robots.txt');
    expect(asked.map((r) => [r.path, r.headers['if-none-match']])).toEqual([
      ['/sitemap_index.xml', '"index-1"'],
      ['/products.xml.gz', '"products-1"'],
      ['/pages.txt', '"pages-1"'],
    ]);
    const after = JSON.parse(
      (await runInProcess(['coverage', site.origin, '--json', '--config', config], { env })).stdout,
    ) as CoverageDocument;
    expect(after.urlSet.id).toBe(doc.urlSet.id);
    expect(after.urlSet.sitemaps.every((s) => s.notModified)).toBe(true);
    expect(after.agents).toEqual(doc.agents);

    const unknown = await runInProcess(
      ['coverage', site.origin, '--snapshot', '99', '--config', config],
      { env },
    );
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      `robowatch: ${site.origin} has no snapshot 99\n`,
    ]);
  });

  it('alerts by email when a change blocks a share of the site that no watched page shows', async () => {
    site.routes.clear();
    const before = 'User-agent: *\nDisallow: /cart\n';
    site.serve('/robots.txt', 200, before);
    site.serve(
      '/sitemap.xml',
      200,
      [...PRODUCTS, ...OTHERS].map((p) => site.origin + p).join('\n'),
    );
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-coverage-alert-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, Bingbot]
watch: [/, /about]
sites:
  - url: ${site.origin}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 5000}
notify:
  email: {smtp: 'smtp://127.0.0.1:${smtp.port}', from: robowatch@example.com, to: [seo@example.com]}
`,
    );
    const env = { DATABASE_URL: '' };
    const first = await runInProcess(['check', '--config', config], { env });
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(smtp.received).toHaveLength(0); // a baseline alerts nothing

    // A rule that blocks every product page, and none of the watched pages.
    site.serve('/robots.txt', 200, `${before}Disallow: /products/\n`);
    const second = await runInProcess(['check', '--config', config], { env });
    expect([second.code, second.stderr]).toEqual([0, '']);
    expect(second.stdout).toContain(
      'Googlebot and Bingbot: 300 of 306 sitemap URLs (98.0%) newly disallowed',
    );
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.envelopeTo).toEqual(['seo@example.com']);
    expect(mail.parsed.subject).toContain(
      '300 sitemap URLs (98.0%) now disallowed for Googlebot and Bingbot (Disallow: /products/, line 3)',
    );
    expect(mail.parsed.text).toContain(
      'Mostly /products/ (300), by line 3 `Disallow: /products/`: they stop crawling these pages.',
    );
    // Crawlers that read the same rules are said once.
    const text = await runInProcess(['coverage', site.origin, '--config', config], { env });
    expect(text.stdout).toContain('\nGooglebot, Bingbot: 4 allowed, 302 disallowed (98.7%)\n');
    expect(text.stdout).toContain(
      'Submitted URL blocked by robots.txt: 302 of the 306 sitemap URLs are disallowed for Googlebot, which will not crawl them (line 3 `Disallow: /products/` blocks 300, e.g. /products/0?color=red; line 2 `Disallow: /cart` blocks 2, e.g. /cart). Take them out of the sitemaps or allow them.',
    );
    // The digest: it needs attention, and where each crawler stands now.
    const digest = await runInProcess(['digest', '--since', '1d', '--config', config], { env });
    expect([digest.code, digest.stderr]).toEqual([0, '']);
    expect(digest.stdout).toContain(
      ': 300 sitemap URLs (98.0%) now disallowed for Googlebot and Bingbot (Disallow: /products/, line 3).',
    );
    expect(digest.stdout).toContain(
      'Sitemap URLs they may fetch: Googlebot and Bingbot 4 of 306 (1.3%)',
    );
    // The diff says it too: each crawler's share before and after.
    const diff = await runInProcess(['diff', site.origin, '--config', config], { env });
    expect([diff.code, diff.stderr]).toEqual([0, '']);
    expect(diff.stdout).toContain(
      'Sitemap URLs each crawler may fetch (older -> newer):\n  Googlebot, Bingbot: 304 of 306 (99.3%) -> 4 of 306 (1.3%): 300 fewer URLs allowed\n',
    );
  });
});
