/**
 * Choosing a site among many, on both databases: with more sites than a page lists
 * (SITE_LIST_MAX), the Incidents page, the alert log and the tester do not list every site
 * to choose from (a hundred thousand made megabytes of each page) but take one typed, by
 * name (letter case aside), address or host; a name no site has, or one several share, is
 * refused with a line that says which, on the page itself, keeping what was typed to mend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { SITE_LIST_MAX } from '../../../src/web/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { START, checkDepsOn, historyApp } from '../../support/site-history.js';

const TOKEN = 'site-choice-token-0123456789abcdef';
const alpha = new FixtureServer();
const beta = new FixtureServer();
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: 'loopback',
});
beforeAll(async () => {
  await Promise.all([alpha.start(), beta.start()]);
});
afterAll(async () => {
  await fetcher.close();
  await Promise.all([alpha.stop(), beta.stop()]);
});

const host = (server: FixtureServer) => new URL(server.origin).host;
/** More sites than a page lists, never checked; two share a name, and the last twelve another. */
const MANY = Array.from(
  { length: SITE_LIST_MAX + 10 },
  (_, i) =>
    `  - {url: 'https://site-${i + 1}.example.com', ${i < 2 ? 'name: Twin, ' : i >= SITE_LIST_MAX - 2 ? 'name: Branch, ' : ''}watch: [/]}`,
).join('\n');

