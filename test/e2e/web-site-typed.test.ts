/**
 * Choosing a site by typing it, in a real browser (Debian's Chromium) over a real
 * `robowatch serve` watching more sites than a page lists: the Incidents page takes part of
 * a name, says no site is called that, offers the two shops that have it in their names as
 * links, and one click shows that shop's incident alone, its address now in the box; the
 * alert log takes a name typed in any letter case.
 * Screenshots go to test-results/screenshots/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_LIST_MAX } from '../../src/web/sites.js';
import { screenshot, serveHistory, signInWithToken } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { FixtureServer } from '../support/fixture-server.js';

const TOKEN = 'site-typed-browser-token-0123456789';
// Both shops keep Googlebot out of /pricing, which each means it to crawl.
const RULE = 'User-agent: *\nDisallow: /pricing\n';
/** More sites than a page lists, added once both shops are checked, never fetched. */
const MANY = Array.from(
  { length: SITE_LIST_MAX + 10 },
  (_, i) => `  - {url: 'https://site-${i + 1}.example.com', watch: [/]}`,
).join('\n');

const alpha = new FixtureServer();
const beta = new FixtureServer();
let served: ServedHistory;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  for (const site of [alpha, beta]) await site.start();
  beta.serve('/robots.txt', 200, RULE);
  alpha.serve('/hook', 200, 'ok');
  served = await serveHistory(
    alpha,
    (dataDir) => `dataDir: ${dataDir}
agents: [Googlebot]
sites:
  - {url: '${alpha.origin}', name: Alpha shop, watch: [/, /pricing]}
  - {url: '${beta.origin}', name: Beta shop, watch: [/, /pricing]}
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify: {webhooks: [{url: '${alpha.origin}/hook'}]}
web: {listen: '127.0.0.1:0', token: ${TOKEN}}
`,
    [[200, RULE]],
    (file) => {
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('sitemaps: off', `${MANY}\nsitemaps: off`),
      );
      return Promise.resolve();
    },
  );
  ({ base, browser } = served);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await served?.stop();
  for (const site of [alpha, beta]) await site.stop();
});

const hostOf = (server: FixtureServer) => new URL(server.origin).host;
const siteBox = () => page.locator('form.filter input[name="site"]');
const openIncidents = () => page.locator('h2:has-text("Open") ~ ul.incidents > li');

describe('typing a site among more than a page lists, in Chromium', () => {
  it('offers the shops "shop" may mean, and one click shows its incident alone', async () => {
    await signInWithToken(page, base, TOKEN);

    await page.goto(`${base}/incidents`);
    await expect.poll(() => openIncidents().count()).toBe(2);
    // No list of 512 sites to choose from: a box to type one in.
    expect(await page.locator('select[name="site"]').count()).toBe(0);
    await siteBox().fill('shop');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect
      .poll(() => page.textContent('.notice.error'))
      .toContain('site: none of the watched sites is named "shop" or at that address');
    const offered = page.locator('.notice.error ul.site-candidates a');
    await expect
      .poll(() => offered.allTextContents())
      .toEqual([`Alpha shop (${hostOf(alpha)})`, `Beta shop (${hostOf(beta)})`]);
    // What was typed stays, and no incident is listed under a filter that named none.
    expect(await siteBox().inputValue()).toBe('shop');
    expect(await openIncidents().count()).toBe(0);
    await screenshot(page, 'incidents-site-typed-offered');

    await offered.filter({ hasText: 'Beta shop' }).click();
    await expect.poll(() => siteBox().inputValue()).toBe(beta.origin);
    await expect.poll(() => openIncidents().allTextContents()).toHaveLength(1);
    expect(await openIncidents().first().textContent()).toContain(`Beta shop (${hostOf(beta)})`);
    expect(await page.locator('.notice.error').count()).toBe(0);
    await screenshot(page, 'incidents-site-typed-chosen');
  });

  it('filters the alert log by a name typed in any letter case', async () => {
    await page.goto(`${base}/alerts`);
    const subjects = () => page.locator('ul.alert-log > li > a').allTextContents();
    await expect.poll(async () => (await subjects()).length).toBe(2);
    await page.locator('form.filters input[name="site"]').fill('ALPHA SHOP');
    await page.locator('form.filters input[name="site"]').press('Enter');
    await expect
      .poll(() => page.locator('form.filters input[name="site"]').inputValue())
      .toBe(alpha.origin);
    const left = await subjects();
    expect(left).toHaveLength(1);
    expect(left[0]).toContain(`Alpha shop (${hostOf(alpha)})`);
  });
});
