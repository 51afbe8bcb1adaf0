/**
 * `robowatch start` as it runs in production: real processes, a real site, a real SMTP
 * server, a webhook receiver, and the embedded database, which a second daemon must
 * refuse. (Daemons sharing PostgreSQL: test/integration/schedule/daemon.test.ts in
 * process, and daemon-scale.test.ts with three processes.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { createSiteDirectory } from '../../src/store/index.js';
import { runInProcess } from '../support/cli.js';
import { checksLogged, logged, startDaemon, expectCleanExit } from '../support/daemon.js';
import { FixtureServer } from '../support/fixture-server.js';
import { TestSmtpServer } from '../support/smtp.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const site = new FixtureServer();
const webhook = new WebhookReceiver('hook-secret');
let smtp: TestSmtpServer;
beforeAll(async () => {
  await site.start();
  await webhook.start();
});
afterAll(async () => {
  await site.stop();
  await webhook.stop();
});

const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n';

function writeConfig(dir: string, extra = ''): string {
  const file = join(dir, 'robowatch.yaml');
  writeFileSync(
    file,
    `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
schedule:
  check: '*/2 * * * * *'
  digest: '0 0 1 1 *'
sites:
  - url: ${site.origin}
    watch: [/, /pricing, /private/x]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: 0}
