/**
 * Discovering a site's URLs from its sitemaps over real loopback HTTP: an index of gzip
 * files, a text sitemap, broken XML, a file past the 50,000-URL limit, an index loop,
 * entries of other origins, a decompression bomb, a refused address, a deadline, the
 * site's cap, and an unchanged sitemap costing one 304.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import type { RobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { DEFAULT_DISCOVERY_LIMITS, discoverSitemaps } from '../../../src/monitor/check/sitemaps.js';
import type {
  Discovery,
  DiscoveryLimits,
  KnownSitemap,
} from '../../../src/monitor/check/sitemaps.js';
import { FixtureServer } from '../../support/fixture-server.js';

const site = new FixtureServer();
const elsewhere = new FixtureServer(); // 127.0.0.2: refused by the guard in one test
let fetcher: RobotsFetcher;
let guarded: RobotsFetcher;

beforeAll(async () => {
  await site.start('127.0.0.1');
  await elsewhere.start('127.0.0.2');
  fetcher = createRobotsFetcher({
    userAgent: 'robowatch-test',
    timeoutMs: 10_000,
    allowPrivateAddresses: 'loopback',
  });
  guarded = createRobotsFetcher({
    userAgent: 'robowatch-test',
    timeoutMs: 10_000,
    allowPrivateAddresses: false,
    isAddressAllowed: (address) => address !== '127.0.0.2',
  });
});
afterEach(() => {
  for (const s of [site, elsewhere]) {
    s.routes.clear();
    s.requests.length = 0;
  }
});
afterAll(async () => {
  await fetcher.close();
  await guarded.close();
  await site.stop();
  await elsewhere.stop();
});

const urlset = (locs: readonly string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${locs
    .map((l) => `<url><loc>${l}</loc></url>`)
    .join('\n')}\n</urlset>`;
const index = (locs: readonly string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<sitemap><loc>${l}</loc></sitemap>`)
    .join('')}</sitemapindex>`;
const pages = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `${site.origin}/p/${from + i}`);
/** The paths discovery gives for pages(from, to). */
const paths = (from: number, to: number) => pages(from, to).map((p) => p.slice(site.origin.length));

const discover = (
  roots: readonly string[],
  limits: Partial<DiscoveryLimits> = {},
  known: ReadonlyMap<string, KnownSitemap> = new Map(),
  using = fetcher,
): Promise<Discovery> =>
  discoverSitemaps(
    { fetchDocument: (r) => using.fetchDocument(r), known: (url) => known.get(url) },
    site.origin,
    roots,
    { ...DEFAULT_DISCOVERY_LIMITS, ...limits },
  );

