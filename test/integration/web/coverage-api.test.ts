/**
 * GET /api/v1/sites/:id/coverage on both databases: the coverage a check computed over
 * the site's sitemaps (the same document `robowatch coverage --json` prints), and a
 * one-line 404 or 400 for what is not there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoverageStore } from '../../../src/store/index.js';
import { DEFAULT_DISCOVERY_LIMITS } from '../../../src/monitor/check/sitemaps.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { CoverageThreads } from '../../../src/monitor/threads/coverage-threads.js';
import { CoverageDocument } from '../../../src/monitor/documents/index.js';
import type { createApp } from '../../../src/web/app.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();

describe.each(databaseKinds())('the coverage API on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let offApp: ReturnType<typeof createApp>;
  let latest: number;
  let first: number;
  let check: () => Promise<void>;
  // The daemon's way: the URL set evaluated on threads of their own.
  const threads = new CoverageThreads();
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = historyConfig(server.origin, 'sitemaps: auto');
    const { deps, clock } = await buildHistory(database.handle.db, server, fetcher, config);
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    server.serve(
      '/sitemap.xml',
      200,
      ['/', '/pricing', '/private/a', '/private/b', '/blog/post']
        .map((p) => server.origin + p)
        .join('\n'),
    );
    const withCoverage = {
      ...deps,
      coverage: {
        fetchDocument: (r: Parameters<typeof fetcher.fetchDocument>[0]) => fetcher.fetchDocument(r),
        store: createCoverageStore(database.handle.db),
        now: () => clock.now,
        limits: DEFAULT_DISCOVERY_LIMITS,
        thresholds: config.notify.coverage,
        computer: threads,
      },
    };
    check = async () => {
      const summary = await checkSites(withCoverage, config.sites, {
        concurrency: 1,
        onOutcome: (o) => (latest = o.snapshotId ?? latest),
      });
      expect(summary.failures).toEqual([]);
      clock.now = new Date(clock.now.getTime() + 86_400_000);
    };
    await check();
    first = latest;
    // A rule that blocks a sitemap URL and no watched page: a second point for the chart.
    server.serve(
      '/robots.txt',
      200,
      'User-agent: *\nDisallow: /private/\nDisallow: /blog/\nDisallow: /sitemap.xml\n',
    );
    await check();
    app = historyApp(database.handle.db, config, deps, clock);
    offApp = historyApp(
      database.handle.db,
      historyConfig(server.origin, 'sitemaps: off'),
      deps,
      clock,
    );
  });
  afterAll(async () => {
    await threads.close();
    server.routes.clear();
    await database.close();
  });

  const get = async (path: string, using = app) => {
    const response = await using.request(path);
    return { status: response.status, body: await response.json() };
  };
  const message = (body: unknown) => (body as { error: { message: string } }).error.message;

  it('answers the coverage of the current snapshot over the sitemaps', async () => {
    const { status, body } = await get('/api/v1/sites/1/coverage');
    expect(status).toBe(200);
    const doc = body as CoverageDocument;
    // Exactly the document /api/v1/openapi.json describes: nothing more, nothing missing.
    expect(CoverageDocument.parse(body)).toEqual(body);
    expect(doc).toMatchObject({ snapshot: latest, urls: 5 });
    expect(doc.agents['Googlebot']).toMatchObject({
      allowed: 2,
      disallowed: 3,
      rules: [
        {
          line: 2,
          directive: 'disallow',
          pattern: '/private/',
          urls: 2,
          samples: ['/private/a', '/private/b'],
        },
        { line: 3, directive: 'disallow', pattern: '/blog/', urls: 1, samples: ['/blog/post'] },
      ],
      prefixes: [
        { prefix: '/private/', disallowed: 2, urls: 2 },
        { prefix: '/blog/', disallowed: 1, urls: 1 },
      ],
    });
    // The snapshot before: the rule that came later blocks nothing there.
    const before = (await get(`/api/v1/sites/1/coverage?snapshot=${first}`))
      .body as CoverageDocument;
    expect(before.agents['Googlebot']).toMatchObject({ allowed: 3, disallowed: 2 });
    // The sitemap itself is disallowed: Search Console's "blocked by robots.txt".
    expect(doc.urlSet.problems).toEqual([
      `${server.origin}/sitemap.xml is disallowed for Googlebot by line 4 \`Disallow: /sitemap.xml\`: Google does not read it`,
    ]);
    expect(doc.urlSet.sitemaps).toEqual([
      expect.objectContaining({ url: `${server.origin}/sitemap.xml`, format: 'text', entries: 5 }),
    ]);
    expect((await get(`/api/v1/sites/1/coverage?snapshot=${latest}`)).body).toEqual(body);
    // Search Console's finding, in words.
    expect(doc.findings).toEqual([
      'Submitted URL blocked by robots.txt: 3 of the 5 sitemap URLs are disallowed for Googlebot, which will not crawl them (line 2 `Disallow: /private/` blocks 2, e.g. /private/a; line 3 `Disallow: /blog/` blocks /blog/post). Take them out of the sitemaps or allow them.',
    ]);
  });

  it('shows the coverage on the site page: the crawlers alike in one row, a chart, the change as a cause', async () => {
    const html = await (await app.request('/sites/1', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('<h2 id="coverage">Coverage of the sitemaps</h2>');
    expect(html).toMatch(/<p>5 URLs from 1 sitemap, read <time/);
    expect(html).toMatch(
      /<tr><td>Googlebot, GPTBot<\/td><td class="num">2 \(40\.0%\)<\/td><td class="num">3<\/td><td>\/private\/ \(2 of 2\), \/blog\/ \(1 of 1\)<\/td>/,
    );
    expect(html).toContain(
      'aria-label="Share of the sitemap URLs each crawler may fetch, over time"',
    );
    expect(html).toContain('Googlebot and GPTBot: 1 of 5 sitemap URLs (20.0%) newly disallowed');
    // robots.txt declares no sitemap: the page says so, and what the coverage read instead.
    expect(html).toContain(
      `robots.txt declares none (no <code>Sitemap:</code> line): crawlers learn of no sitemap from it, only from elsewhere (such as Google Search Console). For the coverage above robowatch read <span class="mono">${server.origin}/sitemap.xml</span> instead.`,
    );
  });

  it('tests a draft file against every URL of the sitemaps, in the API and on the tester page', async () => {
    const robotstxt = 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n';
    const response = await app.request('/api/v1/test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ robotstxt, agents: ['Googlebot', 'GPTBot'], urls: ['/'], site: 1 }),
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { site: unknown };
    expect(result.site).toEqual({
      urls: 5,
      effects: [
        {
          agents: ['Googlebot', 'GPTBot'],
          disallowed: 3,
          newlyDisallowed: 1,
          newlyAllowed: 1,
          prefixes: [{ prefix: '/pricing', urls: 1 }],
          rules: [{ line: 3, directive: 'disallow', pattern: '/pricing', urls: 1 }],
          samples: ['/pricing'],
        },
      ],
    });
    const page = await app.request('/tester', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({
        site: '1',
        robots: robotstxt,
        agents: 'Googlebot\nGPTBot',
        urls: '/',
      }).toString(),
    });
    expect(await page.text()).toContain(
      'Deploying this file would newly block 1 of 5 sitemap URLs (20.0%) for Googlebot, GPTBot (top: /pricing 1), by line 3 `Disallow: /pricing` and newly allow 1.',
    );
  });

  it('shows the coverage before and after on the diff and snapshot pages, and in the diff API', async () => {
    const { status, body } = await get(`/api/v1/sites/1/diff?from=${first}&to=${latest}`);
    expect(status).toBe(200);
    const diff = body as { coverage: unknown; causes: { type: string }[] };
    expect(diff.coverage).toEqual({
      from: { snapshot: first, urls: 5, urlSet: expect.any(Number) as number },
      to: { snapshot: latest, urls: 5, urlSet: expect.any(Number) as number },
      sameUrlSet: true,
      agents: ['Googlebot', 'GPTBot'].map((agent) => ({
        agent,
        before: { urls: 5, allowed: 3, disallowed: 2 },
        after: { urls: 5, allowed: 2, disallowed: 3 },
      })),
    });
    // The two are consecutive: the coverage cause the check recorded is part of the diff.
    expect(diff.causes.map((c) => c.type)).toContain('coverage');
    const page = await (
      await app.request(`/sites/1/diff?from=${first}&to=${latest}`, {
        headers: { accept: 'text/html' },
      })
    ).text();
    expect(page).toContain('<h2>Sitemap URLs each crawler may fetch</h2>');
    expect(page).toMatch(
      /<tr class="worse"><td>Googlebot, GPTBot<\/td><td class="num">3 of 5 \(60\.0%\)<\/td><td class="num">2 of 5 \(40\.0%\)<\/td><td>1 fewer URLs allowed<\/td><\/tr>/,
    );
    expect(page).toContain('Googlebot and GPTBot: 1 of 5 sitemap URLs (20.0%) newly disallowed');
    // The snapshot page: the same, against the snapshot before it.
    const snapshot = await (
      await app.request(`/sites/1/snapshots/${latest}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(snapshot).toContain('1 fewer URLs allowed');
    expect(snapshot).toContain(`<a href="/sites/1/snapshots/${first}">snapshot ${first}</a>`);
    // Sitemaps off: no table, and null in the API.
    const off = await get(`/api/v1/sites/1/diff?from=${first}&to=${latest}`, offApp);
    expect((off.body as { coverage: unknown }).coverage).toBe(null);
  });

  it('says in one line why there is none', async () => {
    const older = await get('/api/v1/sites/1/coverage?snapshot=1');
    expect([older.status, message(older.body)]).toEqual([
      404,
      `${server.origin} has no coverage of snapshot 1 yet: it is computed after a check`,
    ]);
    const missing = await get('/api/v1/sites/1/coverage?snapshot=999');
    expect([missing.status, message(missing.body)]).toEqual([
      404,
      `${server.origin} has no snapshot 999`,
    ]);
    expect((await get('/api/v1/sites/1/coverage?snapshot=x')).status).toBe(400);
    const off = await get('/api/v1/sites/1/coverage?snapshot=1', offApp);
    expect(message(off.body)).toBe(
      `${server.origin} has no coverage: its sitemaps are off (set sitemaps: auto, or list them)`,
    );
  });

  // Last: it changes the site's URL set.
  it('says so in one line when the site declares no sitemap and has none at /sitemap.xml', async () => {
    server.routes.delete('/sitemap.xml');
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    await check();
    const doc = (await get('/api/v1/sites/1/coverage')).body as CoverageDocument;
    expect(doc.urls).toBe(0);
    expect(doc.urlSet.problems).toEqual([
      'No sitemap found: robots.txt has no Sitemap: line and /sitemap.xml answers 404. Add a Sitemap: line, or list the sitemaps under `sitemaps:` in the configuration, to see how much of the site each crawler may fetch.',
    ]);
    expect(doc.urlSet.sitemaps.flatMap((s) => s.problems)).toEqual([]);
    const html = await (await app.request('/sites/1', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain(
      '<div class="notice"><p>No sitemap found: robots.txt has no Sitemap: line',
    );
    expect(html).not.toContain('<table class="coverage">');
    // Nothing was read in place of a declared sitemap: the page does not say it was.
    expect(html).toContain('robots.txt declares none (no <code>Sitemap:</code> line)');
    expect(html).not.toContain('For the coverage above robowatch read');

    // A declared sitemap is listed as declared, where crawlers learn of it.
    server.serve('/robots.txt', 200, `Sitemap: ${server.origin}/s.xml\nUser-agent: *\nDisallow:\n`);
    server.serve('/s.xml', 200, `${server.origin}/a\n`);
    await check();
    const declared = await (
      await app.request('/sites/1', { headers: { accept: 'text/html' } })
    ).text();
    expect(declared).toContain('Declared in robots.txt (its <code>Sitemap:</code> lines)');
    expect(declared).toContain(`<li class="mono">${server.origin}/s.xml</li>`);
    expect(declared).not.toContain('robots.txt declares none');
  });
});
