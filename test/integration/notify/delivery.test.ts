/**
 * Alerts from a change to the receiver: the check writes the outbox rows with its
 * snapshot; the deliverer sends them through a real SMTP server and a real webhook
 * receiver; failures are retried with backoff; nothing arrives twice.
 */
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { deliverDueJobs } from '../../../src/monitor/delivery/deliver.js';
import type { DeliveryJobDeps } from '../../../src/monitor/delivery/deliver.js';
import type { JobEngine } from '../../../src/store/jobs.js';
import { startTestEngine, testDeliveries } from '../../support/job-engine.js';
import { createCheckStore } from '../../../src/store/index.js';
import { pendingOutbox } from '../../../src/store/outbox.js';
import { linksFrom } from '../../../src/policy/links.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { TestSmtpServer } from '../../support/smtp.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const { server: site, fetcher } = useLoopbackSite();
const renderContext = { links: linksFrom('https://rw.example.com'), timeZone: 'UTC' };
const webhook = new WebhookReceiver('s3cret');
const dispatcher = new Agent({ pipelining: 0 }); // as main.ts makes it
beforeAll(() => webhook.start());
afterAll(async () => {
  await webhook.stop();
  await dispatcher.close();
});

const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 =
  'User-agent: *\nDisallow: /private/\nDisallow: /pricing\nDisallow: /<script>alert(1)</script>\n';

