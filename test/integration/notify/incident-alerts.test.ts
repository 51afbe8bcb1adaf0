/**
 * Alerts that follow incidents (`notify.events: [incidents]`), through a real SMTP server
 * and a real webhook receiver, on both databases: a deploy that blocks /pricing opens one
 * incident and sends one alert per channel; the file flapping five times within the flap
 * window sends nothing more; the fix is told once the window has passed, with how long
 * the incident lasted. A site with a name is called by it.
 */
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { deliverDueJobs } from '../../../src/monitor/delivery/deliver.js';
import type { JobEngine } from '../../../src/store/jobs.js';
import { createCheckStore, createDaemonStore } from '../../../src/store/index.js';
import { acknowledgeIncident, listIncidents } from '../../../src/store/intent.js';

import { remindIncidents } from '../../../src/monitor/delivery/reminders.js';
import { linksFrom } from '../../../src/policy/links.js';
import { startTestEngine, testDeliveries } from '../../support/job-engine.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { TestSmtpServer } from '../../support/smtp.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const { server: site, fetcher } = useLoopbackSite();
const renderContext = { links: linksFrom('https://rw.example.com'), timeZone: 'UTC' };
const webhook = new WebhookReceiver('s3cret');
const dispatcher = new Agent({ pipelining: 0 });
beforeAll(() => webhook.start());
afterAll(async () => {
  await webhook.stop();
  await dispatcher.close();
});

const FINE = 'User-agent: *\nDisallow: /admin/\n';
const BROKEN = 'User-agent: *\nDisallow: /admin/\nDisallow: /pricing\n';
const MINUTE = 60_000;