describe.each(databaseKinds())('choosing one of many sites on %s', (kind) => {
  let database: TestDatabase;
  let config: Config;
  let app: ReturnType<typeof historyApp>;
  const clock = { now: START };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    config = parseConfig(
      `agents: [Googlebot]
sites:
  - {url: '${alpha.origin}', name: Alpha shop, watch: [/, /pricing]}
  - {url: '${beta.origin}', name: Beta shop, watch: [/, /pricing]}
${MANY}
  - {url: 'https://news.example.org', name: Example news, watch: [/]}
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  email: {smtp: 'smtp://127.0.0.1:9', from: robowatch@example.com, to: [seo@example.com]}
web: {token: '${TOKEN}'}`,
      { file: 'many.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const deps = checkDepsOn(database.handle.db, fetcher, clock);
    // Both real sites keep Googlebot out of /pricing: an incident and its alert each.
    for (const server of [alpha, beta])
      server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /pricing\n');
    await checkSites(deps, config.sites.slice(0, 2), { concurrency: 1 });
    clock.now = new Date(START.getTime() + 3_600_000);
    app = historyApp(database.handle.db, config, deps, clock);
  });
  afterAll(async () => {
    await database.close();
  });

  const page = async (path: string, init: RequestInit = {}) => {
    const response = await app.request(path, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html', ...init.headers },
    });
    return { status: response.status, text: await response.text() };
  };
  /** The sites a refusal offers, as [link, label]. */
  const candidates = (html: string): [string, string][] => {
    const list = /<ul class="site-candidates">(.*?)<\/ul>/.exec(html)?.[1] ?? '';
    return [...list.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1]!, m[2]!]);
  };
  const incidentOf = (server: FixtureServer) => `${host(server)})</a>: <strong>open</strong>`;

  it('takes the site typed on the Incidents page, by name, address or host', async () => {
    const all = await page('/incidents');
    expect(all.status).toBe(200);
    // No list of five hundred sites: a box to type one in.
    expect(all.text).not.toContain('<select name="site"');
    expect(all.text).toContain('<input type="search" name="site"');
    expect(all.text).not.toContain('site-7.example.com');
    expect(all.text).toContain(incidentOf(alpha));
    expect(all.text).toContain(incidentOf(beta));
    for (const typed of [
      'alpha SHOP',
      alpha.origin,
      `${alpha.origin}/`,
      host(alpha),
      `${host(alpha)}/`,
    ]) {
      const one = await page(`/incidents?site=${encodeURIComponent(typed)}`);
      expect(one.status, typed).toBe(200);
      expect(one.text, typed).toContain(incidentOf(alpha));
      expect(one.text, typed).not.toContain(incidentOf(beta));
      // The box shows the site chosen, by its address.
      expect(one.text).toContain(`value="${alpha.origin}"`);
    }
  });

  it('says when no site, or more than one, is called what was typed', async () => {
    // The page again, with the line and what was typed to mend, and no list: not every
    // site's incidents under a filter that named none.
    const none = await page('/incidents?site=Gamma%20shop');
    expect(none.status).toBe(400);
    expect(none.text).toContain('<h1>Incidents</h1>');
    expect(none.text).toContain(
      '<div class="notice error">site: none of the watched sites is named &quot;Gamma shop&quot; or at that address<p class="muted">No watched site has “Gamma shop” in its name or address either.</p></div>',
    );
    expect(none.text).toContain('value="Gamma shop"');
    expect(none.text).not.toContain(incidentOf(alpha));
    expect(none.text).not.toContain('No open incident');
    const twins = await page('/alerts?site=twin');
    expect(twins.status).toBe(400);
    expect(twins.text).toContain('<h1>Alert log</h1>');
    expect(twins.text).toContain(
      '<div class="notice error">site: 2 watched sites are named &quot;twin&quot;: give the address of the one you mean<p>The sites with that name:</p>',
    );
    expect(twins.text).toContain('value="twin"');
    // Each of them a link to the log of its own alerts.
    expect(candidates(twins.text)).toEqual([
      ['/alerts?site=3', 'Twin (site-1.example.com)'],
      ['/alerts?site=4', 'Twin (site-2.example.com)'],
    ]);
    expect(twins.text).not.toMatch(/(Alpha|Beta) shop \(/);
    // Ten of a name twelve sites share, and what to type for the others.
    const branches = await page('/incidents?site=branch');
    expect(candidates(branches.text).map(([, label]) => label)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Branch (site-${SITE_LIST_MAX - 1 + i}.example.com)`),
    );
    expect(branches.text).toContain(
      'and 2 more with that name: type the address of the one you mean.',
    );
    expect(twins.text).not.toContain('No alert yet');
    // An id, as links give it, still works.
    const byId = await page('/incidents?site=2');
    expect(byId.text).toContain(incidentOf(beta));
    expect(byId.text).not.toContain(incidentOf(alpha));
  });

  it('offers the sites that may be meant as links that keep the other filters', async () => {
    // "shop" names no site, but two have it in their names: links to either's incidents.
    const shop = await page('/incidents?site=shop&state=open');
    expect(shop.status).toBe(400);
    expect(shop.text).toContain('<p>Sites with “shop” in their name or address:</p>');
    expect(candidates(shop.text)).toEqual([
      ['/incidents?site=1&amp;state=open', `Alpha shop (${host(alpha)})`],
      ['/incidents?site=2&amp;state=open', `Beta shop (${host(beta)})`],
    ]);
    const followed = await page('/incidents?site=1&state=open');
    expect(followed.status).toBe(200);
    expect(followed.text).toContain(incidentOf(alpha));
    expect(followed.text).not.toContain(incidentOf(beta));
    // Those whose name or address begins with what was typed first, ten at most, and how
    // many more: 111 hosts begin "site-1" (site-1, site-10 to 19, site-100 to 199).
    const many = await page('/alerts?site=SITE-1&channel=email');
    expect(many.status).toBe(400);
    expect(candidates(many.text).map(([, label]) => label)).toEqual([
      'Twin (site-1.example.com)',
      ...Array.from({ length: 9 }, (_, i) => `site-${10 + i}.example.com`),
    ]);
    expect(candidates(many.text)[0]![0]).toBe('/alerts?site=3&amp;channel=email');
    expect(many.text).toContain('and 101 more: type more of the name or address.');
    // What begins so comes before what holds it: the last site, named "Example news",
    // before every "site-N.example.com".
    const held = await page('/alerts?site=example');
    expect(candidates(held.text).map(([, label]) => label)).toEqual([
      'Example news (news.example.org)',
      'Twin (site-1.example.com)',
      'Twin (site-2.example.com)',
      ...Array.from({ length: 7 }, (_, i) => `site-${3 + i}.example.com`),
    ]);
    expect(held.text).toContain('and 501 more: type more of the name or address.');
  });

  it('filters the alert log by the site typed', async () => {
    const alert = /(Alpha|Beta) shop \([^)]+\): not as intended/g;
    const all = await page('/alerts');
    expect([...all.text.matchAll(alert)].map((m) => m[1]).sort()).toEqual(['Alpha', 'Beta']);
    const log = await page('/alerts?site=Beta%20shop');
    expect(log.status).toBe(200);
    expect([...log.text.matchAll(alert)].map((m) => m[1])).toEqual(['Beta']);
    expect(log.text).toContain(`value="${beta.origin}"`);
  });

  it('tests a file against the site typed, and keeps a name no site has to mend', async () => {
    const form = (site: string) =>
      page('/tester', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          site,
          robots: 'User-agent: *\nDisallow: /\n',
          agents: 'Googlebot',
          urls: '/pricing',
        }).toString(),
      });
    const tested = await form(host(beta));
    expect(tested.status).toBe(200);
    // Paths resolved on the site, and the live file compared.
    expect(tested.text).not.toContain('Choose a site to test this file');
    expect(tested.text).toContain(`value="${beta.origin}"`);
    const refused = await form('Gamma shop');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(
      'site: none of the watched sites is named &quot;Gamma shop&quot; or at that address',
    );
    expect(refused.text).toContain('value="Gamma shop"');
    expect(refused.text).toContain('Disallow: /');
    // The sites a name may mean are said, not links that would lose the file pasted.
    const partly = await form('beta');
    expect(partly.status).toBe(400);
    expect(partly.text).toContain(
      `<ul class="site-candidates"><li>Beta shop (${host(beta)})</li></ul>`,
    );
    expect(partly.text).toContain('Disallow: /');
    // Opened by a link with nothing pasted, the tester offers them as links to open it on.
    const opened = await page('/tester?site=beta');
    expect(opened.status).toBe(400);
    expect(opened.text).toContain('<h1>Test a robots.txt</h1>');
    expect(opened.text).toContain('value="beta"');
    expect(candidates(opened.text)).toEqual([['/tester?site=2', `Beta shop (${host(beta)})`]]);
    const chosen = await page('/tester?site=2');
    expect(chosen.text).toContain(`value="${beta.origin}"`);
    expect(chosen.text).toContain('Disallow: /pricing');
  });
});
