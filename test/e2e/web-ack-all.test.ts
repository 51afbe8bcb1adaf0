/**
 * One CDN rule reaches three sites at once, in a real browser (Debian's Chromium) over a
 * real `robowatch serve`: the Incidents page lists three open incidents; one is
 * acknowledged on its own with its note; "Acknowledge all 2" gives the other two one note,
 * leaves the first one's as it was, and the form goes once none waits.
 * Screenshots go to test-results/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, serveHistory, signInWithToken } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { FixtureServer } from '../support/fixture-server.js';

const TOKEN = 'ack-all-browser-token-0123456789';
// The CDN's rule: every site keeps Googlebot out of /pricing, which it is meant to crawl.
const CDN_RULE = 'User-agent: *\nDisallow: /pricing\n';

const shop = new FixtureServer();
const blog = new FixtureServer();
const docs = new FixtureServer();
let served: ServedHistory;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  for (const site of [shop, blog, docs]) await site.start();
  blog.serve('/robots.txt', 200, CDN_RULE);
  docs.serve('/robots.txt', 200, CDN_RULE);
  served = await serveHistory(
    shop,
    (dataDir) => `dataDir: ${dataDir}
agents: [Googlebot]
sites:
  - {url: '${shop.origin}', name: Shop, watch: [/, /pricing]}
  - {url: '${blog.origin}', name: Blog, watch: [/, /pricing]}
  - {url: '${docs.origin}', name: Docs, watch: [/, /pricing]}
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: '127.0.0.1:0', token: ${TOKEN}}
`,
    [[200, CDN_RULE]],
  );
  ({ base, browser } = served);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await served?.stop();
  for (const site of [shop, blog, docs]) await site.stop();
});

const openIncident = (name: string) =>
  page.locator('h2:has-text("Open") ~ ul.incidents > li').filter({ hasText: `${name} (` });
const ackAll = () => page.locator('form[action="/incidents/ack-open"]');

describe('acknowledging every open incident at once in Chromium', () => {
  it('gives the incidents no one has yet one note, and keeps the note given by hand', async () => {
    await signInWithToken(page, base, TOKEN);
    await page.goto(`${base}/incidents`);
    await expect.poll(() => page.textContent('main')).toContain('3 open, 3 not acknowledged.');
    await expect.poll(() => ackAll().getByRole('button').textContent()).toBe('Acknowledge all 3');

    // Docs' owner has it in hand already, with a note of their own.
    const own = openIncident('Docs').locator('form.ack');
    await own.getByLabel('Note', { exact: true }).fill('Docs: exception added to the CDN rule');
    await own.getByLabel('By', { exact: true }).fill('Bo');
    await own.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => page.textContent('.notice')).toMatch(/^Acknowledged/);
    await page.goto(`${base}/incidents`);
    await expect.poll(() => page.textContent('main')).toContain('3 open, 2 not acknowledged.');
    await expect.poll(() => ackAll().getByRole('button').textContent()).toBe('Acknowledge all 2');
    await screenshot(page, 'incidents-ack-all-form');

    await ackAll().getByLabel('Note', { exact: true }).fill('CDN rule rolled back');
    await ackAll().getByLabel('By', { exact: true }).fill('Ana (SEO)');
    await ackAll().getByRole('button').click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe('Acknowledged 2 incidents: the note, and who wrote it, are on each.');
    for (const name of ['Shop', 'Blog'])
      await expect
        .poll(() => openIncident(name).textContent())
        .toMatch(/acknowledged by Ana \(SEO\) .*: “CDN rule rolled back”/);
    expect(await openIncident('Docs').textContent()).toMatch(
      /acknowledged by Bo .*: “Docs: exception added to the CDN rule”/,
    );
    // None waits: the form is gone.
    expect(await page.textContent('main')).toContain('3 open, every one acknowledged.');
    expect(await ackAll().count()).toBe(0);
    await screenshot(page, 'incidents-ack-all-done');
  });
});