describe.each(databaseKinds())('alert delivery on %s', (kind) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let config: Config;
  let now: Date;
  const transports: Transporter[] = [];

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    smtp = new TestSmtpServer();
    await smtp.reservePort();
    now = new Date('2026-06-01T12:00:00Z');
    config = parseConfig(
      `
agents: [Googlebot]
sites:
  - url: ${site.origin}
    watch: [/, /pricing, '/<script>alert(1)</script>']
notify:
  events: [newly_disallowed, rules_changed]
  email: {smtp: '\${SMTP_URL}', from: robowatch@example.com, to: [seo@example.com, ops@example.com]}
  webhooks:
    - {url: ${webhook.url}/hook, secret: '\${HOOK_SECRET}'}
    - {url: ${webhook.url}/slack, format: slack}
  retry: {baseDelayMs: 60000, maxDelayMs: 600000}
`,
      {
        file: 'test.yaml',
        cwd: '/tmp',
        env: { SMTP_URL: smtp.url, HOOK_SECRET: 's3cret' },
        version: 'test',
      },
    );
    webhook.received.length = 0;
    webhook.status = 200;
    webhook.answer = '';
  });
  afterEach(async () => {
    for (const started of engines.splice(0)) await started.stop();
    site.routes.clear();
    for (const t of transports.splice(0)) t.close();
    await smtp.stop();
    await database.close();
  });

  function deliverer(): DeliveryJobDeps {
    const transport = nodemailer.createTransport({ url: smtp.url, connectionTimeout: 2_000 });
    transports.push(transport);
    return testDeliveries(database.handle.db, {
      transport,
      dispatcher,
      secretFor: (url) => (url.endsWith('/hook') ? 's3cret' : undefined),
      context: () => renderContext,
      now: () => now,
      retry: config.notify.retry,
    });
  }

  /** A process's job engine on the test's database (one-shot: no maintenance). */
  const engines: JobEngine[] = [];
  async function engine(): Promise<JobEngine> {
    const started = await startTestEngine(database.handle.executor);
    engines.push(started);
    return started;
  }
  /** What is due by the test's clock, delivered as a one-shot command delivers it. */
  const deliver = async (jobs?: JobEngine) => deliverDueJobs(jobs ?? (await engine()), deliverer());

  async function check(body: string) {
    site.serve('/robots.txt', 200, body);
    const deps = {
      fetchRobots: (origin: string) => fetcher.fetchRobots(origin),
      store: createCheckStore(database.handle.db),
      now: () => now,
      sleep: () => Promise.resolve(),
      confirmRetries: 0,
      confirmDelayMs: 0,
    };
    const summary = await checkSites(deps, config.sites, { concurrency: 1 });
    expect(summary.failures).toEqual([]);
  }

  it('queues alerts with the snapshot and delivers each once, by email and webhook', async () => {
    await smtp.start();
    await check(V1);
    expect(await pendingOutbox(database.handle.db)).toEqual([]); // a baseline alerts nothing
    await check(V2);
    expect(await pendingOutbox(database.handle.db)).toHaveLength(3); // one email, two webhooks

    expect(await deliver()).toEqual({ sent: 3, failed: 0 });
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });

    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail!.envelopeTo.sort()).toEqual(['ops@example.com', 'seo@example.com']);
    expect(mail!.parsed.subject).toBe(
      `${new URL(site.origin).host}: /pricing is now disallowed for Googlebot (Disallow: /pricing, line 3) (and 1 more change)`,
    );
    expect(mail!.parsed.messageId).toMatch(/^<[0-9a-f-]{36}@robowatch>$/);
    expect(mail!.parsed.text).toContain(
      '1. `Disallow: /pricing` added to the `*` group (line 3)\n   - now disallowed for Googlebot: /pricing\n',
    );
    // The watched URL is %-encoded and the pattern is not: Google does not match them.
    expect(mail!.parsed.text).toContain(
      '2. `Disallow: /<script>alert(1)</script>` added to the `*` group (line 4)\n   No watched page changes for Googlebot.',
    );
    expect(mail!.parsed.text).toContain('https://rw.example.com/sites/1/diff?from=1&to=2');
    // A pattern from the file is text, not markup.
    expect(mail!.parsed.html).toContain(
      '<code>Disallow: /&lt;script&gt;alert(1)&lt;/script&gt;</code> added to the',
    );
    expect(mail!.parsed.html).not.toContain('<script>');

    const hook = webhook.received.find((h) => h.path === '/hook')!;
    expect(hook.signatureValid).toBe(true);
    expect(hook.headers['x-robowatch-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    const payload = JSON.parse(hook.body) as {
      site: string;
      events: { type: string; url: string }[];
    };
    expect(payload.site).toBe(site.origin);
    expect(payload.events.map((e) => e.type)).toEqual(['newly_disallowed', 'rules_changed']);
    const slack = webhook.received.find((h) => h.path === '/slack')!;
    expect(slack.headers['x-robowatch-signature']).toBeUndefined();
    expect((JSON.parse(slack.body) as { text: string }).text).toMatch(
      /^\*robowatch: .*\/pricing is now disallowed for Googlebot.*\*\n• `Disallow: \/pricing` added to the `\*` group \(line 3\)\n/,
    );
  });

  it('retries while the SMTP server is down and sends exactly once when it is back', async () => {
    await check(V1);
    await check(V2);
    const first = await deliver();
    expect(first).toMatchObject({ sent: 2, failed: 1 }); // the webhooks went; the email did not
    const [pending] = await pendingOutbox(database.handle.db);
    expect(pending).toMatchObject({
      attempts: 1,
      lastError: expect.stringMatching(/ECONNREFUSED/) as unknown,
    });

    // Not due again before its backoff: 60 s after the failure.
    now = new Date(now.getTime() + 59_000);
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });
    now = new Date(now.getTime() + 1_000);
    expect(await deliver()).toMatchObject({ sent: 0, failed: 1 }); // still down
    // Backoff doubles: 120 s this time.
    now = new Date(now.getTime() + 119_000);
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });

    await smtp.start();
    now = new Date(now.getTime() + 1_000);
    expect(await deliver()).toEqual({ sent: 1, failed: 0 });
    now = new Date(now.getTime() + 3_600_000);
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });
    expect(smtp.received).toHaveLength(1);
    expect(webhook.received).toHaveLength(2);
  });

  it('retries a webhook that fails, with the same delivery key', async () => {
    await smtp.start();
    await check(V1);
    await check(V2);
    webhook.status = 500;
    await deliver();
    // The error kept says what failed, without the webhook's path (often its secret).
    const [failed] = await pendingOutbox(database.handle.db);
    expect(failed).toMatchObject({
      attempts: 1,
      lastError: `${new URL(webhook.url).origin}/… answered 500`,
    });
    webhook.status = 200;
    now = new Date(now.getTime() + 60_000);
    await deliver();
    const keys = webhook.received
      .filter((h) => h.path === '/hook')
      .map((h) => h.headers['x-robowatch-delivery']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]); // the receiver can tell it is the same notification
    expect(await pendingOutbox(database.handle.db)).toEqual([]);
  });

  it('keeps what a failing receiver said, with characters the store cannot keep written out', async () => {
    await smtp.start();
    await check(V1);
    await check(V2);
    webhook.status = 500;
    // A hostile or broken receiver: a NUL and a terminal escape in its error.
    webhook.answer = JSON.stringify({ message: 'quota\u0000 exceeded \u001b[31mred' });
    expect(await deliver()).toMatchObject({ sent: 1, failed: 2 });
    const failed = await pendingOutbox(database.handle.db);
    expect(failed.map((f) => [f.attempts, f.lastError])).toEqual([
      [1, `${new URL(webhook.url).origin}/… answered 500: quota\\x00 exceeded \\x1b[31mred`],
      [1, `${new URL(webhook.url).origin}/… answered 500: quota\\x00 exceeded \\x1b[31mred`],
    ]);
    // Retried when due, and sent once the receiver mends.
    webhook.status = 200;
    now = new Date(now.getTime() + 60_000);
    expect(await deliver()).toEqual({ sent: 2, failed: 0 });
    expect(await pendingOutbox(database.handle.db)).toEqual([]);
  });

  it('lets several processes deliver at once without sending anything twice', async () => {
    await smtp.start();
    await check(V1);
    for (let i = 0; i < 5; i++) {
      await check(i % 2 ? V1 : V2); // every change alerts (rules_changed at least)
    }
    const rows = (await pendingOutbox(database.handle.db)).length;
    expect(rows).toBe(15);
    // Three processes, each with its engine, working the same queue at once.
    const processes = await Promise.all([engine(), engine(), engine()]);
    const results = await Promise.all(processes.map((jobs) => deliver(jobs)));
    const again = await Promise.all(processes.slice(0, 2).map((jobs) => deliver(jobs)));
    const sent = [...results, ...again].reduce((sum, r) => sum + r.sent, 0);
    expect(sent).toBe(15);
    expect(smtp.received).toHaveLength(5);
    expect(new Set(smtp.received.map((m) => m.parsed.messageId)).size).toBe(5);
    expect(webhook.received).toHaveLength(10);
  });
});
