/**
 * The web UI and JSON API through `app.request()` (no socket), over a real history: a
 * loopback site checked day by day by the real fetcher into a real database.
 */
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createMetrics } from '../../../src/lib/metrics.js';
import { formatDuration } from '../../../src/policy/wording/words.js';
import type { Metrics } from '../../../src/lib/metrics.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import { recordDigest } from '../../../src/store/digests.js';
import { createApp } from '../../../src/web/app.js';
import { createSiteDirectory, createWebStore } from '../../../src/store/index.js';
import { SiteCatalog } from '../../../src/monitor/sites/catalog.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import {
  DAY_MS,
  HISTORY,
  START,
  buildHistory,
  historyApp,
  historyConfig,
} from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();

type App = ReturnType<typeof createApp>;
const html = { accept: 'text/html' };

/** Text as a person reads it: tags dropped, entities decoded, spaces collapsed. */
function visible(page: string): string {
  return page
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe.each(databaseKinds())('the web app on %s', (kind) => {
  let database: TestDatabase;
  let config: Config;
  let deps: CheckDeps;
  let clock: { now: Date };
  let app: App;
  let metrics: Metrics;
  const get = async (path: string, headers: Record<string, string> = html) => {
    const response = await app.request(path, { headers });
    return { response, body: await response.text() };
  };
  const json = async <T>(path: string, status = 200) => {
    const response = await app.request(path);
    expect(response.status, path).toBe(status);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    config = historyConfig(server.origin);
    ({ deps, clock } = await buildHistory(database.handle.db, server, fetcher, config));
    metrics = createMetrics();
    app = historyApp(database.handle.db, config, deps, clock, metrics);
  });
  afterAll(async () => {
    server.routes.clear();
    await database.close();
  });

  it('shows every site with its state now, its last change, what is disallowed and 90 days', async () => {
    const { response, body } = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const text = visible(body);
    expect(text).toContain(server.origin);
    expect(body).toMatch(
      /class="access access-ok" title="robots.txt is served, and its rules apply.">ok</,
    );
    // The last change in words: its most severe cause, linked to its diff.
    // Times in the configured zone (UTC here), with how long ago.
    expect(text).toContain('2026-03-06 03:00 UTC (just now)');
    expect(text).toContain(
      'Disallow: /"><img src=x onerror=alert(1)> added to the * group (line 4) (and 2 more changes)',
    );
    expect(body).toContain('href="/sites/1/diff?to=5"');
    // Crawler counts in one line, the detail on the site page.
    expect(text).toContain('2 of 2 crawlers blocked from a watched page');
    // Whether those blocks are meant: the built-in intent wants search engines to crawl
    // every watched page and says nothing of GPTBot.
    expect(text).toContain('Googlebot against the intent; GPTBot where the intent says nothing');
    // When the site is next checked (no daemon has planned it: its place in the next
    // period, 03-07 03:00 to 03-08 03:00). The site's place in the period depends on its
    // port, so the time shown may fall on 03-07 or in the small hours of 03-08; the wait
    // is said from the time shown.
    const next = /(2026-03-0[78] \d\d:\d\d) UTC \(in ([^)]+)\)/.exec(text);
    expect(next).not.toBeNull();
    const [, shown = '', wait = ''] = next!;
    const at = new Date(`${shown.replace(' ', 'T')}:00Z`).getTime();
    expect(at).toBeGreaterThan(clock.now.getTime());
    // The time shown is to the minute; the wait is from the exact instant.
    const waits = new Set(
      Array.from({ length: 121 }, (_, s) =>
        formatDuration(at + (s - 60) * 1000 - clock.now.getTime()),
      ),
    );
    expect(waits).toContain(wait);
    // The strip: 90 days, the six checked ones coloured, the 503 day red; days alike in a
    // row are one bar (4 px a day).
    const strip = body.match(/<svg class="strip"[\s\S]*?<\/svg>/)![0];
    const days = new Map<string, number>();
    for (const [, access = '', width = ''] of strip.matchAll(
      /<rect class="(\w+)" x="\d+" y="0" width="(\d+)"/g,
    ))
      days.set(access, (days.get(access) ?? 0) + (Number(width) + 1) / 4);
    expect(Object.fromEntries(days)).toEqual({ none: 84, ok: 5, unreachable: 1 });
    expect(strip).toContain('<title>2026-03-04: unreachable (1 check)</title>');
    expect(strip.match(/<rect /g)!.length).toBeLessThanOrEqual(5);
  });

  it('gives trends whose last month agrees with where each crawler stands now', async () => {
    const { trends } = await json<{
      trends: {
        group: string;
        label: string;
        points: {
          month: string;
          sites: number;
          full: number;
          partly: number;
          none: number;
          noRobotsTxt: number;
        }[];
      }[];
    }>('/api/v1/trends');
    const { crawlers } = await json<{
      crawlers: { agent: string; blocked: number; partly: number; allowed: number }[];
    }>('/api/v1/crawlers');
    expect(trends.map((t) => t.group)).toEqual(crawlers.map((c) => c.agent.toLowerCase()).sort());
    for (const c of crawlers) {
      const last = trends.find((t) => t.group === c.agent.toLowerCase())!.points.at(-1)!;
      expect(last.month).toBe('2026-03');
      expect([last.sites * last.full, last.sites * last.partly, last.sites * last.none]).toEqual([
        c.blocked,
        c.partly,
        c.allowed,
      ]);
    }
    // The page: a chart per crawler, each month's numbers on hover, the last in words.
    const { body } = await get('/trends?by=agent');
    // Each headed by the crawler as the configuration spells it, not the lower-case group.
    for (const c of crawlers) expect(body).toContain(`<h2>${c.agent}</h2>`);
    expect(trends.map((t) => t.label)).toEqual(
      [...crawlers]
        .sort((a, b) => (a.agent.toLowerCase() < b.agent.toLowerCase() ? -1 : 1))
        .map((c) => c.agent),
    );
    expect(body.match(/<svg class="strip trend"/g)).toHaveLength(trends.length);
    expect(visible(body)).toMatch(/2026-03: 1 site; blocked from every watched page \d+(\.\d)?%/);
    const bad = await app.request('/api/v1/trends?by=country');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { status: 400, message: 'by: "country" is not one of agent, operator, purpose' },
    });
  });

  it('filters the overview by origin', async () => {
    expect(visible((await get('/?q=nothing-like-it')).body)).toContain(
      '0 sites matching “nothing-like-it”',
    );
  });

  it("draws a site's timeline, lists its changes, and shows the verdict matrix", async () => {
    const { body } = await get('/sites/1');
    const text = visible(body);
    const timeline = body.match(/<svg class="timeline"[\s\S]*?<\/svg>/)![0];
    // Five snapshots (v1, v2, 503, v2, hostile), each a link, coloured by access.
    expect(timeline.match(/<a href="\/sites\/1\/snapshots\/\d+">/g)).toHaveLength(5);
    expect(timeline.match(/<rect class="unreachable"/g)).toHaveLength(1);
    expect(timeline.match(/<circle class="marker"/g)).toHaveLength(4); // every snapshot after the baseline brought changes
    // The changes, in causes: the rule added, the 503, and what each did.
    expect(text).toContain(
      'Disallow: /pricing added to the * group (line 3) now disallowed for Googlebot: /pricing',
    );
    expect(text).toContain(
      'robots.txt answers 503 (it answered 200 before) Google treats the whole site as disallowed',
    );
    expect(text).toContain(
      'robots.txt answers 200 again after 1 day of 503 Its rules apply again.',
    );
    expect(body).toContain('<code>Disallow: /pricing</code>');
    // The matrix: each cell the verdict and its deciding rule, linked to its history.
    expect(body).toContain(
      `href="/sites/1/verdicts?url=${encodeURIComponent(`${server.origin}/pricing`)}&amp;agent=Googlebot"`,
    );
    expect(text).toMatch(/\/pricing disallowed line 3: Disallow: \/pricing/);
    expect(text).toMatch(
      /\/blog\/post allowed no rule applies disallowed line \d+: Disallow: \/blog\//,
    );
    // Sitemaps as text, never as links.
    expect(text).toContain('javascript:alert(3)');
    expect(body).not.toMatch(/href="javascript:/i);
  });

  it('filters and pages the changes', async () => {
    const text = visible((await get('/sites/1?kind=status')).body);
    expect(text).toContain('robots.txt answers 503 (it answered 200 before)');
    // v2 came from behind a redirect: where robots.txt is answered from is its status.
    expect(text).toContain(`robots.txt now redirects to ${server.origin}/moved/robots.txt`);
    expect(text).not.toContain('onerror');
    const rules = visible((await get('/sites/1?kind=rules')).body);
    expect(rules).toContain('Disallow: /pricing added');
    expect(rules).not.toContain('robots.txt answers 503');
    // Newest first, a page at a time: the page after snapshot 3 holds the change to 2.
    const older = visible((await get('/sites/1?before=3')).body);
    expect(older).toContain('Disallow: /pricing added');
    expect(older).not.toContain('answers 503');
  });

  it('keeps the verdict matrix in the page, and filters its crawlers', async () => {
    const { body } = await get('/sites/1?crawlers=gpt');
    expect(body).toContain('<div class="scroll" role="region"');
    const matrix = body.match(/<table class="matrix">[\s\S]*?<\/table>/)![0];
    expect(matrix.match(/<th>[^<]*<\/th>/g)).toEqual(['<th>URL</th>', '<th>GPTBot</th>']);
    expect(visible(body)).toContain('1 of 2 crawlers shown');
  });

  it('shows a snapshot: numbered lines, groups and rules, lint findings, redirects and timings', async () => {
    const snapshots = await json<{ snapshots: { id: number; status: number }[] }>(
      '/api/v1/sites/1/snapshots',
    );
    const v2 = snapshots.snapshots.find(
      (s, i) => s.status === 200 && i === snapshots.snapshots.length - 2,
    )!;
    const { body } = await get(`/sites/1/snapshots/${v2.id}`);
    const text = visible(body);
    expect(body).toContain(
      '<span class="l" id="L3"><span class="n">3</span>Disallow: /pricing</span>',
    );
    expect(text).toMatch(
      /301 http:\/\/127\.0\.0\.1:\d+\/robots\.txt → http:\/\/127\.0\.0\.1:\d+\/moved\/robots\.txt/,
    );
    expect(text).toMatch(/line 1 : user-agent \*/);
    expect(text).toMatch(
      /Seen 2026-03-03 03:00 UTC \(3 days ago\) to 2026-03-03 03:00 UTC \(3 days ago\)\s*, by 1 check/,
    );
    expect(body).toMatch(/<td class="num">\d+ ms<\/td>/);
  });

  it('serves Atom feeds of changes, every site’s and one site’s, as well-formed XML', async () => {
    /** The feed's entries as an XML parser reads them (a malformed feed throws). */
    const entries = (xml: string) => {
      const parser = new SaxesParser();
      const found: Record<string, string>[] = [];
      let entry: Record<string, string> | undefined;
      let field: string | undefined;
      parser.on('opentag', (tag) => {
        if (tag.name === 'entry') entry = {};
        else if (entry !== undefined && tag.name === 'link')
          entry['link'] = String(tag.attributes['href']);
        else field = tag.name;
      });
      parser.on('text', (text) => {
        if (entry !== undefined && field !== undefined) entry[field] = (entry[field] ?? '') + text;
      });
      parser.on('closetag', (tag) => {
        if (tag.name === 'entry') {
          found.push(entry!);
          entry = undefined;
        }
        field = undefined;
      });
      parser.write(xml).close();
      return found;
    };
    const all = await get('/feed.atom');
    expect(all.response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const changes = entries(all.body);
    // v1 → v2 → 503 → v2 → the hostile file: four changes, newest first.
    expect(changes).toHaveLength(4);
    expect(changes[0]!['title']).toBe(
      `${server.origin}: Disallow: /"><img src=x onerror=alert(1)> added to the * group (line 4)`,
    );
    expect(changes[0]!['link']).toMatch(/^http:\/\/localhost\/sites\/1\/diff\?to=\d+$/);
    expect(changes[2]!['content']).toContain('Google treats the whole site as disallowed');
    // Markup in the file is text in the feed: escaped, never elements.
    expect(all.body).not.toContain('<script>');
    expect(all.body).not.toContain('<img');
    const one = entries((await get('/sites/1/feed.atom')).body);
    expect(one.map((e) => e['id'])).toEqual(changes.map((e) => e['id']));
    expect((await get('/sites/999/feed.atom')).response.status).toBe(404);
  });

  it('compares two snapshots: what changes, and the text diff highlighted', async () => {
    const { snapshots } = await json<{ snapshots: { id: number }[] }>(
      '/api/v1/sites/1/snapshots?limit=500',
    );
    const [v1, v2] = [snapshots[snapshots.length - 1]!, snapshots[snapshots.length - 2]!];
    const { body } = await get(`/sites/1/diff?from=${v1.id}&to=${v2.id}`);
    const text = visible(body);
    expect(text).toContain(
      'What changes Disallow: /pricing added to the * group (line 3) now disallowed for Googlebot: /pricing',
    );
    expect(text).toContain('Sitemap lines changed: 1 added');
    expect(text).toContain('+ https://example.com/sitemap.xml');
    expect(body).toContain('<span class="add">+Disallow: /pricing</span>');
    expect(body).toContain('<span class="hunk">@@ ');
    expect((await get('/sites/1/diff?from=abc')).response.status).toBe(400);
    expect(visible((await get('/sites/1/diff?from=999999&to=' + v2.id)).body)).toContain(
      'Nothing to compare: no snapshot 999999 of this site.',
    );
  });

  it('tells when and why a verdict flipped', async () => {
    const url = encodeURIComponent(`${server.origin}/pricing`);
    const text = visible((await get(`/sites/1/verdicts?url=${url}&agent=Googlebot`)).body);
    expect(text).toContain('Now disallowed since 2026-03-05 by Disallow: /pricing on line 3.');
    expect(text).toMatch(
      /2026-03-05 03:00 UTC \(24 h ago\) now disallowed line 3: Disallow: \/pricing/,
    );
    expect(text).toMatch(
      /2026-03-03 03:00 UTC \(3 days ago\) 2026-03-04 03:00 UTC \(2 days ago\) disallowed line 3: Disallow: \/pricing/,
    );
    expect(text).toMatch(
      /2026-03-04 03:00 UTC \(2 days ago\) 2026-03-05 03:00 UTC \(24 h ago\) disallowed robots\.txt is unreachable/,
    );
    expect(text).toMatch(
      /2026-03-01 03:00 UTC \(5 days ago\) 2026-03-03 03:00 UTC \(3 days ago\) allowed no rule applies/,
    );
  });

  it('tests a proposed file against the live one', async () => {
    const form = new URLSearchParams({
      site: '1',
      robots: 'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n',
      agents: 'Googlebot\nGPTBot google',
      urls: '/pricing\n/blog/post\n/',
    });
    const response = await app.request('/tester', {
      method: 'POST',
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
    });
    expect(response.status).toBe(200);
    const text = visible(await response.text());
    expect(text).toContain('Deploying this file changes 3 verdicts.');
    expect(text).toMatch(
      /\/pricing Googlebot allowed no rule applies disallowed line 3: Disallow: \/pricing/,
    );
    expect(text).toMatch(/\/ GPTBot disallowed line 5: Disallow: \/ allowed no rule applies/);
    // Judged against the site's intent (the built-in one: the search engines crawl every
    // watched page), as a deploy of it would be.
    expect(text).toContain(
      'Against its intent As intended: the 3 page × crawler pairs its intent judges here stay as its owner intends.',
    );
    const tested = async (robots: string) =>
      visible(
        await (
          await app.request('/tester', {
            method: 'POST',
            body: new URLSearchParams({
              site: '1',
              robots,
              agents: 'Googlebot',
              urls: '/pricing\n/blog/post\n/',
            }),
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              origin: 'http://localhost',
            },
          })
        ).text(),
      );
    // The live file keeps Googlebot from /pricing already; the draft keeps it from /blog/ too.
    expect(await tested('User-agent: *\nDisallow: /blog/\nDisallow: /pricing\n')).toContain(
      'Not as intended: once deployed, /pricing and /blog/post would be blocked for Googlebot (2 page × crawler pairs differ from the intent). The live file does the same for 1 of them. /pricing is blocked for Googlebot: Disallow: /pricing (line 3) blocks pages meant to be crawled /blog/post is blocked for Googlebot: Disallow: /blog/ (line 2) blocks pages meant to be crawled',
    );
    expect(await tested('<!DOCTYPE html>\n<html><body>Sorry</body></html>\n')).toContain(
      'Against its intent Once deployed, robots.txt is an HTML page: crawlers find no rules in it and crawl everything.',
    );
  });

  it('explains a bad tester input in one line, keeping what was typed', async () => {
    const response = await app.request('/tester', {
      method: 'POST',
      body: new URLSearchParams({
        site: '',
        robots: 'User-agent: *',
        agents: 'Googlebot/2.1',
        urls: 'https://x.com/',
      }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
    });
    expect(response.status).toBe(400);
    const body = await response.text();
    expect(visible(body)).toContain(
      'agents, line 1: "Googlebot/2.1" is not a crawler token (letters, "-", "_") or "*", then optionally a profile',
    );
    expect(body).toContain('>Googlebot/2.1</textarea>');
  });

  it('starts the tester from a snapshot', async () => {
    const { snapshots } = await json<{ snapshots: { id: number }[] }>(
      '/api/v1/sites/1/snapshots?limit=500',
    );
    const v1 = snapshots[snapshots.length - 1]!;
    const body = (await get(`/tester?site=1&snapshot=${v1.id}`)).body;
    expect(body).toContain(
      'Disallow: /private/\n\nUser-agent: GPTBot\nDisallow: /blog/\n</textarea>',
    );
    expect(body).toContain('>Googlebot google\nGPTBot google</textarea>');
  });

  it('lists and renders past digests', async () => {
    const id = await recordDigest(
      database.handle.db,
      {
        recipient: 'seo@example.com',
        periodStart: START,
        periodEnd: new Date(START.getTime() + 7 * DAY_MS),
        subject: 'robowatch digest 2026-03-01 to 2026-03-08: 4 changes',
        text: 'All the <changes> of the week',
        html: '<p>All the changes</p>',
        data: null,
      },
      { channel: 'email', to: 'seo@example.com' },
      clock.now,
    );
    expect(visible((await get('/digests')).body)).toContain(
      'robowatch digest 2026-03-01 to 2026-03-08: 4 changes',
    );
    const page = (await get(`/digests/${id}`)).body;
    expect(page).toContain('All the &lt;changes&gt; of the week');
    const email = await get(`/digests/${id}/email.html`);
    expect(email.response.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect((await get('/digests/99999')).response.status).toBe(404);
  });

  it('says a failing store is an error (500), not a missing page (404)', async () => {
    const store = createWebStore(database.handle.db);
    const failing = createApp({
      config,
      catalog: new SiteCatalog(createSiteDirectory(database.handle.db), config, () => clock.now),
      store: { ...store, loadDigest: () => Promise.reject(new Error('connection reset')) },
      checkNow: () => Promise.reject(new Error('not in this test')),
      previewDigests: () => Promise.resolve([]),
      metrics,
      logger: silentLogger,
      now: () => clock.now,
    });
    const response = await failing.request('/digests/1', { headers: html });
    expect(response.status).toBe(500);
    expect(visible(await response.text())).toContain('internal error; the logs say more');
  });

  it('renders hostile robots.txt content as inert text on every page', async () => {
    const { snapshots } = await json<{ snapshots: { id: number }[] }>('/api/v1/sites/1/snapshots');
    const pages = [
      '/',
      '/sites/1',
      `/sites/1/snapshots/${snapshots[0]!.id}`,
      '/sites/1/diff',
      `/tester?site=1&snapshot=${snapshots[0]!.id}`,
    ];
    for (const path of pages) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      // Markup from the file appears only escaped: no element, attribute or script URL.
      expect(body, path).not.toMatch(/<script|<img|<[^>]*\sonerror=|href="javascript:|style="/i);
    }
    const snapshotPage = visible((await get(`/sites/1/snapshots/${snapshots[0]!.id}`)).body);
    expect(snapshotPage).toContain('# <script>alert("robots")</script>');
    expect(snapshotPage).toContain('Disallow: /"><img src=x onerror=alert(1)>');
    // The API gives the same text as data, and the body as sandboxed plain text.
    const model = await json<{ groups: { rules: { pattern: string }[] }[] }>(
      `/api/v1/snapshots/${snapshots[0]!.id}/model`,
    );
    expect(model.groups.flatMap((g) => g.rules.map((r) => r.pattern))).toContain(
      '/<script>alert(2)</script>',
    );
    const raw = await app.request(`/api/v1/snapshots/${snapshots[0]!.id}/body`);
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(raw.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await raw.text()).toBe(HISTORY.xss);
  });

  describe('the JSON API', () => {
    it('lists the sites with their state', async () => {
      const { sites } = await json<{ sites: Record<string, unknown>[] }>('/api/v1/sites');
      expect(sites).toHaveLength(1);
      const [listed] = sites as {
        lastChange: { summary: string; more: number } | null;
        disallowed: { agent: string; disallowed: number; watched: number }[];
      }[];
      expect(listed).toMatchObject({
        id: 1,
        origin: server.origin,
        access: 'ok',
        condition: 'ok',
        status: 200,
        fileCondition: 'robots',
      });
      // The last change: its most severe cause, in words.
      expect(listed!.lastChange).toMatchObject({
        summary: '`Disallow: /"><img src=x onerror=alert(1)>` added to the `*` group (line 4)',
        more: 2,
      });
      expect(listed!.disallowed).toContainEqual({ agent: 'Googlebot', disallowed: 2, watched: 4 });
      const site = await json<{ watches: string[]; current: { access: string } }>(
        '/api/v1/sites/1',
      );
      expect(site.watches).toContain(`${server.origin}/pricing`);
      expect(site.current.access).toBe('ok');
    });

    it('pages through snapshots and events', async () => {
      const first = await json<{ snapshots: { id: number }[]; next: string }>(
        '/api/v1/sites/1/snapshots?limit=2',
      );
      expect(first.snapshots).toHaveLength(2);
      const second = await json<{ snapshots: { id: number }[]; next: string | null }>(first.next);
      expect(second.snapshots[0]!.id).toBeLessThan(first.snapshots[1]!.id);
      const all = await json<{ snapshots: unknown[] }>('/api/v1/sites/1/snapshots?limit=500');
      expect(all.snapshots.length).toBe(5);

      const events = await json<{ events: { type: string; id: number }[]; next: string | null }>(
        '/api/v1/events?site=1&type=newly_disallowed,fetch_status_changed&limit=3',
      );
      expect(events.events).toHaveLength(3);
      for (const e of events.events)
        expect(['newly_disallowed', 'fetch_status_changed']).toContain(e.type);
      expect(events.next).toMatch(
        /^\/api\/v1\/events\?site=1&type=newly_disallowed%2Cfetch_status_changed&limit=3&before=\d+$/,
      );
      const older = await json<{ events: { id: number }[] }>(events.next!);
      expect(older.events[0]!.id).toBeLessThan(events.events[2]!.id);
    });

    it('gives the diff, the verdicts and their history', async () => {
      const diff = await json<{ events: { type: string }[]; patch: string }>(
        '/api/v1/sites/1/diff',
      );
      expect(diff.events.length).toBeGreaterThan(0);
      const verdicts = await json<{ verdicts: { url: string; agent: string; allowed: boolean }[] }>(
        '/api/v1/sites/1/verdicts',
      );
      expect(verdicts.verdicts).toContainEqual(
        expect.objectContaining({
          url: `${server.origin}/pricing`,
          agent: 'Googlebot',
          allowed: false,
        }),
      );
      const history = await json<{ runs: { allowed: boolean }[] }>(
        `/api/v1/sites/1/verdicts/history?url=${encodeURIComponent(`${server.origin}/pricing`)}&agent=Googlebot`,
      );
      expect(history.runs.map((r) => r.allowed)).toEqual([true, false, false, false]);
    });

    it('tests a file as JSON', async () => {
      const response = await app.request('/api/v1/test', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          robotstxt: 'User-agent: *\nDisallow: /\n',
          agents: ['Googlebot'],
          urls: ['/pricing'],
          site: 1,
        }),
      });
      expect(response.status).toBe(200);
      const result = (await response.json()) as { rows: { changed: boolean }[]; live: boolean };
      expect(result.live).toBe(true);
      expect(result.rows).toEqual([expect.objectContaining({ changed: false })]);
    });

    it('judges a tested file against the site intent, as the tester page does', async () => {
      const test = async (body: object) => {
        const response = await app.request('/api/v1/test', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { intent: unknown }).intent;
      };
      const draft = {
        robotstxt: 'User-agent: *\nDisallow: /blog/\nDisallow: /pricing\n',
        agents: ['Googlebot'],
        urls: ['/pricing', '/blog/post', '/'],
      };
      // The live file keeps Googlebot from /pricing already; the draft keeps it from /blog/ too.
      const judged = (await test({ ...draft, site: 1 })) as {
        violations: { url: string; cause: { line?: number } | null; live: boolean }[];
      };
      expect({ ...judged, violations: [] }).toEqual({
        state: 'not-as-intended',
        judged: 3,
        violationCount: 2,
        already: 1,
        reason: null,
        lead: '/pricing and /blog/post would be blocked for Googlebot (2 page × crawler pairs differ from the intent)',
        violations: [],
      });
      expect(
        judged.violations.map((v) => ({ ...v, url: new URL(v.url).pathname, line: v.cause?.line })),
      ).toEqual([
        expect.objectContaining({
          url: '/pricing',
          agent: 'Googlebot',
          expected: 'allowed',
          line: 3,
          live: true,
        }),
        expect.objectContaining({
          url: '/blog/post',
          agent: 'Googlebot',
          expected: 'allowed',
          line: 2,
          live: false,
        }),
      ]);
      expect(
        await test({
          ...draft,
          site: 1,
          robotstxt: '<!DOCTYPE html>\n<html><body>Sorry</body></html>\n',
        }),
      ).toEqual(
        expect.objectContaining({
          state: 'cannot-check',
          reason: 'robots.txt is an HTML page: crawlers find no rules in it and crawl everything',
        }),
      );
      // Without a site there is no intent to judge it against.
      expect(await test({ ...draft, urls: ['https://example.com/'] })).toBeNull();
    });

    it.each([
      ['/api/v1/sites/42', 404, 'there is no site 42'],
      ['/api/v1/sites/abc', 400, 'site must be a positive whole number, not "abc"'],
      [
        '/api/v1/sites/1/snapshots?limit=0',
        400,
        'limit must be a whole number from 1 to 500, not "0"',
      ],
      ['/api/v1/snapshots/123456', 404, 'there is no snapshot 123456'],
      [
        '/api/v1/events?type=newly_blocked',
        400,
        'type must be among newly_disallowed, newly_allowed, fetch_status_changed, rules_changed, sitemaps_changed',
      ],
      ['/api/v1/sites/1/verdicts/history?url=x', 400, 'give both url and agent'],
      ['/api/v1/nothing', 404, 'nothing at /api/v1/nothing'],
    ])('answers %s with %i and a clear message', async (path, status, message) => {
      expect(await json(path, status)).toEqual({ error: { status, message } });
    });

    it('refuses to check a site when no token is configured', async () => {
      const response = await app.request('/api/v1/sites/1/check', { method: 'POST' });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        error: {
          status: 403,
          message:
            'the web UI and API are read-only: set web.token in the configuration, or add a user (robowatch users add), to allow checking and editing sites',
        },
      });
    });
  });

  describe('with an access token', () => {
    const TOKEN = 'correct-horse-battery-staple';
    let secured: App;
    let securedMetrics: Metrics;
    beforeAll(() => {
      securedMetrics = createMetrics();
      secured = historyApp(
        database.handle.db,
        historyConfig(server.origin, `web: {token: '${TOKEN}'}`),
        deps,
        clock,
        securedMetrics,
      );
    });
    const bearer = { authorization: `Bearer ${TOKEN}` };

    it('refuses every request without it, and asks browsers to sign in', async () => {
      const api = await secured.request('/api/v1/sites');
      expect(api.status).toBe(401);
      expect(api.headers.get('www-authenticate')).toBe('Bearer realm="robowatch"');
      expect(await api.json()).toEqual({
        error: {
          status: 401,
          message:
            'sign in first: send Authorization: Bearer <API key or web.token>, or sign in at /login',
        },
      });
      const page = await secured.request('/sites/1', { headers: html });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/login?next=%2Fsites%2F1');
      expect((await secured.request('/metrics')).status).toBe(401);
      expect((await secured.request('/static/style.css')).status).toBe(200);
      // A prober learns whether robowatch is healthy without the token, and nothing more.
      const probe = await secured.request('/healthz');
      expect(probe.status).toBe(200);
      expect(await probe.json()).toEqual({ status: 'ok' });
      const full = await secured.request('/healthz', { headers: bearer });
      expect(Object.keys((await full.json()) as object)).toEqual([
        'status',
        'problems',
        'database',
        'daemon',
        'notifications',
      ]);
      expect(
        (await secured.request('/api/v1/sites', { headers: { authorization: 'Bearer nope' } }))
          .status,
      ).toBe(401);
      expect((await secured.request('/api/v1/sites', { headers: bearer })).status).toBe(200);
    });

    it('signs a browser in with a cookie that is not the token, and checks a site from its page', async () => {
      const form = (token: string) => ({
        method: 'POST',
        body: new URLSearchParams({ token, next: '/sites/1' }),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'http://localhost',
        },
      });
      const wrong = await secured.request('/login', form('guess'));
      expect(wrong.headers.get('location')).toBe('/login?failed=1&next=%2Fsites%2F1');
      const right = await secured.request('/login', form(TOKEN));
      expect(right.status).toBe(303);
      expect(right.headers.get('location')).toBe('/sites/1');
      const cookie = right.headers.get('set-cookie')!;
      expect(cookie).toMatch(
        /^robowatch_session=[0-9a-f]{64}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Strict$/,
      );
      expect(cookie).not.toContain(TOKEN);
      const session = cookie.split(';')[0]!;

      const page = await secured.request('/sites/1', { headers: { ...html, cookie: session } });
      const body = await page.text();
      expect(body).toContain('<button type="submit">Check now</button>');
      expect(body).toContain('Sign out');

      // A form posted from another site with that cookie is refused.
      const forged = await secured.request('/sites/1/check', {
        method: 'POST',
        headers: {
          cookie: session,
          origin: 'https://evil.example',
          'content-type': 'application/x-www-form-urlencoded',
        },
      });
      expect(forged.status).toBe(403);
      expect(visible(await forged.text())).toContain(
        'refused: this form was posted from another site',
      );

      const checked = await secured.request('/sites/1/check', {
        method: 'POST',
        headers: {
          cookie: session,
          origin: 'http://localhost',
          'content-type': 'application/x-www-form-urlencoded',
        },
      });
      expect(checked.status).toBe(303);
      expect(checked.headers.get('location')).toBe('/sites/1?checked=unchanged');
      const metrics = await (await secured.request('/metrics', { headers: bearer })).text();
      expect(metrics).toContain('robowatch_checks_total{access="ok"} 1');
      expect(metrics).toContain('robowatch_check_duration_seconds_count 1');
    });

    it('checks many sites through the API, a line of JSON each as it completes, then the summary', async () => {
      const post = (body: string) =>
        secured.request('/api/v1/checks', {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'application/json' },
          body,
        });
      const response = await post(JSON.stringify({ sites: [1, 1] }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-ndjson');
      const lines = (await response.text()).split('\n');
      expect(lines.at(-1)).toBe(''); // each line ends with a line break
      const [report, last] = lines.slice(0, -1).map((l) => JSON.parse(l) as object);
      // The site named twice is checked once.
      expect(lines).toHaveLength(3);
      expect(report).toMatchObject({
        site: server.origin,
        siteId: 1,
        kind: 'unchanged',
        events: [],
      });
      expect(last).toEqual({
        summary: {
          checked: 1,
          baseline: 0,
          changed: 0,
          unchanged: 1,
          events: 0,
          causes: 0,
          failures: [],
        },
      });
      // A bad request is refused before any check, with the line that says why.
      for (const [body, status, message] of [
        ['{"sites": []}', 400, 'sites: Too small: expected array to have >=1 items'],
        ['{"sites": ["1"]}', 400, 'sites.0: Invalid input: expected number, received string'],
        ['sites=1', 400, 'the body must be JSON: {"sites": [id, …]}'],
        ['{"sites": [1, 999]}', 404, 'there is no site 999'],
      ] as const) {
        const refused = await post(body);
        expect([
          refused.status,
          ((await refused.json()) as { error: { message: string } }).error.message,
        ]).toEqual([status, message]);
      }
      // Without the token: no checks.
      expect(
        (await secured.request('/api/v1/checks', { method: 'POST', body: '{"sites": [1]}' }))
          .status,
      ).toBe(401);
    });

    it('checks a site through the API with the token', async () => {
      const response = await secured.request('/api/v1/sites/1/check', {
        method: 'POST',
        headers: bearer,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        site: server.origin,
        kind: 'unchanged',
        events: [],
      });
    });
  });

  it('names the lines a 500 KiB cut lost', async () => {
    const big = `User-agent: *\n${'Disallow: /filler/\n'.repeat(30_000)}Disallow: /after-the-cut\n`;
    server.serve('/robots.txt', 200, big);
    clock.now = new Date(clock.now.getTime() + DAY_MS);
    const [outcome] = await deps.store.loadSites([server.origin]);
    await app.request('/'); // nothing changes by reading
    const { checkSites } = await import('../../../src/monitor/check/batch.js');
    await checkSites(deps, config.sites, { concurrency: 1 });
    const [after] = await deps.store.loadSites([server.origin]);
    expect(after!.current!.snapshotId).not.toBe(outcome!.current!.snapshotId);
    const text = visible((await get(`/sites/1/snapshots/${after!.current!.snapshotId}`)).body);
    expect(text).toMatch(/cut at 500 KiB/);
    expect(text).toMatch(/content past 512000 bytes is ignored: line \d+ is cut/);
  });

  it("says on the site's page where robots.txt is answered from when it redirects", async () => {
    server.serve('/robots.txt', 301, '', { location: '/moved/robots.txt' });
    server.serve('/moved/robots.txt', 200, HISTORY.v2);
    clock.now = new Date(clock.now.getTime() + DAY_MS);
    const { checkSites } = await import('../../../src/monitor/check/batch.js');
    await checkSites(deps, config.sites, { concurrency: 1 });
    const text = visible((await get('/sites/1')).body);
    expect(text).toContain(
      `robots.txt answers 200 from ${server.origin}/moved/robots.txt (redirected)`,
    );
    server.serve('/robots.txt', 200, HISTORY.v2);
    clock.now = new Date(clock.now.getTime() + DAY_MS);
    await checkSites(deps, config.sites, { concurrency: 1 });
    expect(visible((await get('/sites/1')).body)).not.toContain('(redirected)');
  });

  it('reports health and metrics', async () => {
    const health = await json<{ status: string; database: { ok: boolean } }>('/healthz');
    expect(health).toMatchObject({ status: 'ok', database: { ok: true } });
    const response = await app.request('/metrics');
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    // The digest recorded above is queued, and nothing sends it here.
    expect(text).toContain('robowatch_outbox_pending 1');
    expect(text).toContain('robowatch_outbox_failed 0');
    expect(text).toMatch(/^robowatch_last_check_timestamp_seconds \d/m);
  });
});
