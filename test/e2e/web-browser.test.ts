/**
 * The web UI in a real browser (Debian's Chromium through playwright-core), served by a
 * real `robowatch serve` over a history recorded by real `robowatch check` runs: a person
 * signs in, goes from the overview to a site, its diff, a verdict's history and the
 * tester, and checks the site now; hostile robots.txt content stays inert text.
 * Screenshots of the main pages go to test-results/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, serveHistory } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { FixtureServer } from '../support/fixture-server.js';
import { HISTORY } from '../support/site-history.js';
import { TestSmtpServer } from '../support/smtp.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** The slice of the browser's window the page scripts below use (no DOM lib in tsconfig). */
interface BrowserWindow {
  getComputedStyle(element: unknown): { backgroundColor: string };
}

const TOKEN = 'browser-test-token-0123456789';

const site = new FixtureServer();
const smtp = new TestSmtpServer();
// A webhook receiver that refuses everything: its channel fails, and shows it.
const hook = new WebhookReceiver('browser-hook-secret');
let served: ServedHistory;
let browser: Browser;
let page: Page;
let base: string;
const dialogs: string[] = [];

beforeAll(async () => {
  await site.start();
  await smtp.start();
  await hook.start();
  hook.status = 500;
  // The site's sitemap: its pricing pages, which v2's `Disallow: /pricing` blocks.
  site.serve(
    '/sitemap.xml',
    200,
    ['/', '/blog/post', ...Array.from({ length: 12 }, (_, i) => `/pricing/plan-${i}`)]
      .map((p) => site.origin + p)
      .join('\n'),
  );
  served = await serveHistory(
    site,
    (dataDir) => `dataDir: ${dataDir}
agents: [Googlebot, GPTBot]
sites:
  - url: ${site.origin}
    watch: [/, /pricing, /private/x, /blog/post]
    sitemaps: [/sitemap.xml]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: '127.0.0.1:0', token: ${TOKEN}}
notify:
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks: [{url: '${hook.url}/hook/secret-path'}]
  retry: {baseDelayMs: 600000, maxDelayMs: 600000}
`,
    [
      [200, HISTORY.v1],
      [200, HISTORY.v2],
      [503, 'down'],
      [200, HISTORY.xss],
    ],
  );
  ({ base, browser } = served);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
}, 90_000);

afterAll(async () => {
  await served?.stop();
  await site.stop();
  await smtp.stop();
  await hook.stop();
});

const shot = (name: string) => screenshot(page, name);

