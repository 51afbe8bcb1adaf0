/**
 * The alert log through the API and the pages, on both databases: a deploy that blocks
 * /pricing opens an incident whose alert goes by email (a real SMTP server: sent) and by
 * webhook (a loopback receiver answering 500: failed, with its answer and next attempt);
 * the log lists it with each delivery's state, and shows exactly what each sent.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import { linksFrom } from '../../../src/policy/links.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { deliverOnce } from '../../support/job-engine.js';
import { START, checkDepsOn, historyApp } from '../../support/site-history.js';
import { TestSmtpServer } from '../../support/smtp.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const TOKEN = 'alert-log-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };
const shop = new FixtureServer();
const webhook = new WebhookReceiver('log-secret');
const dispatcher = new Agent({ pipelining: 0 });
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: 'loopback',
});
beforeAll(async () => {
  await Promise.all([shop.start(), webhook.start()]);
});
afterAll(async () => {
  await fetcher.close();
  await dispatcher.close();
  await Promise.all([shop.stop(), webhook.stop()]);
});

interface AlertAnswer {
  id: number;
  kind: string;
  transition: string | null;
  subject: string;
  deliveries: {
    key: string;
    channel: string;
    destination: string;
    state: string;
    attempts: number;
    error: string | null;
    nextAttemptAt: string | null;
    content?: { email?: { text: string; html: string }; body?: string };
  }[];
}

describe.each(databaseKinds())('the alert log on %s', (kind) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let config: Config;
  let deps: CheckDeps;
  let app: ReturnType<typeof historyApp>;
  const clock = { now: START };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    smtp = await new TestSmtpServer().start();
    config = parseConfig(
      `agents: [Googlebot]
sites:
  - {url: '${shop.origin}', name: Shop, watch: [/, /pricing]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks: [{url: '${webhook.url}/hook?token=secret-in-url', secret: log-secret}]
web: {token: '${TOKEN}'}`,
      { file: 'log.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    deps = checkDepsOn(database.handle.db, fetcher, clock);
    shop.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /admin/\n');
    await checkSites(deps, config.sites, { concurrency: 1 });
    clock.now = new Date(START.getTime() + 3_600_000);
    shop.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /pricing\n');
    await checkSites(deps, config.sites, { concurrency: 1 });
    // The webhook's receiver refuses; the mail server takes the email.
    webhook.status = 500;
    await deliverOnce(database.handle, {
      smtpUrl: smtp.url,
      dispatcher,
      secretFor: () => 'log-secret',
      context: () => ({ links: linksFrom(''), timeZone: 'UTC' }),
      now: () => clock.now,
      retry: config.notify.retry,
    });
    app = historyApp(database.handle.db, config, deps, clock);
  });
  afterAll(async () => {
    await smtp.stop();
    await database.close();
  });

  const json = async <T>(path: string) => {
    const response = await app.request(path, { headers: bearer });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  it('lists the incident alert with each delivery: the email sent, the webhook failing', async () => {
    const { alerts } = await json<{ alerts: AlertAnswer[] }>('/api/v1/alerts?site=1');
    expect(alerts).toHaveLength(1);
    const [alert] = alerts;
    const host = new URL(shop.origin).host;
    expect(alert).toMatchObject({
      kind: 'incident',
      transition: 'opened',
      subject: `Shop (${host}): not as intended: /pricing is blocked for Googlebot`,
    });
    const [email, hook] = alert!.deliveries;
    expect(email).toMatchObject({
      channel: 'email',
      state: 'sent',
      error: null,
      nextAttemptAt: null,
    });
    expect(hook).toMatchObject({ channel: 'webhook', state: 'failed', attempts: 1 });
    expect(hook!.error).toMatch(/500/);
    expect(hook!.nextAttemptAt).not.toBeNull();
    // A webhook's URL may hold a secret: the log shows its origin only.
    expect(hook!.destination).not.toContain('secret-in-url');
    expect(smtp.received).toHaveLength(1);
    // Filters.
    expect((await json<{ alerts: unknown[] }>('/api/v1/alerts?state=failed')).alerts).toHaveLength(
      1,
    );
    expect(
      (await json<{ alerts: unknown[] }>('/api/v1/alerts?site=1&state=queued')).alerts,
    ).toHaveLength(0);
    const bad = await app.request('/api/v1/alerts?state=lost', { headers: bearer });
    expect(bad.status).toBe(400);
  });

  it('shows exactly what each delivery sent', async () => {
    const { alerts } = await json<{ alerts: AlertAnswer[] }>('/api/v1/alerts');
    const one = await json<AlertAnswer>(`/api/v1/alerts/${alerts[0]!.id}`);
    const [email, hook] = one.deliveries;
    // The email as the mail server received it.
    expect(email!.content!.email!.text.trim()).toBe(smtp.received[0]!.parsed.text!.trim());
    expect(email!.content!.email!.html).toContain('<code>/pricing</code> is blocked for Googlebot');
    const body = JSON.parse(hook!.content!.body!) as { incident: { transition: string } };
    expect(body.incident.transition).toBe('opened');
    expect(webhook.received.map((r) => r.body)).toContain(hook!.content!.body);
    // Each delivery's key is the header its receiver got: the two logs meet on it.
    expect(webhook.received.map((r) => r.headers['x-robowatch-delivery'])).toContain(hook!.key);
    expect(/^X-Robowatch-Delivery: (\S+)/im.exec(smtp.received[0]!.raw)?.[1]).toBe(email!.key);
    expect(email!.key).not.toBe(hook!.key);

    const list = await (
      await app.request('/alerts?site=1', { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(list).toContain('Shop (');
    expect(list).toContain('class="delivery delivery-sent"');
    expect(list).toContain('class="delivery delivery-failed"');
    expect(list).toMatch(/the receiver said: [^<]*500/);
    const page = await (
      await app.request(`/alerts/${one.id}`, { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(page).toContain('1 watched page × crawler pair differs from the intent:');
    expect(page).toContain(`Sent with <code>X-Robowatch-Delivery: ${hook!.key}</code>`);
  });
});