notify:
  email: {smtp: 'smtp://127.0.0.1:${smtp.port}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks: [{url: '${webhook.url}/hook', secret: hook-secret}]
${extra}`,
  );
  return file;
}

beforeEach(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  webhook.received.length = 0;
  site.serve('/robots.txt', 200, V1);
});
afterEach(async () => {
  site.routes.clear();
  await smtp.stop();
});

describe('the embedded database', () => {
  it('keeps a second daemon out, with a clear message, and answers the health check', async () => {
    const config = writeConfig(mkdtempSync(join(tmpdir(), 'robowatch-pglite-')));
    const env = { DATABASE_URL: '' };
    const before = await runInProcess(['health', '--config', config], { env });
    expect([before.code, before.stderr]).toEqual([1, 'robowatch: the daemon has not started\n']);
    // A limit that is not a number of seconds is refused, not read as "too old".
    const bad = await runInProcess(['health', '--config', config, '--max-age', '2m'], { env });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'robowatch: --max-age must be a number of seconds, not "2m"\n',
    ]);
    const first = startDaemon(config, env);
    try {
      await vi.waitFor(() => expect(logged(first, 'daemon started')).toBe(true), {
        timeout: 20_000,
      });
      // The container health check: alive while the daemon runs.
      await vi.waitFor(
        async () => {
          const health = await runInProcess(['health', '--config', config], { env });
          expect(health.code).toBe(0);
          expect(health.stdout).toMatch(/^alive: last heartbeat \d+ s ago\n$/);
        },
        { timeout: 10_000 },
      );
      const second = startDaemon(config, env);
      expect(await second.exit).toBe(1);
      expect(second.stderr).toMatch(
        /^robowatch: the embedded database in .* is in use by process \d+; stop it first, or set DATABASE_URL/,
      );
    } finally {
      first.child.kill('SIGINT');
    }
    await expectCleanExit(first);
  });
});

describe('the web, served by the daemon', () => {
  it('serves the pages, /healthz with the scheduler alive, and /metrics of its checks', async () => {
    const config = writeConfig(mkdtempSync(join(tmpdir(), 'robowatch-web-')));
    const daemon = startDaemon(config, { DATABASE_URL: '' });
    try {
      await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), {
        timeout: 20_000,
      });
      const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
      await vi.waitFor(() => expect(checksLogged(daemon)).toBeGreaterThan(0), { timeout: 20_000 });
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({
        status: 'ok',
        problems: [],
        database: { ok: true },
        daemon: { running: true, ok: true, checks: { ok: true }, deliveries: { ok: true } },
      });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^robowatch_checks_total\{access="ok"\} [1-9]\d*$/m);
      expect(metrics).toMatch(/^robowatch_jobs\{queue="check",state="waiting"\} \d+$/m);
      const overview = await (await fetch(base, { headers: { accept: 'text/html' } })).text();
      expect(overview).toContain(site.origin);
    } finally {
      daemon.child.kill('SIGTERM');
    }
    await expectCleanExit(daemon);
  });

  it('serves nothing with --no-web, and still checks', async () => {
    const config = writeConfig(mkdtempSync(join(tmpdir(), 'robowatch-noweb-')));
    const daemon = startDaemon(config, { DATABASE_URL: '' }, 'start', ['--no-web']);
    try {
      await vi.waitFor(() => expect(checksLogged(daemon)).toBeGreaterThan(0), { timeout: 20_000 });
      expect(logged(daemon, 'web listening')).toBe(false);
    } finally {
      daemon.child.kill('SIGTERM');
    }
    await expectCleanExit(daemon);
  });
});

describe('robowatch digest', () => {
  it('prints the digest, sends it, and does not send the same period twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-digest-'));
    const config = writeConfig(dir);
    const env = { DATABASE_URL: '' };
    await runInProcess(['check', '--config', config], { env });
    site.serve('/robots.txt', 200, V2);
    const checked = await runInProcess(['check', '--config', config], { env });
    // check sends the alerts it queued: one email, one webhook. Googlebot is meant to crawl
    // every watched page (the built-in intent): the baseline (/private/x blocked) opened an
    // incident, and the change made it worse.
    expect(checked.stdout).toMatch(/\n2 notifications sent\n$/);
    expect(smtp.received.map((m) => m.parsed.subject)).toEqual([
      expect.stringContaining(': not as intended: /private/x is blocked for Googlebot'),
      expect.stringContaining(': worse: /pricing and /private/x are blocked for Googlebot'),
    ]);
    expect(webhook.received).toHaveLength(2);

    const printed = await runInProcess(['digest', '--config', config], { env });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(
      /^To: seo@example.com\nSubject: robowatch digest \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d: 1 site needs attention \(1 site\)\n/,
    );
    const host = new URL(site.origin).host;
    // What needs attention first, then the site's changes as causes, its health, its crawlers.
    // Googlebot is meant to crawl every watched page (the built-in intent): /pricing and
    // /private/x differ from it.
    expect(printed.stdout).toMatch(
      new RegExp(
        `Needs attention\n  - ${host.replace(/\./g, '\\.')}: Not as intended since [^:]+:\\d\\d: /pricing and /private/x are blocked for Googlebot\\. Why: Disallow: /pricing \\(line 3\\) blocks pages meant to be crawled; Disallow: /private/ \\(line 2\\) blocks pages meant to be crawled\\.\n`,
      ),
    );
    expect(printed.stdout).toContain('`Disallow: /pricing` added to the `*` group (line 3)');
    expect(printed.stdout).toContain('    Fetch health: 2 checks, all found robots.txt.');
    expect(printed.stdout).toContain(
      '    Disallowed now: /pricing and /private/x for Googlebot and GPTBot',
    );
    expect(printed.stdout).toContain('    AI crawlers: partly blocked: GPTBot 2/3 (falls under *)');
    // The webhook's team gets the digest too.
    expect(printed.stdout).toMatch(/\nTo: webhook http:\/\/127\.0\.0\.1:\d+\/… #[0-9a-f]{8}\n/);
    expect(smtp.received).toHaveLength(2); // printing sends nothing

    const sent = await runInProcess(['digest', '--send', '--config', config], { env });
    expect(sent.stdout).toMatch(
      /^seo@example.com: queued \(digest \d+\)\nwebhook .*: queued \(digest \d+\)\n2 notifications sent\n$/,
    );
    expect(smtp.received).toHaveLength(3);
    const digest = smtp.received[2]!;
    expect(digest.envelopeTo).toEqual(['seo@example.com']);
    expect(digest.parsed.subject).toMatch(
      /^robowatch digest .*: 1 site needs attention \(1 site\)$/,
    );
    expect(digest.parsed.text).toContain('Fetch health: 2 checks, all found robots.txt.');
    // Named as its alerts name it: the host of a site without a name.
    expect(digest.parsed.html).toContain(`>${new URL(site.origin).host}</a></h3>`);
    const hook = webhook.received.find((h) => h.body.includes('"kind":"digest"'))!;
    expect(hook.signatureValid).toBe(true);
    expect(JSON.parse(hook.body)).toMatchObject({
      kind: 'digest',
      digest: { attention: [{ site: site.origin, kind: 'intent' }] },
    });

    const again = await runInProcess(['digest', '--send', '--config', config], { env });
    expect(again.stdout).toMatch(
      /^seo@example.com: already sent for this period\nwebhook .*: already sent for this period\n0 notifications sent\n$/,
    );
    expect(smtp.received).toHaveLength(3);
  });

  it('sends the digest to the recipients added in the web UI too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-digest-ui-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
sites:
  - {url: '${site.origin}', watch: [/]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  email: {smtp: 'smtp://127.0.0.1:${smtp.port}', from: robowatch@example.com}
`,
    );
    const env = { DATABASE_URL: '' };
    // The file names no recipient: nobody to send to.
    const nobody = await runInProcess(['digest', '--config', config], { env });
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('sends alerts to nobody');
    // A recipient added in the web UI (the default recipients), as the UI stores it.
    const handle = await openDatabase({ url: undefined, dataDir: join(dir, 'data') });
    try {
      await createSiteDirectory(handle.db).saveChannels({ email: ['ui@example.com'] });
    } finally {
      await handle.close();
    }
    const printed = await runInProcess(['digest', '--config', config], { env });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^To: ui@example.com\n/);
    const sent = await runInProcess(['digest', '--send', '--config', config], { env });
    expect(sent.stdout).toMatch(/^ui@example.com: queued \(digest \d+\)\n1 notification sent\n$/);
    expect(smtp.received.map((m) => m.envelopeTo)).toEqual([['ui@example.com']]);
  });

  it.each([
    [
      ['digest', '--since', 'a week'],
      /^robowatch: --since must be a duration such as 7d, 24h or 2w, not "a week"$/,
    ],
    [['digest', '--print', '--send'], /^robowatch: --print and --send exclude each other$/],
    [
      ['digest', '--to', 'nobody@example.com'],
      /^robowatch: --to nobody@example.com receives no site's alerts in /,
    ],
  ])('rejects %j', async (args, message) => {
    const config = writeConfig(mkdtempSync(join(tmpdir(), 'robowatch-digest-')));
    const result = await runInProcess([...args, '--config', config], { env: { DATABASE_URL: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toMatch(message);
  });
});
