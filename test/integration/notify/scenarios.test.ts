/**
 * The incidents a user must hear about, as a user with the default crawler presets (24
 * crawlers) receives them: a real loopback site, the real check, a real SMTP server (that
 * refuses messages over 1 MB, as real ones do) and webhook receivers. For each: the
 * subject, the size and line count of what arrives, the links to the web UI, and every
 * changed (URL × crawler) pair explained by exactly one cause.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { CheckOutcome } from '../../../src/monitor/check/site.js';
import { deliverDueJobs } from '../../../src/monitor/delivery/deliver.js';
import { startTestEngine, testDeliveries } from '../../support/job-engine.js';
import { prepareDigests } from '../../../src/monitor/delivery/digests.js';
import { digestData, renderDigest } from '../../../src/notify/render-digest.js';
import { linksFrom } from '../../../src/policy/links.js';
import {
  createCheckStore,
  createDaemonStore,
  createSiteDirectory,
  createWebStore,
} from '../../../src/store/index.js';
import { SiteCatalog } from '../../../src/monitor/sites/catalog.js';
import { createApp } from '../../../src/web/app.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { createMetrics } from '../../../src/lib/metrics.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { TestSmtpServer } from '../../support/smtp.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const { server: site, fetcher } = useLoopbackSite();
const hooks = new WebhookReceiver('hook-secret');
const dispatcher = new Agent({ pipelining: 0 }); // as main.ts makes it
beforeAll(() => hooks.start());
afterAll(async () => {
  await hooks.stop();
  await dispatcher.close();
});

const PUBLIC = 'https://robowatch.example.com';

/** What users received, kept in test-results/emails/ to look at (and for the README). */
function keep(kind: string, name: string, subject: string, text: string, bytes: number): void {
  const dir = fileURLToPath(new URL('../../../test-results/emails/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${kind}-${name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.txt`;
  writeFileSync(join(dir, file), `Subject: ${subject}\n(${bytes} bytes as sent)\n\n${text}`);
}
const context = { links: linksFrom(PUBLIC), timeZone: 'UTC' };

/** Twelve Disallow rules for everyone, and GPTBot kept out of the blog. */
const FILE =
  'User-agent: *\n' +
  ['/cart', '/private/', '/tmp/', '/x1', '/x2', '/x3', '/x4', '/x5', '/x6', '/x7', '/x8', '/x9']
    .map((p) => `Disallow: ${p}\n`)
    .join('') +
  '\nUser-agent: GPTBot\nDisallow: /blog/\n';

/** 14,000 rules in 630 KB: Google reads the first 500 KiB. */
const HUGE =
  'User-agent: *\n' +
  Array.from({ length: 14_000 }, (_, i) => `Disallow: /archive/${i}/page-with-a-long-name-\n`).join(
    '',
  );

type Serve = () => void;
const serve =
  (status: number, body: string, headers: Record<string, string> = {}): Serve =>
  () =>
    site.serve('/robots.txt', status, body, headers);

/** Each scenario: what the site serves after FILE, and what the user must receive. */
const SCENARIOS: {
  name: string;
  then: Serve;
  subject: string | null;
  text?: string;
}[] = [
  {
    name: 'robots.txt answers 503',
    then: serve(503, 'down for maintenance'),
    subject: 'robots.txt answers 503 (Google crawls nothing)',
    text: 'Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again',
  },
  {
    name: 'robots.txt answers 404',
    then: serve(404, 'not found'),
    subject: 'robots.txt answers 404 (every URL crawlable)',
    text: "Every URL is crawlable; the file's 13 Disallow rules no longer apply.",
  },
  {
    name: 'robots.txt redirects in a loop',
    then: () =>
      site.routes.set('/robots.txt', (_req, res) => {
        res.writeHead(302, { location: '/robots.txt' });
        res.end();
      }),
    subject: 'robots.txt redirects more than 5 times (treated like a 404: every URL crawlable)',
    text: 'Google treats a redirect loop like a 404',
  },
  {
    name: 'an HTML page served with 200',
    then: serve(
      200,
      '<!DOCTYPE html>\n<html><head><title>Oops</title></head><body>CMS error</body></html>\n',
      {
        'content-type': 'text/html',
      },
    ),
    subject: 'robots.txt is an HTML page (every URL crawlable)',
    text: 'Crawlers find no rules in an HTML page, so every URL is crawlable, as with a 404',
  },
  {
    name: 'a 630 KB file of 14,000 rules',
    then: serve(200, HUGE),
    subject: 'robots.txt is over 500 KiB (the rest is ignored) (and 4 more changes)',
    text: 'Google reads only the first 500 KiB',
  },
  {
    name: 'a rule added to `*`',
    then: serve(200, FILE.replace('Disallow: /x9\n', 'Disallow: /x9\nDisallow: /politics/\n')),
    subject: '/politics/vote is now disallowed for 44 crawlers (Disallow: /politics/, line 14)',
    text: 'now disallowed for all 44 crawlers that read the `*` group: /politics/vote',
  },
  {
    name: 'a new Googlebot group that shadows `*`',
    then: serve(200, `${FILE}\nUser-agent: Googlebot\nDisallow: /pricing\n`),
    subject: '/pricing is now disallowed for Googlebot (new Googlebot group, line 18)',
    text: 'Googlebot now reads this group instead of the `*` group.',
  },
];

describe.each(databaseKinds())('what users receive, on %s', (kind) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let config: Config;
  let now: Date;
  let transport: Transporter;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    smtp = new TestSmtpServer(1_000_000);
    await smtp.start();
    transport = nodemailer.createTransport({ url: smtp.url, connectionTimeout: 5_000 });
    now = new Date('2026-11-23T03:12:00Z');
    hooks.received.length = 0;
    config = parseConfig(
      `
sites:
  - url: ${site.origin}
    watch: [/, /pricing, /cart, /politics/vote, /private/x, /blog/post]
notify:
  # Every change, as alerts said it before incidents: what these scenarios show.
  events: [changed]
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks:
    - {url: '${hooks.url}/json', secret: hook-secret}
    - {url: '${hooks.url}/slack', format: slack}
web: {publicUrl: '${PUBLIC}'}
`,
      { file: 'scenarios.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
  });
  afterEach(async () => {
    site.routes.clear();
    transport.close();
    await smtp.stop();
    await database.close();
  });

  async function check(): Promise<CheckOutcome> {
    let outcome: CheckOutcome | undefined;
    const summary = await checkSites(
      {
        fetchRobots: (origin) => fetcher.fetchRobots(origin),
        store: createCheckStore(database.handle.db),
        now: () => now,
        sleep: () => Promise.resolve(),
        confirmRetries: 0,
        confirmDelayMs: 0,
      },
      config.sites,
      { concurrency: 1, onOutcome: (o) => (outcome = o) },
    );
    expect(summary.failures).toEqual([]);
    now = new Date(now.getTime() + 3_600_000);
    return outcome!;
  }

  async function deliver() {
    const engine = await startTestEngine(database.handle.executor);
    try {
      return await deliverDueJobs(
        engine,
        testDeliveries(database.handle.db, {
          transport,
          dispatcher,
          secretFor: (url) => (url.endsWith('/json') ? 'hook-secret' : undefined),
          context: () => context,
          now: () => now,
          retry: config.notify.retry,
        }),
      );
    } finally {
      await engine.stop();
    }
  }

  it('has the 45 default crawlers', () => expect(config.sites[0]!.agents).toHaveLength(45));

  it.each(SCENARIOS)('$name', async ({ name, then, subject, text }) => {
    site.serve('/robots.txt', 200, FILE);
    await check();
    then();
    const outcome = await check();

    // Every pair that flipped is explained by exactly one cause.
    const flipped = outcome.events.flatMap((e) =>
      e.type === 'newly_disallowed' || e.type === 'newly_allowed'
        ? [`${e.url} ${e.agent} ${e.type === 'newly_allowed'}`]
        : [],
    );
    const explained = outcome.causes.flatMap((c) =>
      c.pairs.filter((p) => p.flipped).map((p) => `${p.url} ${p.agent} ${p.allowed}`),
    );
    expect(explained.sort()).toEqual(flipped.sort());

    const delivered = await deliver();
    expect(delivered.error).toBeUndefined();
    expect(smtp.received).toHaveLength(subject === null ? 0 : 1);
    if (subject === null) return;
    const [mail] = smtp.received;
    const host = new URL(site.origin).host;
    keep(kind, name, mail!.parsed.subject!, mail!.parsed.text!, mail!.raw.length);
    expect(mail!.parsed.subject).toBe(`${host}: ${subject}`);
    if (text !== undefined) expect(mail!.parsed.text).toContain(text);
    // Short enough to read; links to the web UI, never a command.
    expect(mail!.raw.length).toBeLessThan(300_000);
    expect(mail!.parsed.text!.split('\n').length).toBeLessThan(150);
    expect(mail!.parsed.text).toContain(
      `What changed, line by line: ${PUBLIC}/sites/1/diff?from=1&to=2`,
    );
    expect(mail!.parsed.text).toContain(`The site's history: ${PUBLIC}/sites/1`);
    expect(mail!.parsed.text).not.toContain('robowatch history');
    // Webhooks: the causes as data next to the events; Slack: a short text with links.
    const json = JSON.parse(hooks.received.find((h) => h.path === '/json')!.body) as {
      causes: { title: string; alerts: boolean }[];
      links: { diff: string };
    };
    expect(json.causes.length).toBe(outcome.causes.length);
    expect(json.causes[0]!.alerts).toBe(true);
    expect(json.links.diff).toBe(`${PUBLIC}/sites/1/diff?from=1&to=2`);
    const slack = (
      JSON.parse(hooks.received.find((h) => h.path === '/slack')!.body) as { text: string }
    ).text;
    expect(slack.split('\n')[0]).toBe(
      `*robowatch: ${host}: ${subject.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}*`,
    );
    expect(slack.length).toBeLessThan(3_200);
  });

  it('404 → 410: reported as the same for crawlers, and not alerted', async () => {
    site.serve('/robots.txt', 404, 'gone');
    await check();
    site.serve('/robots.txt', 410, 'gone for good');
    const outcome = await check();
    expect(outcome.causes.map((c) => c.type)).toEqual(['fetch_status']);
    expect(outcome.causes[0]).toMatchObject({ effectChanged: false });
    expect(await deliver()).toEqual({ sent: 0, failed: 0 });
    expect(smtp.received).toHaveLength(0);
    expect(hooks.received).toHaveLength(0);
  });

  it('says how long an incident lasted when robots.txt is back', async () => {
    site.serve('/robots.txt', 200, FILE);
    await check();
    site.serve('/robots.txt', 503, 'down');
    await check();
    now = new Date(now.getTime() + 2 * 3_600_000);
    site.serve('/robots.txt', 200, FILE);
    await check();
    await deliver();
    expect(smtp.received.map((m) => m.parsed.subject)).toEqual([
      `${new URL(site.origin).host}: robots.txt answers 503 (Google crawls nothing)`,
      `${new URL(site.origin).host}: robots.txt answers 200 again after 3 h of 503`,
    ]);
  });

  it('keeps the digest and the pages of a 14,000-rule change small, and the digest gets through', async () => {
    site.serve('/robots.txt', 200, FILE);
    await check();
    site.serve('/robots.txt', 200, HUGE);
    await check();
    const store = createDaemonStore(database.handle.db);
    const prepared = await prepareDigests(
      {
        ...store.digests,
        renderDigest: (digest) => ({
          ...renderDigest(digest, context),
          data: digestData(digest, context),
        }),
        now: () => now,
      },
      config,
      { start: new Date('2026-11-20T00:00:00Z'), end: now },
      { record: true },
    );
    expect(prepared.map((p) => p.id !== null)).toEqual([true, true, true]); // email, two webhooks
    const delivered = await deliver();
    expect(delivered.error).toBeUndefined();
    expect(delivered.failed).toBe(0);
    const digest = smtp.received.find((m) => m.parsed.subject?.startsWith('robowatch digest'))!;
    keep(
      kind,
      'digest of a 14,000-rule change',
      digest.parsed.subject!,
      digest.parsed.text!,
      digest.raw.length,
    );
    expect(digest.raw.length).toBeLessThan(300_000);
    expect(digest.parsed.subject).toMatch(/: 1 site needs attention \(1 site\)$/);
    expect(digest.parsed.text).toContain('robots.txt is larger than 500 KiB since');

    const app = createApp({
      config,
      catalog: new SiteCatalog(createSiteDirectory(database.handle.db), config, () => now),
      store: createWebStore(database.handle.db),
      checkNow: () => Promise.reject(new Error('not here')),
      previewDigests: () => Promise.resolve([]),
      metrics: createMetrics(),
      logger: silentLogger,
      now: () => now,
    });
    for (const path of [
      '/',
      '/sites/1',
      '/sites/1/diff',
      '/sites/1/snapshots/2',
      '/api/v1/sites/1/diff',
    ]) {
      const response = await app.request(path, { headers: { accept: 'text/html' } });
      expect(response.status, path).toBe(200);
      expect((await response.text()).length, path).toBeLessThan(1_000_000);
    }
  });
});
