/**
 * Scaling out: three daemon processes on one PostgreSQL, 200 sites on a five-second
 * schedule and a digest every ten seconds. Every site is checked once per period, by
 * whichever process took its job, and each digest period is sent once.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/store/db.js';
import { checksLogged, logged, startDaemon } from '../support/daemon.js';
import { createTestDatabase, postgresUrl } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { TestSmtpServer } from '../support/smtp.js';

const SITES = 200;
const PERIOD_MS = 5_000;

describe.runIf(postgresUrl() !== undefined)('three daemons on one PostgreSQL', () => {
  const sites = Array.from({ length: SITES }, () => new FixtureServer());
  const smtp = new TestSmtpServer();
  const digestMails = () =>
    smtp.received.filter((m) => m.parsed.subject?.startsWith('robowatch digest'));
  let database: TestDatabase;
  beforeAll(async () => {
    await Promise.all(sites.map((s) => s.start()));
    for (const site of sites) site.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /x/\n');
    await smtp.start();
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await Promise.all(sites.map((s) => s.stop()));
    await smtp.stop();
    await database.close();
  });

  const rows = <T>(query: string) => queryRows<T>(database.handle.db, sql.raw(query));

  it('check every site once per period and send each digest once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-scale-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
schedule: {check: '*/5 * * * * *', digest: '*/10 * * * * *'}
sites:
${sites.map((s) => `  - {url: '${s.origin}', watch: [/, /x/y]}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: 0}
notify:
  email: {smtp: '${smtp.url}', from: robowatch@example.com, to: [seo@example.com]}
`,
    );
    const daemons = [0, 1, 2].map(() => startDaemon(config, { DATABASE_URL: database.url }));
    let stoppedAt: Date;
    let startedAt: number;
    try {
      await vi.waitFor(() => expect(daemons.every((d) => logged(d, 'daemon started'))).toBe(true), {
        timeout: 30_000,
      });
      startedAt = Math.max(
        ...daemons.map((d) =>
          Date.parse(String(d.logs.find((l) => l['msg'] === 'daemon started')!['time'])),
        ),
      );
      // Run until three periods begun with all three running have ended with every site
      // done, and two digests are sent.
      const since = new Date(startedAt).toISOString();
      await vi.waitFor(
        async () => {
          const [complete] = await rows<{ n: number }>(`
            SELECT count(*)::int AS n FROM (
              SELECT data->>'periodStart' FROM pgboss.job
              WHERE name = 'check' AND (data->>'periodStart')::timestamptz >= '${since}'
                AND (data->>'periodEnd')::timestamptz <= now() - interval '1.5 seconds'
              GROUP BY 1 HAVING count(*) FILTER (WHERE state = 'completed') = ${SITES}
            ) p`);
          const [digests] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM digests');
          expect(complete!.n).toBeGreaterThanOrEqual(3);
          expect(digests!.n).toBeGreaterThanOrEqual(2);
          // ...and arrived: a digest recorded as the daemons stop is delivered at the next
          // start (its delivery waits in the outbox), so the run ends on delivered ones.
          expect(digestMails().length).toBeGreaterThanOrEqual(digests!.n);
        },
        { timeout: 12 * PERIOD_MS, interval: 500 },
      );
    } finally {
      stoppedAt = new Date();
      for (const d of daemons) d.child.kill('SIGTERM');
    }
    expect(await Promise.all(daemons.map((d) => d.exit))).toEqual([0, 0, 0]);

    // Every period wholly inside the run: each site checked, without a failure, or (when a
    // site's check of the period before had not started yet, the machine being too busy)
    // skipped, and the skip logged, or its check still queued when the daemons stopped (a
    // machine that busy runs it late: the next start runs it). None is lost. (A check due
    // at the end of a period may end just after it: the last second and a half is left out.)
    const periods = await rows<{ start: string; done: number; failed: number; queued: number }>(`
      SELECT data->>'periodStart' AS start,
        count(*) FILTER (WHERE state = 'completed')::int AS done,
        count(*) FILTER (WHERE state = 'failed' OR retry_count > 0)::int AS failed,
        count(*) FILTER (WHERE state IN ('created', 'retry', 'active'))::int AS queued
      FROM pgboss.job
      WHERE name = 'check' AND (data->>'periodStart')::timestamptz >= '${new Date(startedAt).toISOString()}'
        AND (data->>'periodEnd')::timestamptz <= '${new Date(stoppedAt.getTime() - 1_500).toISOString()}'
      GROUP BY 1 ORDER BY 1`);
    expect(periods.length).toBeGreaterThanOrEqual(3);
    const skipped = new Map<string, number>();
    for (const line of daemons.flatMap((d) => d.logs))
      if (String(line['msg']).startsWith('checks skipped this period'))
        skipped.set(
          String(line['periodStart']),
          (skipped.get(String(line['periodStart'])) ?? 0) + Number(line['skipped']),
        );
    for (const period of periods) {
      expect(period.failed).toBe(0);
      const accounted = period.done + (skipped.get(period.start) ?? 0) + period.queued;
      expect(accounted, JSON.stringify({ ...period, skipped: skipped.get(period.start) })).toBe(
        SITES,
      );
    }
    expect(periods.filter((p) => p.done === SITES).length).toBeGreaterThanOrEqual(3);

    // Once per period: each site's checks are exactly its check jobs done, across all periods.
    const mismatched = await rows<{ site_id: number }>(`
      SELECT s.id AS site_id FROM sites s
      WHERE (SELECT count(*) FROM checks c JOIN snapshots n ON n.id = c.snapshot_id WHERE n.site_id = s.id)
        <> (SELECT count(*) FROM pgboss.job j WHERE j.name = 'check' AND j.singleton_key = s.id::text
              AND j.state = 'completed')`);
    expect(mismatched).toEqual([]);

    // Every check was made by one of the three (how they share depends on the machine).
    const checkedBy = daemons.map(checksLogged);
    const [checks] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM checks');
    expect(checkedBy.reduce((a, b) => a + b)).toBe(checks!.n);

    // Each digest fire ran in one process and sent one digest.
    const digests = await rows<{ period_start: string }>(
      'SELECT period_start::text AS period_start FROM digests',
    );
    expect(digests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(digests.map((d) => d.period_start)).size).toBe(digests.length);
    const fires = await rows<{ n: number }>(
      "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'digest' AND state = 'completed'",
    );
    expect(fires[0]!.n).toBeGreaterThanOrEqual(digests.length);
    // Each recorded digest sent once at most: one more may have been recorded as they
    // stopped, its delivery left for the next start.
    const mails = digestMails();
    expect(mails.length).toBeGreaterThanOrEqual(2);
    expect(mails.length).toBeLessThanOrEqual(digests.length);
  });
});
