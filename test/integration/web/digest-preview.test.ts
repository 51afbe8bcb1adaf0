/**
 * The digest against intent, previewed and sent from the web UI, on both databases: a
 * page blocked on purpose (accepted as intended) is not "Needs attention"; a deploy that
 * blocks /pricing is, while it lasts; once fixed it is "Broke and recovered". Send now
 * records the digest once per period and the mail server receives it.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import { linksFrom } from '../../../src/policy/links.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { deliverOnce } from '../../support/job-engine.js';
import { START, checkDepsOn, historyApp } from '../../support/site-history.js';
import { TestSmtpServer } from '../../support/smtp.js';

const TOKEN = 'digest-preview-token-0123456789ab';
const bearer = { authorization: `Bearer ${TOKEN}` };
const { server: shop, fetcher } = useLoopbackSite();
const dispatcher = new Agent({ pipelining: 0 });
afterAll(() => dispatcher.close());

const FILE = 'User-agent: *\nDisallow: /admin/\n';
const DEPLOY = 'User-agent: *\nDisallow: /admin/\nDisallow: /pricing\n';

describe.each(databaseKinds())('the digest against intent on %s', (kind) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let config: Config;
  let deps: CheckDeps;
  let app: ReturnType<typeof historyApp>;
  const clock = { now: START };
  const at = (hours: number) => (clock.now = new Date(START.getTime() + hours * 3_600_000));
  /** Checks the shop now, as the daemon would: with its settings and intent as the catalog has them. */
  const check = async () => {
    const response = await app.request('/api/v1/sites/1/check', {
      method: 'POST',
      headers: bearer,
    });
    expect(response.status).toBe(200);
  };
  const page = async (path: string) => {
    const response = await app.request(path, { headers: { ...bearer, accept: 'text/html' } });
    expect(response.status, path).toBe(200);
    return response.text();
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    smtp = await new TestSmtpServer().start();
    config = parseConfig(
      `agents: [Googlebot]
sites:
  - {url: '${shop.origin}', name: Shop, watch: [/, /pricing, /admin/login]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
web: {token: '${TOKEN}'}`,
      { file: 'digest.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    deps = checkDepsOn(database.handle.db, fetcher, clock);
    app = historyApp(database.handle.db, config, deps, clock);
    shop.serve('/robots.txt', 200, FILE);
    await checkSites(deps, config.sites, { concurrency: 1 });
    // /admin/ is blocked on purpose: accepted as intended.
    const accepted = await app.request('/api/v1/sites/1/intent/accept', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(accepted.status).toBe(200);
  });
  afterAll(async () => {
    await smtp.stop();
    await database.close();
  });

  it('does not call a page blocked on purpose a problem', async () => {
    at(24);
    const html = await page('/digests/preview');
    expect(html).toContain('seo@example.com');
    expect(html).not.toContain('Needs attention');
    expect(html).toContain('Against intent: as its owner intends.');
  });

  it('says what differs from the intent while it lasts, and what broke and recovered once fixed', async () => {
    at(48);
    shop.serve('/robots.txt', 200, DEPLOY);
    await check();
    at(50);
    let html = await page('/digests/preview?to=seo%40example.com');
    expect(html).toContain('Needs attention');
    expect(html).toContain(
      '`/pricing` is blocked for Googlebot, meant to be crawled. Why: Disallow: /pricing (line 3) blocks pages meant to be crawled.',
    );
    expect(html).not.toContain('/admin/login` is');

    shop.serve('/robots.txt', 200, FILE);
    await check();
    at(53);
    html = await page('/digests/preview');
    expect(html).not.toContain('Needs attention');
    expect(html).toContain('Broke and recovered this period');
    expect(html).toMatch(
      /Shop \([^)]+\) was not as intended \(at worst 1 watched page × crawler pair\) from [^()]+ to [^()]+ \(2 h\): Disallow: \/pricing \(line 3\) blocks pages meant to be crawled; as intended since\./,
    );
    // The email as it would be sent, sandboxed.
    const email = await app.request('/digests/preview/email.html?to=seo%40example.com', {
      headers: bearer,
    });
    expect(email.status).toBe(200);
    expect(email.headers.get('content-security-policy')).toContain('sandbox');
    expect(await email.text()).toContain('<h2>Broke and recovered this period</h2>');
    // Without a recipient: which one is missing, and where to find them.
    const whose = await app.request('/digests/preview/email.html', { headers: bearer });
    expect(whose.status).toBe(400);
    const refusal = await whose.text();
    expect(refusal).toContain('<h1>Not done</h1>');
    expect(refusal).toContain('whose digest? Add ?to= and a recipient of digests');
    const nobody = await app.request('/digests/preview/email.html?to=nobody%40example.com', {
      headers: bearer,
    });
    expect(nobody.status).toBe(404);
    expect(await nobody.text()).toContain('nobody@example.com receives no digest');
  });

  it('sends the digest now, once per period, and the mail server receives it', async () => {
    const form = new URLSearchParams({ to: 'seo@example.com', since: '7d' });
    const sent = await app.request('/digests/send', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toContain('done=queued'); // no daemon in this process
    // The same period again: not sent twice.
    const again = await app.request('/api/v1/digests/send', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'seo@example.com' }),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      digests: [{ recipient: 'seo@example.com', id: null, queued: false }],
    });
    const nobody = await app.request('/api/v1/digests/send', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'nobody@example.com' }),
    });
    expect(nobody.status).toBe(404);
    expect(((await nobody.json()) as { error: { message: string } }).error.message).toContain(
      'nobody@example.com receives no digest',
    );
    const unsigned = await app.request('/api/v1/digests/send', { method: 'POST' });
    expect(unsigned.status).toBe(401);

    await deliverOnce(database.handle, {
      smtpUrl: smtp.url,
      dispatcher,
      secretFor: () => undefined,
      context: () => ({ links: linksFrom(''), timeZone: 'UTC' }),
      now: () => clock.now,
      retry: config.notify.retry,
    });
    const digests = smtp.received.filter((m) => m.parsed.subject?.startsWith('robowatch digest'));
    expect(digests).toHaveLength(1);
    expect(digests[0]!.parsed.text).toContain('Broke and recovered this period');
    // The alert log has it, sent.
    const log = await page('/alerts');
    expect(log).toContain('class="delivery delivery-sent"');
    expect(log).toContain('robowatch digest');
  });

  it('shows code as code on every page: no backtick is left in the text people read', async () => {
    const pages = [
      '/',
      '/sites/1',
      '/sites/1/diff',
      '/sites/1/snapshots/1',
      `/sites/1/verdicts?url=${encodeURIComponent(`${shop.origin}/pricing`)}&agent=Googlebot`,
      '/incidents',
      '/alerts',
      '/alerts/1',
      '/digests',
      '/digests/preview',
      '/notifications',
      '/crawlers',
      '/trends',
      '/tester?site=1',
    ];
    for (const path of pages) {
      const html = await page(path);
      // The text of the page, without what shows a file or a message as it is.
      const text = html
        .replace(/<(pre|textarea|code|script|style)\b[\s\S]*?<\/\1>/g, '')
        .replace(/<[^>]*>/g, '');
      const at = text.indexOf('`');
      expect(at === -1 ? '' : text.slice(Math.max(0, at - 80), at + 80), path).toBe('');
    }
  });

  it('starts a period that reaches back before any robots.txt history with that history', async () => {
    for (const since of ['999999w', '999999d', '1600w']) {
      const response = await app.request(`/api/v1/digests/preview?since=${since}`, {
        headers: bearer,
      });
      expect(response.status, since).toBe(200);
      const preview = (await response.json()) as {
        period: { start: string };
        digests: { subject: string }[];
      };
      expect(preview.period.start, since).toBe('1996-01-01T00:00:00.000Z');
      expect(preview.digests[0]?.subject, since).toMatch(/^robowatch digest 1996-01-01 to /);
    }
    expect(await page('/digests/preview?since=999999w')).toContain('1996');
  });

  it('does not count an HTML page served with 200 as robots.txt found, in the fetch health', async () => {
    at(60);
    shop.serve('/robots.txt', 200, '<!DOCTYPE html><html><body>CMS error</body></html>');
    await check();
    at(61);
    const text = (await page('/digests/preview?since=1d')).replace(/<[^>]*>/g, '');
    expect(text).toMatch(
      /Fetch health: \d+ checks, all answered with a file; 1 of them a file crawlers cannot read as robots\.txt \(no rules\)\./,
    );
  });
});
