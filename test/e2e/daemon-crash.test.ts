/**
 * A daemon killed with SIGKILL in the middle of a run, while SMTP is down and the webhook
 * receiver is failing; then the receivers come back and a new daemon starts: every
 * change is recorded once and every alert arrives exactly once. On PostgreSQL and on the
 * embedded database (whose lock the dead process left behind).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, queryRows } from '../../src/store/db.js';
import type { Database } from '../../src/store/db.js';
import { checksLogged, logged, startDaemon, expectCleanExit } from '../support/daemon.js';
import type { DaemonProcess } from '../support/daemon.js';
import { createTestDatabase, databaseKinds } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { TestSmtpServer } from '../support/smtp.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const SITES = 30;
const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n';

const sites = Array.from({ length: SITES }, () => new FixtureServer());
/** Requests the sites are answering right now (slowly, once the change is live). */
let pending = 0;
function serve(body: string, delayMs: number): void {
  for (const site of sites) {
    site.routes.set('/robots.txt', (_req, res) => {
      pending++;
      setTimeout(() => {
        pending--;
        res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
      }, delayMs);
    });
  }
}

beforeAll(async () => {
  await Promise.all(sites.map((s) => s.start()));
});
afterAll(async () => {
  await Promise.all(sites.map((s) => s.stop()));
});

const count = async (db: Database, query: string) =>
  (await queryRows<{ n: number }>(db, sql.raw(query)))[0]!.n;

describe.each(databaseKinds())('a daemon killed mid-run on %s', (kind) => {
  let database: TestDatabase | undefined;
  let smtp: TestSmtpServer;
  let webhook: WebhookReceiver;
  const daemons: DaemonProcess[] = [];
  afterEach(async () => {
    for (const d of daemons.splice(0)) d.child.kill('SIGKILL');
    await smtp.stop();
    await webhook.stop();
    await database?.close();
  });

  it('loses no change and sends every alert exactly once after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-crash-'));
    smtp = new TestSmtpServer();
    await smtp.holdPort(); // down until the restart
    webhook = new WebhookReceiver('crash-secret');
    await webhook.start();
    webhook.status = 503; // failing until the restart
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const env = { DATABASE_URL: database?.url ?? '' };
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
schedule: {check: '*/4 * * * * *', digest: '0 0 1 1 *', leaseMs: 2000}
sites:
${sites.map((s) => `  - {url: '${s.origin}', watch: [/, /pricing]}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 5000, concurrency: 8}
web: {listen: 0}
notify:
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
  webhooks: [{url: '${webhook.url}/hook', secret: crash-secret}]
  retry: {baseDelayMs: 1000, maxDelayMs: 2000}
`,
    );

    serve(V1, 0);
    const first = startDaemon(config, env);
    daemons.push(first);
    await vi.waitFor(
      () => expect(first.logs.filter((l) => l['msg'] === 'checked: baseline')).toHaveLength(SITES),
      { timeout: 30_000, interval: 100 },
    );

    // The change goes live, answered slowly; kill the daemon once it has recorded some
    // of it and failed to send its alerts, while other checks are in flight.
    serve(V2, 400);
    await vi.waitFor(
      () => {
        expect(logged(first, 'checked: changed')).toBe(true);
        expect(logged(first, 'notification failed; retried later')).toBe(true);
        expect(pending).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 20 },
    );
    first.child.kill('SIGKILL');
    expect(await first.exit).toBeNull();
    const changedBeforeKill = first.logs.filter((l) => l['msg'] === 'checked: changed').length;
    expect(changedBeforeKill).toBeLessThan(SITES);

    // The receivers come back; a new daemon takes over what the dead one held.
    await smtp.start();
    webhook.status = 200;
    webhook.received.length = 0;
    const second = startDaemon(config, env);
    daemons.push(second);
    await vi.waitFor(
      () => {
        expect(smtp.received).toHaveLength(SITES);
        expect(webhook.received).toHaveLength(SITES);
      },
      { timeout: 40_000, interval: 200 },
    );
    // A few more periods: nothing more is sent.
    const checked = checksLogged(second);
    await vi.waitFor(() => expect(checksLogged(second)).toBeGreaterThanOrEqual(checked + SITES), {
      timeout: 20_000,
      interval: 200,
    });
    second.child.kill('SIGTERM');
    await expectCleanExit(second);
    daemons.length = 0;

    // Every site alerted once by email and once by webhook, each with its own key.
    const hosts = sites.map((s) => new URL(s.origin).host).sort();
    expect(smtp.received.map((m) => m.parsed.subject!.split(': ')[0]).sort()).toEqual(hosts);
    for (const mail of smtp.received) {
      expect(mail.envelopeTo).toEqual(['seo@example.com']);
      // Googlebot is meant to crawl every watched page: the change opened an incident.
      expect(mail.parsed.subject).toMatch(/: not as intended: \/pricing is blocked for Googlebot$/);
    }
    expect(new Set(smtp.received.map((m) => m.parsed.messageId)).size).toBe(SITES);
    const hooks = webhook.received.map((h) => JSON.parse(h.body) as { site: string });
    expect(hooks.map((h) => new URL(h.site).host).sort()).toEqual(hosts);
    expect(webhook.received.every((h) => h.signatureValid)).toBe(true);
    expect(new Set(webhook.received.map((h) => h.headers['x-robowatch-delivery'])).size).toBe(
      SITES,
    );

    // The store: each change recorded once (two agents newly lose /pricing on each site).
    const handle =
      database?.handle ?? (await openDatabase({ url: undefined, dataDir: join(dir, 'data') }));
    try {
      const { db } = handle;
      expect(await count(db, 'SELECT count(*)::int AS n FROM snapshots')).toBe(2 * SITES);
      expect(
        await count(
          db,
          "SELECT count(*)::int AS n FROM snapshots, json_array_elements(events) AS e WHERE e->>'type' = 'newly_disallowed'",
        ),
      ).toBe(2 * SITES);
      expect(await count(db, 'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL')).toBe(
        0,
      );
      // Those that failed before the kill were retried, not lost.
      expect(
        await count(db, 'SELECT count(*)::int AS n FROM outbox WHERE attempts > 0'),
      ).toBeGreaterThan(0);
    } finally {
      if (database === undefined) await handle.close();
    }
  });
});