describe('sitemap discovery', () => {
  it('follows an index to gzip files and a text sitemap, counting other origins', async () => {
    site.serve('/sitemap.xml', 200, index([`${site.origin}/s1.xml.gz`, `${site.origin}/s2.txt`]), {
      'content-type': 'application/xml',
    });
    // A .xml.gz file as servers send it: gzip bytes, no Content-Encoding.
    site.serve('/s1.xml.gz', 200, gzipSync(urlset([...pages(0, 3), 'https://cdn.example/p/9'])), {
      'content-type': 'application/x-gzip',
    });
    site.serve('/s2.txt', 200, [...pages(3, 5), pages(0, 1)[0]].join('\n'));
    const found = await discover([`${site.origin}/sitemap.xml`]);
    expect(found.paths).toEqual(paths(0, 5));
    expect(found.otherOrigins).toBe(1);
    expect(found.problems).toEqual([]);
    expect(
      found.files.map((f) => [
        f.url.slice(site.origin.length),
        f.depth,
        f.format,
        f.entries.length,
      ]),
    ).toEqual([
      ['/sitemap.xml', 1, 'index', 2],
      ['/s1.xml.gz', 2, 'urlset', 4],
      ['/s2.txt', 2, 'text', 3],
    ]);
  });

  it('says what is wrong with each file and keeps what could be read', async () => {
    site.serve('/broken.xml', 200, urlset(pages(0, 2)).replace('</urlset>', '<url><loc>'));
    site.serve('/big.xml', 200, urlset(pages(100, 60_100)));
    site.serve('/gone.xml', 404, 'not here');
    site.serve('/page.xml', 200, '<!DOCTYPE html><html><body>Welcome</body></html>', {
      'content-type': 'text/html',
    });
    const found = await discover(
      ['/broken.xml', '/big.xml', '/gone.xml', '/page.xml'].map((p) => site.origin + p),
    );
    const problems = Object.fromEntries(
      found.files.map((f) => [f.url.slice(site.origin.length), f.problems]),
    );
    expect(problems['/broken.xml']).toEqual([
      expect.stringMatching(/^invalid XML at line \d+, column \d+: /),
    ]);
    expect(problems['/big.xml']).toEqual([
      'lists over 50,000 URLs (the sitemaps.org limit): 10,000 left out',
    ]);
    expect(problems['/gone.xml']).toEqual(['answered 404']);
    expect(problems['/page.xml']).toEqual(['not a sitemap: an HTML page']);
    expect(found.paths).toHaveLength(2 + 50_000);
  });

  it('reads each sitemap once through an index loop, and stops at the depth limit', async () => {
    site.serve('/a.xml', 200, index([`${site.origin}/b.xml`, `${site.origin}/leaf.xml`]));
    site.serve('/b.xml', 200, index([`${site.origin}/a.xml`, `${site.origin}/c.xml`]));
    site.serve('/c.xml', 200, index([`${site.origin}/deep.xml`]));
    site.serve('/leaf.xml', 200, urlset(pages(0, 1)));
    site.serve('/deep.xml', 200, urlset(pages(1, 2)));
    const found = await discover([`${site.origin}/a.xml`], { maxDepth: 3 });
    expect(found.paths).toEqual(paths(0, 1));
    expect(found.problems).toEqual([
      `${site.origin}/b.xml: lists 1 sitemap read already (a loop or a repeat): read once`,
      `${site.origin}/c.xml: lists 1 sitemap deeper than 3 levels of indexes: not read`,
    ]);
    expect(site.requests.filter((r) => r.path === '/a.xml')).toHaveLength(1);
    expect(site.requests.some((r) => r.path === '/deep.xml')).toBe(false);
  });

  it('reads no sitemap an index lists on another host, unless robots.txt names it', async () => {
    // The other host (127.0.0.2) would give URLs of the site: sitemaps.org lets an index
    // list only sitemaps of its own host; the site's robots.txt may name others.
    elsewhere.serve('/planted.xml', 200, urlset(pages(10, 12)));
    elsewhere.serve('/named.xml', 200, urlset(pages(20, 21)));
    site.serve(
      '/sitemap.xml',
      200,
      index([
        `${site.origin}/own.xml`,
        `${elsewhere.origin}/planted.xml`,
        `${elsewhere.origin}/named.xml`,
      ]),
    );
    site.serve('/own.xml', 200, urlset(pages(0, 2)));
    const found = await discover([`${site.origin}/sitemap.xml`]);
    expect(found.paths).toEqual(paths(0, 2));
    expect(found.problems).toEqual([
      `${site.origin}/sitemap.xml: lists 2 sitemaps on other hosts (${elsewhere.origin}/planted.xml, ${elsewhere.origin}/named.xml): not read, as sitemaps.org asks (an index lists sitemaps of its own host; name others in robots.txt)`,
    ]);
    expect(elsewhere.requests).toHaveLength(0);
    // Named by robots.txt (a root), the other host's sitemap is read.
    const named = await discover([`${site.origin}/sitemap.xml`, `${elsewhere.origin}/named.xml`]);
    expect(named.paths).toEqual([...paths(20, 21), ...paths(0, 2)]);
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/named.xml']);
  });

  it('stops a decompression bomb at 50 MB, and keeps the site to its cap', async () => {
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from(urlset(pages(0, 8)).replace('</urlset>', '')),
        Buffer.alloc(60 * 1024 * 1024, 0x20),
      ]),
    );
    expect(bomb.length).toBeLessThan(200_000);
    site.serve('/bomb.xml.gz', 200, bomb);
    const found = await discover([`${site.origin}/bomb.xml.gz`], { maxUrls: 5 });
    expect(found.files[0]!.problems).toContain(
      'is over 50 MB uncompressed (the sitemaps.org limit): read up to there',
    );
    expect(found.paths).toEqual(paths(0, 5));
    expect(found.overCap).toBe(3);
    expect(found.problems).toEqual(['the sitemaps list more than 5 URLs of the site: 3 left out']);
  });

  it('refuses a sitemap on a private address, and gives up at the deadline', async () => {
    elsewhere.serve('/sitemap.xml', 200, urlset(pages(0, 1)));
    site.routes.set('/slow.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write('<urlset>'); // and never more
    });
    site.serve('/after.xml', 200, urlset(pages(0, 1)));
    const refused = await discover([`${elsewhere.origin}/sitemap.xml`], {}, new Map(), guarded);
    expect(refused.files[0]!.problems).toEqual([
      'could not be fetched (blocked: 127.0.0.2 is a private or reserved address)',
    ]);
    expect(elsewhere.requests).toHaveLength(0);
    const late = await discover([`${site.origin}/slow.xml`, `${site.origin}/after.xml`], {
      timeoutMs: 500,
    });
    expect(late.files.map((f) => f.url)).toEqual([`${site.origin}/slow.xml`]);
    expect(late.files[0]!.problems[0]).toMatch(/^broke off while read \(timeout/);
    expect(late.problems).toEqual(['the discovery took over 1 s: 1 sitemap not read']);
  });

  it('asks again conditionally: an unchanged sitemap costs a 304 and keeps its URLs', async () => {
    let served = 0;
    site.routes.set('/sitemap.xml', (req, res) => {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
        return;
      }
      served++;
      res.writeHead(200, {
        'content-type': 'application/xml',
        etag: '"v1"',
        'last-modified': 'Mon, 23 Nov 2026 10:00:00 GMT',
      });
      res.end(urlset(pages(0, 3)));
    });
    const first = await discover([`${site.origin}/sitemap.xml`]);
    const file = first.files[0]!;
    expect(file).toMatchObject({
      etag: '"v1"',
      lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT',
      notModified: false,
    });
    const known = new Map([
      [
        file.url,
        {
          etag: file.etag,
          lastModified: file.lastModified,
          format: file.format!,
          entries: file.entries,
        },
      ],
    ]);
    const again = await discover([`${site.origin}/sitemap.xml`], {}, known);
    expect(again.paths).toEqual(first.paths);
    expect(again.paths).toEqual(paths(0, 3));
    expect(again.files[0]).toMatchObject({ status: 304, notModified: true, etag: '"v1"' });
    expect(served).toBe(1);
    const asked = site.requests.at(-1)!.headers;
    expect(asked['if-none-match']).toBe('"v1"');
    expect(asked['if-modified-since']).toBe('Mon, 23 Nov 2026 10:00:00 GMT');
  });
});
