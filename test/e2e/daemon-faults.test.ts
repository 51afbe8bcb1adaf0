/**
 * The schedule through the faults an operator meets, on one real PostgreSQL database:
 * sites that never answer, more sites than the machine can check in a period, and the
 * database going away while checks and deliveries are in flight. Each asserts what users
 * need: every site checked every period (or its skip logged and counted), none starved,
 * every alert delivered with its key, nothing left stuck.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/store/db.js';
import { logged, startDaemon, expectCleanExit } from '../support/daemon.js';
import type { DaemonProcess } from '../support/daemon.js';
import { adminQuery, createTestDatabase, postgresUrl } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n';

function writeConfig(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-faults-'));
  const file = join(dir, 'robowatch.yaml');
  writeFileSync(file, `dataDir: ${join(dir, 'data')}\n${body}`);
  return file;
}

describe.runIf(postgresUrl() !== undefined)('the schedule through faults', () => {
  let database: TestDatabase | undefined;
  const daemons: DaemonProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const d of daemons.splice(0)) d.child.kill('SIGKILL');
    for (const c of cleanups.splice(0)) await c();
    await database?.close();
    database = undefined;
  });
  const rows = <T>(query: string) => queryRows<T>(database!.handle.db, sql.raw(query));

  it('checks every site every period while four of forty never answer', async () => {
    const sites = await Promise.all(Array.from({ length: 40 }, () => new FixtureServer().start()));
    cleanups.push(async () => {
      await Promise.all(sites.map((s) => s.stop()));
    });
    const hanging = new Set(sites.slice(0, 4));
    for (const site of sites) {
      if (hanging.has(site))
        site.routes.set('/robots.txt', () => undefined); // never answers
      else site.serve('/robots.txt', 200, V1);
    }
    database = await createTestDatabase('postgres');
    const config = writeConfig(`agents: [Googlebot]
schedule: {check: '*/5 * * * * *', digest: '0 0 1 1 *', leaseMs: 10000}
sites:
${sites.map((s) => `  - {url: '${s.origin}', watch: [/]}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 1000, concurrency: 4}
web: {listen: 0}
`);
    const daemon = startDaemon(config, { DATABASE_URL: database.url });
    daemons.push(daemon);
    await vi.waitFor(() => expect(logged(daemon, 'daemon started')).toBe(true), {
      timeout: 60_000,
    });
    const since = new Date().toISOString();
    // Three periods begun after the start in which every site was checked.
    const complete = () =>
      rows<{ start: string; done: number }>(`
        SELECT data->>'periodStart' AS start, count(*) FILTER (WHERE state = 'completed')::int AS done
        FROM pgboss.job WHERE name = 'check' AND (data->>'periodStart')::timestamptz >= '${since}'
        GROUP BY 1 ORDER BY 1`);
    await vi.waitFor(
      async () =>
        expect((await complete()).filter((p) => p.done === 40).length).toBeGreaterThanOrEqual(3),
      { timeout: 120_000, interval: 500 },
    );
    daemon.child.kill('SIGTERM');
    await expectCleanExit(daemon);

    // Each site was fetched once per check job it completed (the one in flight at the stop
    // aside), hanging or not: nobody waited for the slow ones, nothing was fetched twice.
    const jobs = await rows<{ site: string; done: number }>(`
      SELECT singleton_key AS site, count(*) FILTER (WHERE state = 'completed')::int AS done
      FROM pgboss.job WHERE name = 'check' GROUP BY 1`);
    const stored = await rows<{ id: number; origin: string }>('SELECT id, origin FROM sites');
    const done = new Map(jobs.map((j) => [Number(j.site), j.done]));
    for (const site of sites) {
      const id = stored.find((s) => s.origin === site.origin)!.id;
      const fetched = site.requests.filter((r) => r.path === '/robots.txt').length;
      expect(fetched - done.get(id)!).toBeGreaterThanOrEqual(0);
      expect(fetched - done.get(id)!).toBeLessThanOrEqual(1);
    }
    // Each site that never answers was recorded as timing out: one state, kept while it
    // lasts, not one per period. (A healthy site's fetch that a loaded machine ran past the
    // 1 s deadline would be recorded too, and rightly: it is not counted here.)
    const timedOut = await rows<{ origin: string; n: number }>(`
      SELECT s.origin, count(*)::int AS n FROM snapshots sn JOIN sites s ON s.id = sn.site_id
      WHERE sn.error = 'timeout' GROUP BY 1`);
    expect([...hanging].map((h) => timedOut.find((t) => t.origin === h.origin)?.n)).toEqual([
      1, 1, 1, 1,
    ]);
  });

  it('gives every one of 1,000 sites its turn when it cannot check them all each second', async () => {
    // One server answers for 1,000 loopback addresses (127.0.x.y); each is its own site.
    const hits = new Map<string, number>();
    const server: Server = createServer((req, res) => {
      const host = req.headers.host ?? '';
      hits.set(host, (hits.get(host) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(V1);
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const origins = Array.from(
      { length: 1000 },
      (_, i) => `http://127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}:${port}`,
    );
    database = await createTestDatabase('postgres');
    const config = writeConfig(`agents: [Googlebot]
schedule: {check: '* * * * * *', digest: '0 0 1 1 *', leaseMs: 10000}
sites:
${origins.map((o) => `  - {url: '${o}', watch: [/]}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000, concurrency: 8}
web: {listen: 0}
`);
    const daemon = startDaemon(config, { DATABASE_URL: database.url });
    daemons.push(daemon);
    // Every site checked at least twice: its first check, then its turn in the schedule.
    await vi.waitFor(
      () => {
        expect(hits.size).toBe(1000);
        expect(
          Math.min(...origins.map((o) => hits.get(new URL(o).host) ?? 0)),
        ).toBeGreaterThanOrEqual(2);
      },
      { timeout: 240_000, interval: 1000 },
    );
    // The skipped periods were said, in the log and in /metrics.
    expect(daemon.logs.some((l) => String(l['msg']).startsWith('checks skipped this period'))).toBe(
      true,
    );
    const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const skipped = /^robowatch_check_periods_skipped_total (\d+)$/m.exec(metrics);
    expect(Number(skipped?.[1])).toBeGreaterThan(0);
    daemon.child.kill('SIGTERM');
    await expectCleanExit(daemon);
    expect(logged(daemon, 'daemon stopped')).toBe(true);
    expect(daemon.logs.at(-2)!['msg']).toMatch(/^daemon stopped/);
    expect(daemon.logs.at(-1)!['msg']).toBe('robowatch stopped');
  });

  it('recovers when the database goes away while checks and deliveries are in flight', async () => {
    const sites = await Promise.all(Array.from({ length: 6 }, () => new FixtureServer().start()));
    let inFlight = 0;
    const serve = (body: string) => {
      for (const site of sites)
        site.routes.set('/robots.txt', (_req, res) => {
          inFlight++;
          setTimeout(() => {
            inFlight--;
            res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
          }, 600);
        });
    };
    serve(V1);
    const webhook = await new WebhookReceiver('outage-secret').start();
    webhook.delayMs = 1500;
    cleanups.push(async () => {
      await Promise.all(sites.map((s) => s.stop()));
      await webhook.stop();
    });
    database = await createTestDatabase('postgres');
    const name = new URL(database.url!).pathname.slice(1);
    const config = writeConfig(`agents: [Googlebot]
schedule: {check: '*/2 * * * * *', digest: '0 0 1 1 *', leaseMs: 3000}
sites:
${sites.map((s) => `  - {url: '${s.origin}', watch: [/, /pricing]}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 5000, concurrency: 4}
web: {listen: 0}
notify:
  webhooks: [{url: '${webhook.url}/hook', secret: outage-secret}]
  retry: {baseDelayMs: 1000, maxDelayMs: 2000}
`);
    const daemon = startDaemon(config, { DATABASE_URL: database.url });
    daemons.push(daemon);
    await vi.waitFor(
      () => expect(daemon.logs.filter((l) => l['msg'] === 'checked: baseline')).toHaveLength(6),
      { timeout: 60_000 },
    );
    // The change goes live; once alerts are being delivered and checks are in flight,
    // the database goes away: new connections refused, open ones cut.
    serve(V2);
    await vi.waitFor(
      () => {
        expect(webhook.pending).toBeGreaterThan(0);
        expect(inFlight).toBeGreaterThan(0);
      },
      { timeout: 60_000, interval: 20 },
    );
    // Logs from here on are the outage's: taken before the cut, since the daemon may
    // notice it (and log at error level) before the terminations have returned.
    const cutAt = daemon.logs.length;
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
    );
    await vi.waitFor(() => expect(logged(daemon, 'database unreachable')).toBe(true), {
      timeout: 60_000,
    });
    // ...until it answers again.
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await vi.waitFor(() => expect(logged(daemon, 'database reachable again')).toBe(true), {
      timeout: 60_000,
    });

    // Every alert arrives (at least once; a repeat carries the same key), nothing stays
    // unsent or stuck, and every site goes on being checked.
    await vi.waitFor(
      async () => {
        const keys = new Map<string, string>();
        for (const hook of webhook.received) {
          const body = JSON.parse(hook.body) as { site: string };
          keys.set(body.site, String(hook.headers['x-robowatch-delivery']));
        }
        expect(keys.size).toBe(6);
        const [unsent] = await rows<{ n: number }>(
          'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL',
        );
        expect(unsent!.n).toBe(0);
      },
      { timeout: 120_000, interval: 500 },
    );
    const perSite = new Map<string, Set<string>>();
    for (const hook of webhook.received) {
      const site = (JSON.parse(hook.body) as { site: string }).site;
      perSite.set(
        site,
        (perSite.get(site) ?? new Set()).add(String(hook.headers['x-robowatch-delivery'])),
      );
    }
    for (const keys of perSite.values()) expect(keys.size).toBe(1);
    const fetchedAt = sites.map((s) => s.requests.length);
    await vi.waitFor(
      () =>
        sites.forEach((s, i) =>
          expect(s.requests.length).toBeGreaterThanOrEqual(fetchedAt[i]! + 2),
        ),
      { timeout: 60_000, interval: 200 },
    );
    // The change was recorded once per site.
    const [changes] = await rows<{ n: number }>(
      "SELECT count(*)::int AS n FROM snapshots, json_array_elements(events) AS e WHERE e->>'type' = 'newly_disallowed'",
    );
    expect(changes!.n).toBe(6);
    const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(daemon.logs.slice(cutAt).some((l) => l['level'] === 50)).toBe(true);
    daemon.child.kill('SIGTERM');
    await expectCleanExit(daemon);
    expect(daemon.stderr).toBe('');
  });

  it('fails /healthz when no check completes for longer than the schedule allows', async () => {
    const site = await new FixtureServer().start();
    site.routes.set('/robots.txt', () => undefined); // never answers; the fetch gives up at 10 s
    cleanups.push(() => site.stop());
    database = await createTestDatabase('postgres');
    const config = writeConfig(`agents: [Googlebot]
schedule: {check: '* * * * * *', digest: '0 0 1 1 *', leaseMs: 1000}
sites:
  - {url: '${site.origin}', watch: [/]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 10000}
web: {listen: 0}
`);
    const daemon = startDaemon(config, { DATABASE_URL: database.url });
    daemons.push(daemon);
    await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), { timeout: 60_000 });
    const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
    // Twice the one-second period and the one-second lease: after 3 s without a check, it fails.
    await vi.waitFor(
      async () => {
        const health = await fetch(`${base}/healthz`);
        expect(health.status).toBe(503);
        const body = (await health.json()) as { problems: string[] };
        expect(body.problems).toEqual([
          expect.stringMatching(
            /^no site has finished a check since \S+, longer than the 3 s the schedules allow: checks are stuck or failing \(see the log\)$/,
          ),
        ]);
      },
      { timeout: 60_000, interval: 250 },
    );
    // The site goes away: the stuck fetch fails at once, and the daemon, which lets a running
    // check finish before it stops, need not wait out the rest of its 10 s.
    await site.stop();
    daemon.child.kill('SIGTERM');
    await expectCleanExit(daemon);
  });
});