describe('the web UI in Chromium', () => {
  it('asks for the token, then shows the sites', async () => {
    await page.goto(base);
    await expect.poll(() => page.url()).toContain('/login');
    await page.getByLabel('Access token (web.token)').fill('not the token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.textContent('main'))
      .toContain('That token is not the one configured');
    await page.getByLabel('Access token (web.token)').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.textContent('h1')).toBe('Sites');
    const row = page.getByRole('row', { name: new RegExp(site.origin.replace(/[.:/]/g, '\\$&')) });
    await expect.poll(() => row.textContent()).toMatch(/ok/);
    await expect
      .poll(() => row.textContent())
      .toContain('2 of 2 crawlers blocked from a watched page');
    // The last change in words: the most severe cause of the last new state.
    await expect
      .poll(() => row.locator('a.change').textContent())
      .toMatch(/^robots\.txt answers 200 again after \d+ s of 503$/);
    // The 90-day strip: days alike in a row are one bar; together they span 90 days.
    const rects = page.locator('svg.strip rect');
    const bars = await Promise.all(
      Array.from(
        { length: await rects.count() },
        async (_, i) => Number(await rects.nth(i).getAttribute('width')) + 1,
      ),
    );
    expect(bars.reduce((a, b) => a + b, 0)).toBe(90 * 4);
    await shot('overview');
  });

  it('goes to the site: timeline, verdict matrix, changes', async () => {
    await page.getByRole('link', { name: site.origin }).click();
    await expect.poll(() => page.textContent('h1')).toBe(site.origin);
    expect(await page.locator('svg.timeline a').count()).toBe(4);
    expect(await page.locator('svg.timeline rect.unreachable').count()).toBe(1);
    const pricing = page.getByRole('row', { name: /^\/pricing/ });
    await expect
      .poll(() => pricing.textContent())
      .toContain('disallowedline 3: Disallow: /pricing');
    // The changes speak in causes: the 503 says what Google does now.
    const outage = page.locator('li.cause-problem', { hasText: 'robots.txt answers 503' });
    await expect
      .poll(() => outage.textContent())
      .toContain('Google treats the whole site as disallowed');
    await expect
      .poll(() => page.locator('li.cause-recovery').first().textContent())
      .toMatch(/robots\.txt answers 200 again after \d+ s of 503/);
    // A rule in a cause is shown as code, the hostile one as inert text.
    await expect
      .poll(() => page.locator('li.cause strong code').allTextContents())
      .toContain('Disallow: /"><img src=x onerror=alert(1)>');
    // The timeline has a time axis.
    expect(await page.locator('svg.timeline line.axis').count()).toBe(1);
    await shot('site');
    // How much of the sitemap each crawler may fetch, and the change that blocked a share.
    await expect
      .poll(() => page.locator('li.cause').allTextContents())
      .toContainEqual(
        expect.stringContaining('Googlebot: 12 of 14 sitemap URLs (85.7%) newly disallowed'),
      );
    const coverage = page.locator('table.coverage tbody tr', { hasText: 'Googlebot' });
    await expect.poll(() => coverage.textContent()).toContain('/pricing/ (12 of 12)');
    expect(await page.locator('figure.coverage-chart path').count()).toBeGreaterThan(0);
    await page.locator('#coverage').scrollIntoViewIfNeeded();
    await shot('coverage');
  });

  it('opens the latest diff, with additions and removals marked', async () => {
    await page.getByRole('link', { name: 'Latest diff' }).click();
    await expect.poll(() => page.textContent('h1')).toMatch(/^Snapshot \d+ → \d+$/);
    const added = page.locator('pre.diff span.add');
    expect(await added.count()).toBeGreaterThan(0);
    expect(await added.allTextContents()).toContain('+Disallow: /<script>alert(2)</script>');
    // An added line is green, a removed one red: the stylesheet applies (no inline styles).
    const colour = await added
      .first()
      .evaluate(
        (el) => (globalThis as unknown as BrowserWindow).getComputedStyle(el).backgroundColor,
      );
    expect(colour).toBe('rgb(230, 255, 236)');
    await shot('diff');
    // Each crawler's share of the sitemap URLs in the two snapshots.
    const shares = page.locator('section[aria-label="Sitemap URLs before and after"] tbody tr');
    await expect.poll(() => shares.count()).toBeGreaterThan(0);
    await expect.poll(() => shares.first().textContent()).toMatch(/ of 14 /);
    await shares.first().scrollIntoViewIfNeeded();
    await shot('diff-coverage');
  });

  it('follows a verdict to its history: when it flipped, and which line did it', async () => {
    await page.goBack();
    await page
      .getByRole('row', { name: /^\/pricing/ })
      .getByRole('link')
      .first()
      .click();
    await expect.poll(() => page.textContent('h1')).toBe('/pricing for Googlebot');
    // Formatted text, not Markdown: the rule is shown as code.
    await expect
      .poll(() => page.textContent('p.now'))
      .toMatch(/^Now disallowed since \d{4}-\d\d-\d\d by Disallow: \/pricing on line 3\.$/);
    expect(await page.locator('p.now code').textContent()).toBe('Disallow: /pricing');
    // Newest first: the hostile file (same rule), the outage, v2's rule, v1 allowing it.
    const verdicts = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(verdicts).toEqual(['disallowed', 'disallowed', 'disallowed', 'allowed']);
    const causes = await page.locator('tbody tr td:nth-child(4)').allTextContents();
    expect(causes).toEqual([
      'line 3: Disallow: /pricing',
      'robots.txt is unreachable',
      'line 3: Disallow: /pricing',
      'no rule applies',
    ]);
    await shot('verdict-history');
  });

  it('tests a new file against the live one', async () => {
    await page.getByRole('link', { name: `← ${site.origin}` }).click();
    await page.getByRole('link', { name: 'Test a new robots.txt' }).click();
    const robots = page.getByLabel('robots.txt');
    await expect.poll(() => robots.inputValue()).toContain('Disallow: /pricing');
    await robots.fill('User-agent: *\nDisallow: /private/\n');
    await page.getByRole('button', { name: 'Test' }).click();
    // First what a deploy would make of the site against its intent, then the verdicts.
    await expect
      .poll(() => page.locator('p.summary').allTextContents())
      .toEqual([
        'Not as intended: once deployed, /private/x would be blocked for Googlebot (1 page × crawler pair differs from the intent). The live file does the same.',
        'Deploying this file changes 3 verdicts.',
      ]);
    expect(await page.locator('td.changed').count()).toBe(3);
    await shot('tester');
  });

  it('checks the site now', async () => {
    await page.goto(`${base}/sites/1`);
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect.poll(() => page.textContent('.notice')).toBe('Checked now: nothing changed.');
  });

  it('adds a site, shows its baseline, edits its watches, pauses and removes it', async () => {
    // The same loopback server under another name: a site of its own.
    const other = site.origin.replace('127.0.0.1', 'localhost');
    await page.goto(base);
    await page.getByRole('link', { name: 'Add a site' }).click();
    await page.getByRole('textbox', { name: /^Site \(/ }).fill(other);
    await page.getByLabel('Watched pages').fill('nope');
    await page.getByRole('button', { name: 'Add and check now' }).click();
    // Refused in one line, what was typed kept.
    await expect
      .poll(() => page.textContent('.notice.error'))
      .toBe('Watched pages: "nope" must be a path starting with "/" or an absolute URL');
    expect(await page.getByRole('textbox', { name: /^Site \(/ }).inputValue()).toBe(other);
    await page.getByLabel('Name').fill('Staging shop');
    await page.getByLabel('Tags').fill('shop, staging');
    await page.getByLabel('Watched pages').fill('/\n/private/y');
    await shot('add-site');
    await page.getByRole('button', { name: 'Add and check now' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe('Checked now: its first snapshot (the baseline) is below.');
    expect(await page.textContent('h1')).toBe(`Staging shop ${other}`);
    expect(await page.locator('table.matrix th[scope=row] .path').allTextContents()).toEqual([
      '/',
      '/private/y',
    ]);

    await page.getByRole('link', { name: 'Edit settings' }).click();
    await expect.poll(() => page.getByLabel('Watched pages').inputValue()).toBe('/\n/private/y');
    await page.getByLabel('Watched pages').fill('/\n/private/y\n/blog/post');
    await page.getByLabel('Alert emails to').fill('shop-team@example.com');
    await shot('edit-site');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe('Saved: what the current robots.txt means for the new settings is below.');
    // Judged again at once, without a fetch: the new watched URL is in the matrix already.
    expect(await page.locator('table.matrix th[scope=row] .path').allTextContents()).toEqual([
      '/',
      '/private/y',
      '/blog/post',
    ]);
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect
      .poll(() => page.locator('table.matrix th[scope=row] .path').allTextContents())
      .toEqual(['/', '/private/y', '/blog/post']);

    await page.getByRole('button', { name: 'Pause' }).click();
    await expect
      .poll(() => page.locator('.notice').allTextContents())
      .toContain('Paused: robowatch does not check it until it is resumed.');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe('Resumed: it is checked on its schedule again.');

    // Its own recipients are a channel of their own, with a test like any.
    await page.goto(`${base}/notifications`);
    await expect
      .poll(() => page.getByRole('row', { name: /Staging shop/ }).textContent())
      .toContain('Email to shop-team@example.com');
    await page.goBack();

    await page.getByRole('link', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Remove' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe(`${other} is no longer watched. Its history is kept: adding it again carries it on.`);
    expect(await page.locator('table.overview tbody tr').count()).toBe(1);
    // The file's site: paused and resumed like any, its settings stay the file's.
    await page.goto(`${base}/sites/1`);
    expect(await page.getByRole('link', { name: 'Edit settings' }).count()).toBe(0);
    await expect.poll(() => page.textContent('main')).toContain('Settings: in ');
  });

  it('sends a test to each notification channel, and shows the one that fails', async () => {
    await page.goto(base);
    // The alerts of the checks could not reach the webhook: the overview says so.
    await expect
      .poll(() => page.locator('.notice.error').allTextContents())
      .toContainEqual(
        expect.stringMatching(
          /^Notifications to the webhook http:\/\/127\.0\.0\.1:\d+\/… have failed since .* \(\d+ waiting, retried automatically\): http:\/\/127\.0\.0\.1:\d+\/… answered 500 \(notifications\)$/,
        ),
      );
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await expect.poll(() => page.textContent('h1')).toBe('Notifications');
    const email = page.getByRole('row', { name: /Email to seo@example\.com/ });
    const webhook = page.getByRole('row', { name: /Webhook http/ });
    await expect.poll(() => webhook.textContent()).toContain('failing');
    await email.getByRole('button', { name: 'Send a test' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe(
        'A test was sent to seo@example.com and accepted by the mail server: check the inbox (and the spam folder).',
      );
    await expect
      .poll(() => smtp.received.map((m) => m.parsed.subject))
      .toContain('robowatch: test notification');
    const mail = smtp.received.find((m) => m.parsed.subject === 'robowatch: test notification')!;
    expect(mail.envelopeTo).toEqual(['seo@example.com']);
    expect(mail.parsed.text).toContain('No robots.txt changed.');
    await shot('notifications');
    const before = hook.received.length;
    await webhook.getByRole('button', { name: 'Send a test' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toMatch(
        /^The test to the webhook http:\/\/127\.0\.0\.1:\d+\/… failed: http:\/\/127\.0\.0\.1:\d+\/… answered 500$/,
      );
    const test = hook.received.slice(before).find((h) => h.body.includes('"type":"test"'));
    expect(test?.path).toBe('/hook/secret-path');
  });

  it('lists and tests the channels through the API, and /healthz names the failing one', async () => {
    const api = (path: string, init: RequestInit = {}, token: string | null = TOKEN) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: {
          'content-type': 'application/json',
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
      });
    const listed = (await (await api('/api/v1/notifications')).json()) as {
      email: { server: string; from: string };
      channels: { id: string; kind: string; to: string; failing: { error: string } | null }[];
    };
    expect(listed.email).toEqual({ server: smtp.url, from: 'robowatch@example.com' });
    expect(listed.channels.map((c) => [c.id, c.kind])).toEqual([
      ['email', 'email'],
      ['webhook:0', 'webhook'],
    ]);
    // The webhook's path is its secret: never shown.
    expect(JSON.stringify(listed)).not.toContain('secret-path');
    expect(listed.channels[1]!.failing?.error).toMatch(/answered 500$/);

    const sent = await api('/api/v1/notifications/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 'email' }),
    });
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as { sent: boolean }).sent).toBe(true);
    const failed = await api('/api/v1/notifications/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 'webhook:0' }),
    });
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as { error: { message: string } }).error.message).toMatch(
      /^The test to the webhook http:\/\/127\.0\.0\.1:\d+\/… failed: .* answered 500$/,
    );
    const cases: [unknown, string | null, number, string][] = [
      [
        { channel: 'webhook:7' },
        TOKEN,
        404,
        'there is no notification channel "webhook:7" (see GET /api/v1/notifications)',
      ],
      [{ chanel: 'email' }, TOKEN, 400, 'channel: must be a channel id'],
      [{ channel: 'email' }, null, 401, ''],
    ];
    for (const [body, token, status, message] of cases) {
      const response = await api(
        '/api/v1/notifications/test',
        { method: 'POST', body: JSON.stringify(body) },
        token,
      );
      expect(response.status, JSON.stringify(body)).toBe(status);
      if (message !== '')
        expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
          message,
        );
    }

    const health = (await (await api('/healthz')).json()) as {
      status: string;
      notifications: { ok: boolean; failing: { channel: string; destination: string }[] };
    };
    // Failing for less than notify.unhealthyAfterMs (an hour): shown, not yet a fault.
    expect(health.notifications.ok).toBe(true);
    expect(health.notifications.failing.map((f) => f.channel)).toEqual(['webhook']);
    expect(health.notifications.failing[0]!.destination).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/);
  });

  it('shows a crawler across every site, and takes a list of sites to add', async () => {
    await page.goto(base);
    await page.getByRole('link', { name: 'Crawlers', exact: true }).click();
    await expect.poll(() => page.textContent('h1')).toBe('Crawlers');
    await page.getByRole('link', { name: 'GPTBot', exact: true }).click();
    await expect.poll(() => page.textContent('h1')).toBe('GPTBot on every site');
    await expect.poll(() => page.textContent('main')).toContain('blocked from some watched pages');
    await shot('crawler');
    await page.goto(`${base}/sites/bulk`);
    await page.getByLabel(/^Sites/).fill('ftp://nope.example\nnot a site');
    await page.getByRole('button', { name: 'Add these sites' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toBe('0 sites added; 2 lines refused (below, with why).');
    await shot('bulk');
  });

  it('makes a crawler preset and adds a default recipient from the web', async () => {
    await page.goto(`${base}/crawlers`);
    const form = page.locator('#new-preset');
    await form.getByLabel(/^Name/).fill('@shop-bots');
    await form.getByLabel(/^Crawlers/).fill('Bingbot\nPetal.Bot');
    await page.getByRole('button', { name: 'Save preset' }).click();
    await expect
      .poll(() => page.textContent('.notice.error'))
      .toBe('Crawlers (Petal.Bot): must be a crawler product token (letters, "-", "_")');
    await form.getByLabel(/^Crawlers/).fill('Bingbot\nPetalBot');
    await page.getByRole('button', { name: 'Save preset' }).click();
    await expect.poll(() => page.textContent('.notice')).toBe('@shop-bots saved: 2 crawlers.');
    expect(await page.getByRole('row', { name: /@shop-bots/ }).textContent()).toContain(
      'Bingbot, PetalBot',
    );
    await shot('presets');

    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    await page.getByLabel('Alert emails to').fill('team@example.com');
    await page.getByRole('button', { name: 'Save default recipients' }).click();
    await expect
      .poll(() => page.textContent('.notice'))
      .toMatch(/^Default recipients saved: every site without its own alerts them/);
    const email = page.getByRole('row', { name: /Email to seo@example\.com, team@example\.com/ });
    const before = smtp.received.length;
    await email.getByRole('button', { name: 'Send a test' }).click();
    await expect.poll(() => smtp.received.length).toBe(before + 1);
    expect(smtp.received.at(-1)!.envelopeTo).toEqual(['seo@example.com', 'team@example.com']);
    await page.getByLabel('Alert emails to').fill('');
    await page.getByRole('button', { name: 'Save default recipients' }).click();
    await expect
      .poll(() => page.getByRole('row', { name: /Email to seo@example\.com/ }).textContent())
      .not.toContain('team@example.com');
  });

  it('keeps hostile content inert: no script runs, no element is injected', async () => {
    const response = await fetch(`${base}/api/v1/sites/1/snapshots`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { snapshots } = (await response.json()) as { snapshots: { id: number }[] };
    await page.goto(`${base}/sites/1/snapshots/${snapshots[0]!.id}`);
    const lines = page.locator('pre.lines');
    await expect.poll(() => lines.textContent()).toContain('# <script>alert("robots")</script>');
    await expect
      .poll(() => lines.textContent())
      .toContain('Disallow: /"><img src=x onerror=alert(1)>');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    await shot('snapshot');
    await page.goto(`${base}/sites/1`);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    await expect.poll(() => page.textContent('main')).toContain('javascript:alert(3)');
    expect(dialogs).toEqual([]);
  });
});