describe.each(databaseKinds())('incident alerts on %s', (kind) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let config: Config;
  let now: Date;
  let engine: JobEngine;
  const transports: Transporter[] = [];

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    smtp = new TestSmtpServer();
    await smtp.start();
    now = new Date('2026-06-01T12:00:00Z');
    config = parseConfig(
      `
agents: [Googlebot]
sites:
  - url: ${site.origin}
    name: Shop
    watch: [/, /pricing, /admin/]
    intent:
      - {watch: '/*', agents: [Googlebot], expect: allowed}
      - {watch: /admin/, agents: [Googlebot], expect: disallowed}
notify:
  events: [incidents]
  flapWindow: 1h
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks:
    - {url: ${webhook.url}/hook, secret: s3cret}
    - {url: ${webhook.url}/slack, format: slack}
`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    webhook.received.length = 0;
    engine = await startTestEngine(database.handle.executor);
  });
  afterEach(async () => {
    await engine.stop();
    site.routes.clear();
    for (const t of transports.splice(0)) t.close();
    await smtp.stop();
    await database.close();
  });

  const deliver = () => {
    const transport = nodemailer.createTransport({ url: smtp.url, connectionTimeout: 2_000 });
    transports.push(transport);
    return deliverDueJobs(
      engine,
      testDeliveries(database.handle.db, {
        transport,
        dispatcher,
        secretFor: (url) => (url.endsWith('/hook') ? 's3cret' : undefined),
        context: () => renderContext,
        now: () => now,
        retry: config.notify.retry,
      }),
    );
  };
  const check = async (body: string, at: Date, store = createCheckStore(database.handle.db)) => {
    now = at;
    site.serve('/robots.txt', 200, body);
    const summary = await checkSites(
      {
        fetchRobots: (origin) => fetcher.fetchRobots(origin),
        store,
        now: () => now,
        sleep: () => Promise.resolve(),
        confirmRetries: 0,
        confirmDelayMs: 0,
        flapWindowMs: config.notify.flapWindowMs,
      },
      config.sites,
      { concurrency: 1 },
    );
    expect(summary.failures).toEqual([]);
  };
  const start = new Date('2026-06-01T12:00:00Z');
  const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);

  it('opens one incident per deploy, stays quiet while the file flaps, and tells the fix once', async () => {
    await check(FINE, at(0));
    await deliver();
    expect(smtp.received).toHaveLength(0); // as intended: /admin/ is kept out on purpose

    await check(BROKEN, at(10));
    expect(await deliver()).toMatchObject({ sent: 3, failed: 0 });
    expect(smtp.received).toHaveLength(1);
    const opened = smtp.received[0]!.parsed;
    expect(opened.subject).toBe(
      `Shop (${new URL(site.origin).host}): not as intended: /pricing is blocked for Googlebot`,
    );
    expect(opened.text).toContain('1 watched page × crawler pair differs from the intent:');
    expect(opened.text).toContain('- `/pricing` is blocked for Googlebot, meant to be crawled');
    expect(opened.text).toContain('- Disallow: /pricing (line 3) blocks pages meant to be crawled');
    expect(opened.text).toContain(
      'What changed in robots.txt:\n- /pricing is now disallowed for Googlebot (Disallow: /pricing, line 3)',
    );
    const hook = webhook.received.find((h) => h.path === '/hook')!;
    expect(hook.signatureValid).toBe(true);
    const body = JSON.parse(hook.body) as {
      name: string;
      incident: { id: number; transition: string; violationCount: number };
    };
    expect(body).toMatchObject({
      name: 'Shop',
      incident: { transition: 'opened', violationCount: 1 },
    });
    const slack = JSON.parse(webhook.received.find((h) => h.path === '/slack')!.body) as {
      text: string;
    };
    expect(slack.text.split('\n')[0]).toBe(`*robowatch: ${opened.subject}*`);

    // Seen again, then five relapses within the window: one incident, nothing more sent.
    await check(BROKEN, at(20));
    for (let i = 0; i < 5; i++) {
      await check(FINE, at(30 + i * 10));
      await check(BROKEN, at(35 + i * 10));
    }
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });
    const [incident, ...others] = await listIncidents(database.handle.db, { limit: 10 });
    expect(others).toEqual([]);
    expect(incident).toMatchObject({ id: body.incident.id, state: 'open', reopened: 5 });

    // Fixed: resolved at once; told when the window has passed without a relapse.
    await check(FINE, at(90));
    expect((await listIncidents(database.handle.db, { limit: 1 }))[0]).toMatchObject({
      state: 'resolved',
    });
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });
    now = at(151);
    expect(await deliver()).toMatchObject({ sent: 3, failed: 0 });
    expect(smtp.received).toHaveLength(2);
    const resolved = smtp.received[1]!.parsed;
    expect(resolved.subject).toBe(
      `Shop (${new URL(site.origin).host}): as intended again after 1 h 20 min`,
    );
    expect(resolved.text).toContain(`incident #${body.incident.id}`);
    // Two notifications per channel in all: opened and resolved.
    expect(webhook.received.filter((h) => h.path === '/hook')).toHaveLength(2);
  });

  it('judges a state the process died before judging at the next check: its alert is not lost', async () => {
    await check(FINE, at(0));
    // The new state is recorded, then the process dies before it is judged.
    const dying = createCheckStore(database.handle.db);
    const died = {
      ...dying,
      recordJudgement: () => Promise.reject(new Error('killed')),
    };
    now = at(10);
    site.serve('/robots.txt', 200, BROKEN);
    const summary = await checkSites(
      {
        fetchRobots: (origin) => fetcher.fetchRobots(origin),
        store: died,
        now: () => now,
        sleep: () => Promise.resolve(),
        confirmRetries: 0,
        confirmDelayMs: 0,
      },
      config.sites,
      { concurrency: 1 },
    );
    expect(summary.failures).toHaveLength(1);
    expect(await listIncidents(database.handle.db, { limit: 1 })).toEqual([]);
    // The next check sees the same state, finds it not judged, and judges it.
    await check(BROKEN, at(20));
    expect(await listIncidents(database.handle.db, { limit: 1 })).toMatchObject([
      { state: 'open' },
    ]);
    await deliver();
    expect(smtp.received.map((m) => m.parsed.subject)).toEqual([
      expect.stringContaining('not as intended: /pricing is blocked for Googlebot'),
    ]);
  });

  it('says when an open incident gets worse, and not when it gets better', async () => {
    await check(FINE, at(0));
    await check(BROKEN, at(10));
    await deliver();
    await check(`${BROKEN}Disallow: /$\n`, at(20)); // the home page too: worse
    await deliver();
    await check(BROKEN, at(30)); // better, still broken: quiet
    await deliver();
    expect(smtp.received.map((m) => m.parsed.subject)).toEqual([
      expect.stringContaining('not as intended: /pricing is blocked for Googlebot'),
      expect.stringContaining('worse: / and /pricing are blocked for Googlebot'),
    ]);
  });

  it('reminds of a block past the cells kept as its opening alert told it: whole', async () => {
    // 40 pages × the 7 search engines: 280 cells differ where 200 are kept with the incident.
    const pages = Array.from({ length: 40 }, (_, i) => `/p${i}`);
    config = parseConfig(
      `
agents: ['@search']
sites:
  - url: ${site.origin}
    name: Shop
    watch: [${pages.join(', ')}]
    intent: [{watch: '/*', agents: ['@search'], expect: allowed}]
notify:
  events: [incidents]
  remind: 2h
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    await check(FINE, at(0));
    await check('User-agent: *\nDisallow: /\n', at(10));
    const whole = `/p0, /p1 and 38 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers`;
    const [incident] = await listIncidents(database.handle.db, { limit: 1 });
    // Kept: 28 whole pages × 7 crawlers (196 cells), not the first 5 crawlers of all 40.
    expect([incident!.violations.length, incident!.violationCount]).toEqual([196, 280]);
    expect(incident!.grid).toMatchObject({ pathCount: 40, agentCount: 7, expected: 'allowed' });
    expect(
      await remindIncidents(
        createDaemonStore(database.handle.db),
        config,
        () => config.sites[0],
        at(130),
      ),
    ).toBe(1);
    now = at(130);
    expect(await deliver()).toMatchObject({ sent: 2, failed: 0 });
    expect(smtp.received.map((m) => m.parsed.subject)).toEqual([
      `Shop (${new URL(site.origin).host}): not as intended: ${whole}`,
      `Shop (${new URL(site.origin).host}): still not as intended after 2 h, not acknowledged: ${whole}`,
    ]);
  });

  it('reminds of an open incident nobody acknowledged, every notify.remind, until someone does', async () => {
    const reminding = parseConfig(
      `agents: [Googlebot]\nsites: [{url: '${site.origin}', watch: [/]}]\nnotify: {remind: 2h}`,
      { file: 'remind.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    expect(reminding.notify.remindMs).toBe(7_200_000);
    const remindAt = (minutes: number) =>
      remindIncidents(
        createDaemonStore(database.handle.db),
        { notify: { remindMs: 2 * 60 * MINUTE } },
        () => config.sites[0],
        at(minutes),
      );
    await check(FINE, at(0));
    await check(BROKEN, at(10));
    await deliver();
    expect(await remindAt(60)).toBe(0); // told 50 minutes ago
    expect(await remindAt(130)).toBe(1);
    expect(await remindAt(131)).toBe(0); // once per round
    now = at(130);
    expect(await deliver()).toMatchObject({ sent: 3, failed: 0 });
    const reminder = smtp.received[1]!.parsed;
    expect(reminder.subject).toBe(
      `Shop (${new URL(site.origin).host}): still not as intended after 2 h, not acknowledged: /pricing is blocked for Googlebot`,
    );
    expect(reminder.text).toContain(
      'is still open (since 2026-06-01 12:10 UTC, 2 h) and nobody has acknowledged it',
    );
    const hook = JSON.parse(webhook.received.filter((h) => h.path === '/hook')[1]!.body) as {
      incident: { transition: string };
    };
    expect(hook.incident.transition).toBe('reminder');
    // Counted from the last reminder; acknowledged, never again.
    expect(await remindAt(200)).toBe(0);
    expect(await remindAt(250)).toBe(1);
    const [incident] = await listIncidents(database.handle.db, { limit: 1 });
    await acknowledgeIncident(database.handle.db, incident!.id, {
      note: 'rolling back the deploy',
      by: 'ana',
      at: at(255),
    });
    expect(await remindAt(400)).toBe(0);
    expect(await remindAt(4000)).toBe(0);
    // Off by default.
    expect(config.notify.remindMs).toBeNull();
    expect(
      await remindIncidents(
        createDaemonStore(database.handle.db),
        config,
        () => undefined,
        at(9000),
      ),
    ).toBe(0);
  });
});
