/**
 * Intent, incidents and the alert log in a real browser (Debian's Chromium), served by a
 * real `robowatch serve` over a site first checked by `robowatch check` (which sends its
 * alerts through a real SMTP server and a loopback webhook): a page blocked on purpose is
 * accepted as intended; a deploy that blocks /pricing opens one incident, which is
 * acknowledged, flaps five times as one incident, and resolves with its duration; the
 * alert log shows each alert with its delivery states and exactly what was sent.
 * Screenshots go to test-results/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, serveHistory, signInWithToken } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { FixtureServer } from '../support/fixture-server.js';
import { TestSmtpServer } from '../support/smtp.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'intent-browser-token-0123456789';
const ADMIN = 'User-agent: *\nDisallow: /admin/\n';
const PRICING = 'User-agent: *\nDisallow: /admin/\nDisallow: /pricing\n';

const site = new FixtureServer();
const smtp = new TestSmtpServer();
const hook = new WebhookReceiver('intent-hook-secret');
let served: ServedHistory;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  await site.start();
  await smtp.start();
  await hook.start();
  served = await serveHistory(
    site,
    (dataDir) => `dataDir: ${dataDir}
agents: [Googlebot, GPTBot]
sites:
  - url: ${site.origin}
    name: Shop
    watch: [/, /pricing, /admin/]
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: '127.0.0.1:0', token: ${TOKEN}}
notify:
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks: [{url: '${hook.url}/hook', secret: intent-hook-secret}]
`,
    [[200, ADMIN]],
  );
  ({ base, browser } = served);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await served?.stop();
  await site.stop();
  await smtp.stop();
  await hook.stop();
});

const shot = (name: string) => screenshot(page, name);
const checkNow = async () => {
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect.poll(() => page.textContent('.notice')).toMatch(/^Checked now/);
};

describe('intent, incidents and the alert log in Chromium', () => {
  it('says the site is not as intended, and accepts a page blocked on purpose', async () => {
    await signInWithToken(page, base, TOKEN);
    // Googlebot is meant to crawl every watched page (the built-in intent): /admin/ is not.
    await expect
      .poll(() => page.textContent('main'))
      .toContain('not as intended: 1 page × crawler pair');
    await shot('intent-overview');
    await page.getByRole('link', { name: 'Shop' }).first().click();
    await expect
      .poll(() => page.textContent('#intent + p'))
      .toContain('not as intended: 1 page × crawler pair');
    await expect
      .poll(() => page.textContent('ul.violations'))
      .toContain('/admin/ is blocked for Googlebot');
    // The cell that differs is marked; accepting it takes its verdict as intended.
    expect(await page.locator('td.differs').count()).toBe(1);
    await page.locator('td.differs').getByRole('button', { name: 'accept' }).click();
    await expect.poll(() => page.textContent('.notice')).toMatch(/^Accepted as intended/);
    await expect.poll(() => page.textContent('#intent + p')).toContain('as intended');
    expect(await page.locator('td.differs').count()).toBe(0);
    // The incident the baseline opened is resolved, with how long it lasted.
    await expect
      .poll(() => page.textContent('section[aria-labelledby=intent]'))
      .toMatch(/resolved .* after \d+/);
  });

  it('opens one incident when a deploy blocks /pricing, through flapping, until the fix', async () => {
    site.serve('/robots.txt', 200, PRICING);
    await checkNow();
    await expect
      .poll(() => page.textContent('section[aria-labelledby=intent]'))
      .toContain('/pricing is blocked for Googlebot');
    await expect
      .poll(() => page.textContent('section[aria-labelledby=intent]'))
      .toMatch(/open for \d[^,]*, since \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await page.getByLabel('Note', { exact: true }).fill('Rolling back the deploy');
    await page.getByLabel('By', { exact: true }).fill('Ana (SEO)');
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => page.textContent('.notice')).toMatch(/^Acknowledged/);
    await expect
      .poll(() => page.textContent('section[aria-labelledby=intent]'))
      .toContain('acknowledged by Ana (SEO)');
    await shot('intent-incident');
    // Five relapses within the flap window: still the one incident.
    for (let i = 0; i < 5; i++) {
      site.serve('/robots.txt', 200, ADMIN);
      await checkNow();
      site.serve('/robots.txt', 200, PRICING);
      await checkNow();
    }
    await page.goto(`${base}/incidents`);
    const open = page.locator('h2:has-text("Open") + p + ul.incidents > li');
    expect(await open.count()).toBe(1);
    await expect.poll(() => open.first().textContent()).toContain('came back 5 times');
    // The fix resolves it, with its duration.
    await page.goBack();
    site.serve('/robots.txt', 200, ADMIN);
    await checkNow();
    await expect
      .poll(() => page.textContent('section[aria-labelledby=intent]'))
      .toMatch(/resolved .* after \d+ (s|min)/);
  });

  it('keeps every alert with its deliveries, and shows exactly what was sent', async () => {
    await page.goto(`${base}/alerts`);
    const entries = page.locator('ul.alert-log > li');
    // Newest first: the fix's resolution and the accepted page's, each waiting out the flap
    // window; the deploy's incident, queued for the daemon (serve sends nothing); the
    // baseline's, sent by robowatch check. The flapping withdrew its resolutions: no more.
    await expect.poll(() => entries.count()).toBe(4);
    const subjects = await Promise.all(
      [0, 1, 2, 3].map((i) => entries.nth(i).locator('a').first().textContent()),
    );
    expect(subjects).toEqual([
      expect.stringMatching(/: as intended again after \d+ (s|min)$/),
      expect.stringMatching(/: not as intended: \/pricing is blocked for Googlebot$/),
      expect.stringMatching(/: as intended again after \d+ (s|min)$/),
      expect.stringMatching(/: not as intended: \/admin\/ is blocked for Googlebot$/),
    ]);
    expect(await entries.nth(3).locator('.delivery-sent').count()).toBe(2);
    expect(await entries.nth(1).locator('.delivery-queued').count()).toBe(2);
    await shot('alert-log');
    await entries.nth(3).locator('a').first().click();
    await expect.poll(() => page.textContent('h1')).toContain('Shop (');
    const text = await page.locator('pre.sent').first().textContent();
    // Sent by `robowatch check`, which links to web.listen (no web.publicUrl here); shown by
    // `robowatch serve`, which links to where it listens: the same but for the links' origin.
    const origins = (t: string) =>
      t.trim().replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://robowatch');
    expect(origins(text!)).toBe(origins(smtp.received[0]!.parsed.text!));
    await shot('alert-sent');
  });

  it('changes the intent one entry at a time on the site page', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Shop' }).first().click();
    // Set here (the accept above): the entries are shown open.
    expect(await page.locator('details.intent-entries').getAttribute('open')).not.toBeNull();
    // GPTBot is to be kept out of /pricing; the file lets it in.
    await page.getByLabel('Watched pages').fill('/pricing');
    await page.getByLabel('Crawlers', { exact: true }).fill('GPTBot');
    await page.getByLabel('Meant to be').selectOption('disallowed');
    await page.getByRole('button', { name: 'Add to the intent' }).click();
    await expect.poll(() => page.textContent('.notice')).toMatch(/^Entry added to the intent/);
    await expect
      .poll(() => page.textContent('section[aria-labelledby=intent]'))
      .toContain('/pricing is open to GPTBot');
    expect(await page.locator('td.differs').count()).toBe(1);
    await shot('intent-editor');
  });

  it('previews the next digest against intent, and queues it with Send now', async () => {
    await page.goto(`${base}/digests`);
    await page.getByRole('link', { name: 'The next digest' }).click();
    await expect.poll(() => page.textContent('h1')).toBe('The next digest');
    const digest = page.locator('section pre');
    // What differs from the intent now; what broke and was fixed this week, and that the
    // site broke again after it (GPTBot let into /pricing): never "as intended since".
    await expect.poll(() => digest.textContent()).toContain('`/pricing` is open to GPTBot');
    expect(await digest.textContent()).toContain('Broke and recovered this period');
    expect(await digest.textContent()).toMatch(
      /- Shop \([^)]+\) was not as intended \(at worst 1 watched page × crawler pair\) from .* \(\d+ (s|min)\): Disallow: \/pricing \(line 3\) blocks pages meant to be crawled; it is broken again now \(under "Needs attention"\)\./,
    );
    expect(await digest.textContent()).not.toContain('; as intended since.');
    // Its links point where the web UI listens.
    expect(await digest.textContent()).toContain(`${base}/sites/1`);
    await shot('digest-preview');
    await page.getByRole('button', { name: 'Send now to seo@example.com' }).click();
    await expect.poll(() => page.textContent('.notice')).toMatch(/^Queued: the daemon/);
    await page.goto(`${base}/alerts`);
    await expect
      .poll(() => page.locator('ul.alert-log > li').first().textContent())
      .toContain('robowatch digest');
  });
});
