/**
 * Overview triage: the counts at the top say where the sites stand, problems come first,
 * and the page and the API filter by state. Four loopback sites, on both databases: one
 * whose robots.txt starts answering 503, one whose new file blocks a watched page, one
 * paused, one never checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { DAY_MS, START, checkDepsOn, historyApp } from '../../support/site-history.js';

const TOKEN = 'triage-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };
const OPEN = 'User-agent: *\nDisallow: /private/\n';
const BLOCKS_SHOP = 'User-agent: *\nDisallow: /private/\nDisallow: /shop/\n';

const servers = {
  down: new FixtureServer(),
  blocks: new FixtureServer(),
  quiet: new FixtureServer(),
};
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: 'loopback',
});
beforeAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.start()));
});
afterAll(async () => {
  await fetcher.close();
  await Promise.all(Object.values(servers).map((s) => s.stop()));
});

describe.each(databaseKinds())('overview triage on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof historyApp>;
  let clock: { now: Date };
  // An origin nobody checks: it stays "not checked yet".
  const never = 'https://never-checked.example';
  const ids = new Map<string, number>();
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = parseConfig(
      `agents: [Googlebot]
watch: [/, /shop/item]
sites:
  - {url: '${servers.down.origin}', name: Down}
  - {url: '${servers.blocks.origin}', name: Blocks}
  - {url: '${servers.quiet.origin}', name: Quiet}
  - {url: '${never}', name: Never}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {token: '${TOKEN}'}`,
      { file: 'triage.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    clock = { now: START };
    const deps = checkDepsOn(database.handle.db, fetcher, clock);
    const checked = config.sites.filter((s) => s.origin !== never);
    for (const server of Object.values(servers)) server.serve('/robots.txt', 200, OPEN);
    await checkSites(deps, checked, { concurrency: 1 });
    clock.now = new Date(START.getTime() + DAY_MS);
    servers.down.serve('/robots.txt', 503, 'maintenance');
    servers.blocks.serve('/robots.txt', 200, BLOCKS_SHOP);
    await checkSites(deps, checked, { concurrency: 1 });
    app = historyApp(database.handle.db, config, deps, clock);
    const listed = (await (await app.request('/api/v1/sites', { headers: bearer })).json()) as {
      sites: { id: number; name: string }[];
    };
    for (const s of listed.sites) ids.set(s.name, s.id);
    const paused = await app.request(`/api/v1/sites/${ids.get('Quiet')}/pause`, {
      method: 'POST',
      headers: bearer,
    });
    expect(paused.status).toBe(200);
  });
  afterAll(async () => {
    await database.close();
  });

  const page = async (path: string) => {
    const response = await app.request(path, { headers: { ...bearer, accept: 'text/html' } });
    expect(response.status).toBe(200);
    return response.text();
  };
  /** The sites a page lists, by name, in order. */
  const namesOn = (html: string) =>
    [...html.matchAll(/<a href="\/sites\/(\d+)">([^<]+)<\/a>/g)].map((m) => m[2]);
  const apiNames = async (query: string) => {
    const response = await app.request(`/api/v1/sites?${query}`, { headers: bearer });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { sites: { name: string }[] };
    return body.sites.map((s) => s.name);
  };

  it('says at the top where the sites stand, problems first, and lists problems first', async () => {
    const html = await page('/');
    expect(html).toContain('1 site down: robots.txt cannot be read, so Google crawls nothing');
    expect(html).toContain('1 with watched pages newly blocked this week');
    // Googlebot is meant to crawl every watched page (the built-in intent): Blocks is not as
    // intended, Quiet is; a blocked crawler alone is not counted as a problem.
    expect(html).toContain(
      '1 not as intended: a crawler is kept from a page meant to be crawled, or let into one meant to be kept out',
    );
    expect(html).toContain('1 as intended');
    expect(html).not.toContain('where a watched crawler may not fetch a watched page');
    expect(html).toContain('1 not checked yet');
    expect(html).toContain('1 paused');
    // Down, then newly blocked, then not checked, and the paused site last.
    expect(namesOn(html)).toEqual(['Down', 'Blocks', 'Never', 'Quiet']);
    expect(namesOn(await page('/?sort=listed'))).toEqual(['Down', 'Blocks', 'Quiet', 'Never']);
    // The site answering 503 was checked: against its intent it is not judged page by page,
    // and the badge says why (never "cannot check", which is robowatch refusing a site).
    const down = /<tr>(?:(?!<\/tr>)[^])*?>Down<\/a>[^]*?<\/tr>/.exec(html)![0];
    expect(down).not.toContain('<th>');
    expect(down).toContain(
      '<span class="intent intent-cannot-check" title="robots.txt answers 503: Google crawls nothing on the site while it does">not judged</span>',
    );
    expect(down).not.toContain('cannot check');
    // Google crawls nothing: every crawler is blocked, and none is said to be against the
    // intent, which is not judged page by page.
    expect(down).toMatch(/\d+ of \d+ crawlers? blocked from a watched page/);
    expect(down).not.toContain('against the intent');
    const incidents = await page('/incidents');
    expect(incidents).toContain('cannot be judged against the intent');
    expect(incidents).toContain(
      'robots.txt answers 503: Google crawls nothing on the site while it does',
    );
    expect(incidents).not.toContain('cannot be checked');
  });

  it('filters by state on the page and in the API', async () => {
    const down = await page('/?state=down');
    expect(namesOn(down)).toEqual(['Down']);
    expect(down).toContain('that are “down (robots.txt unreadable)”');
    expect(namesOn(await page('/?state=new-blocks'))).toEqual(['Blocks']);
    const paused = await page('/?state=paused');
    expect(namesOn(paused)).toEqual(['Quiet']);
    // A paused site is not checked: it says so instead of a next check, here and on its page.
    expect(paused).toContain('none: paused');
    expect(paused).not.toMatch(/\(in [^)]+\)/);
    expect(await page(`/sites/${ids.get('Quiet')}`)).toContain('none: paused');
    // An unknown state in an old link shows every site.
    expect(namesOn(await page('/?state=nonsense'))).toHaveLength(4);
    expect(await apiNames('state=down')).toEqual(['Down']);
    expect(await apiNames('state=unchecked')).toEqual(['Never']);
    expect(await apiNames('state=not-as-intended')).toEqual(['Blocks']);
    expect(await apiNames('state=as-intended')).toEqual(['Quiet']);
    const bad = await app.request('/api/v1/sites?state=broken', { headers: bearer });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe(
      'state must be one of cannot-check, down, not-robots, not-as-intended, new-blocks, blocking, all-allowed, as-intended, ok, unchecked, paused, not "broken"',
    );
  });

  it('stops counting a block as new after a week, and still shows it as blocking', async () => {
    const saved = clock.now;
    clock.now = new Date(saved.getTime() + 8 * DAY_MS);
    try {
      expect(await apiNames('state=new-blocks')).toEqual([]);
      expect(await apiNames('state=blocking')).toEqual(['Blocks']);
      const html = await page('/');
      expect(html).not.toContain('newly blocked this week');
      expect(html).toContain('1 not as intended');
    } finally {
      clock.now = saved;
    }
  });

  it('shows one crawler across every site, and every crawler’s counts', async () => {
    const crawlers = (await (
      await app.request('/api/v1/crawlers', { headers: bearer })
    ).json()) as {
      crawlers: { agent: string; blocked: number; partly: number; allowed: number }[];
    };
    // The site that is down counts as blocking: Google crawls nothing there.
    expect(crawlers.crawlers).toEqual([{ agent: 'Googlebot', blocked: 1, partly: 1, allowed: 1 }]);
    const response = await app.request('/api/v1/crawlers/Googlebot', { headers: bearer });
    const one = (await response.json()) as {
      counts: Record<string, number>;
      sites: { name: string; verdict: string; disallowed: number | null; watched: number | null }[];
    };
    expect(one.sites.map((s) => [s.name, s.verdict, s.disallowed, s.watched])).toEqual([
      ['Blocks', 'partly', 1, 2],
      ['Down', 'down', 2, 2],
      ['Quiet', 'allowed', 0, 2],
      ['Never', 'unchecked', null, null],
    ]);
    // The presets agent lists may name, with what they stand for.
    const list = await page('/crawlers');
    // @ai is the registry's 160 crawlers: folded, every one of them in the fold.
    expect(list).toMatch(
      /<code>@ai<\/code><\/td><td><details><summary>160 crawlers: [^<]*<\/summary>[^<]*GPTBot[^<]*<\/details><\/td><td>built in/,
    );
    expect(list).toMatch(/<code>@search<\/code><\/td><td>Googlebot, [^<]*<\/td><td>built in/);
    expect(list).toContain('a site that names none watches the configuration&#39;s: Googlebot.');
    const html = await page('/crawlers/Googlebot');
    expect(html).toContain('1 blocked from some watched pages');
    expect(html).toContain('1 robots.txt cannot be read: Google crawls nothing');
    const allowed = await page('/crawlers/Googlebot?verdict=allowed');
    expect(
      [...allowed.matchAll(/<a href="\/sites\/\d+#verdicts">([^<]+)<\/a>/g)].map((m) => m[1]),
    ).toEqual(['Quiet']);
    // A crawler no site watches: every checked site says so.
    const gpt = (await (
      await app.request('/api/v1/crawlers/GPTBot', { headers: bearer })
    ).json()) as { counts: Record<string, number> };
    expect(gpt.counts).toMatchObject({ 'not-watched': 2, down: 1, unchecked: 1 });
    const bad = await app.request('/api/v1/crawlers/Googlebot?verdict=maybe', { headers: bearer });
    expect(bad.status).toBe(400);
  });
});
