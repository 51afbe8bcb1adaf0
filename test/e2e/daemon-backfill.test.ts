/**
 * History from the Internet Archive, as a user gets it: `robowatch start` with
 * backfill.onAdd loads a new site's archived robots.txt from a loopback Wayback Machine
 * (CDX server and raw captures) beside its first live check, without an alert; the site
 * page shows the archived states and its "Load more history" button queues another
 * run, which reads nothing again; `robowatch backfill` beside the daemon asks it, and
 * after it stopped runs itself on the embedded database.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { logged, startDaemon } from '../support/daemon.js';
import { FixtureServer } from '../support/fixture-server.js';
import { WaybackServer } from '../support/wayback-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'daemon-backfill-token-0123456789';
const site = new FixtureServer();
const wayback = new WaybackServer();

beforeAll(async () => {
  await site.start();
  await wayback.start();
  site.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /\n');
  wayback.captures.set(new URL(site.origin).host, [
    { timestamp: '20170301000000', status: 200, body: 'User-agent: *\nDisallow: /private/\n' },
    { timestamp: '20190101000000', status: 200, body: 'User-agent: *\nDisallow: /\n' },
    { timestamp: '20200101000000', status: 503, body: 'busy' },
    { timestamp: '20230601000000', status: 404, body: 'not found' },
  ]);
});
afterAll(async () => {
  await site.stop();
  await wayback.stop();
});

const loaded = (logs: Record<string, unknown>[]) =>
  logs.filter((l) => l['msg'] === 'history loaded from the Internet Archive');

describe('history from the Internet Archive', () => {
  it('loads a new site’s history as it is added, shows it, loads more on request, never alerts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-backfill-'));
    const file = join(dir, 'robowatch.yaml');
    const hook = await new WebhookReceiver('backfill-hook-secret').start();
    writeFileSync(
      file,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, '*']
watch: [/, /private/x]
sitemaps: off
archive: {url: ${wayback.url}, requestsPerMinute: 0}
backfill: {onAdd: true}
sites:
  - url: ${site.origin}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  events: [newly_disallowed, fetch_status_changed]
  webhooks: [{url: ${hook.url}, secret: ${hook.secret}}]
web: {listen: 0, token: ${TOKEN}}
`,
    );
    const daemon = startDaemon(file, { DATABASE_URL: '' });
    const wait = { timeout: 60_000, interval: 100 };
    try {
      await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), wait);
      const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
      const get = async (path: string): Promise<unknown> =>
        (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();

      // Added: its history is loaded (and its first check made), both without an alert.
      await vi.waitFor(() => expect(loaded(daemon.logs)).toHaveLength(1), wait);
      expect(loaded(daemon.logs)[0]).toMatchObject({ site: site.origin, listed: 4, fetched: 4 });
      await vi.waitFor(
        () => expect(daemon.logs.some((l) => String(l['msg']).startsWith('checked'))).toBe(true),
        wait,
      );
      expect(await get('/api/v1/sites/1/archive')).toMatchObject({
        captures: 4,
        skipped: 0,
        snapshots: 4,
        first: '2017-03-01T00:00:00.000Z',
        last: '2023-06-01T00:00:00.000Z',
        loading: null,
      });
      const history = (await get('/api/v1/sites/1/snapshots')) as {
        snapshots: { id: number; source: string; firstSeen: string; access: string }[];
      };
      expect(history.snapshots.map((s) => [s.source, s.firstSeen.slice(0, 10), s.access])).toEqual([
        ['live', expect.any(String) as string, 'ok'],
        ['archive', '2023-06-01', 'unavailable'],
        ['archive', '2020-01-01', 'unreachable'],
        ['archive', '2019-01-01', 'ok'],
        ['archive', '2017-03-01', 'ok'],
      ]);

      // Its latest diff compares the first check with the archive's last capture (a 404).
      const diff = (await get('/api/v1/sites/1/diff')) as {
        from: { source: string; firstSeen: string };
        to: { source: string };
        causes: { type: string }[];
      };
      expect(diff.from).toMatchObject({ source: 'archive', firstSeen: '2023-06-01T00:00:00.000Z' });
      expect(diff.to.source).toBe('live');
      expect(diff.causes.map((c) => c.type)).toContain('fetch_status');

      // The site page: the archived states in its timeline and changes, and the button.
      const page = await (
        await fetch(`${base}/sites/1`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).text();
      expect(page).toContain('4 states from the Internet Archive');
      expect(page).toContain('captured by the Internet Archive');
      expect(page).toContain('Load more history');
      const archived = history.snapshots.find((x) => x.source === 'archive')!;
      const snapshotPage = await (
        await fetch(`${base}/sites/1/snapshots/${archived.id}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).text();
      expect(snapshotPage).toContain('before robowatch watched the site');
      expect(snapshotPage).toContain('robowatch never checked it');
      expect(snapshotPage).not.toContain('<h2>Checks</h2>');
      const queued = await fetch(`${base}/sites/1/backfill`, {
        method: 'POST',
        redirect: 'manual',
        headers: { authorization: `Bearer ${TOKEN}`, origin: base },
      });
      expect(queued.status).toBe(303);
      expect(queued.headers.get('location')).toBe('/sites/1?done=backfill');
      await vi.waitFor(() => expect(loaded(daemon.logs)).toHaveLength(2), wait);
      expect(loaded(daemon.logs)[1]).toMatchObject({ listed: 4, fetched: 0, known: 4 });

      // robowatch backfill beside the daemon (which holds the embedded database) asks it.
      const asked = await runInProcess(['backfill', '--config', file, site.origin], {
        env: { DATABASE_URL: '' },
      });
      expect(asked.stderr).toBe('');
      expect(asked.stdout).toBe(
        "The running daemon loads the history of 1 site from the Internet Archive; each site's page shows how far it is.\n",
      );
      await vi.waitFor(() => expect(loaded(daemon.logs)).toHaveLength(3), wait);

      // The API queues a run that names what to load; what it refuses queues nothing.
      const backfill = (body: string) =>
        fetch(`${base}/api/v1/sites/1/backfill`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        });
      expect((await backfill('null')).status).toBe(400);
      const viaApi = await backfill(JSON.stringify({ since: '2019', every: 'month' }));
      expect(viaApi.status).toBe(202);
      await vi.waitFor(() => expect(loaded(daemon.logs)).toHaveLength(4), wait);
      // From 2019: three of the four captures, each read before.
      expect(loaded(daemon.logs)[3]).toMatchObject({ listed: 3, fetched: 0, known: 3 });

      // The archive's 2019 block and 2020 outage were never alerted.
      expect(hook.received).toHaveLength(0);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      await hook.stop();
    }

    // Without the daemon: the command reads the archive itself, and nothing again.
    const alone = await runInProcess(['backfill', '--config', file, '--all'], {
      env: { DATABASE_URL: '' },
    });
    expect(alone.stderr).toBe('');
    expect(alone.code).toBe(0);
    expect(alone.stdout).toMatch(
      new RegExp(
        `^${site.origin.replace(/[.]/g, '\\.')}: 4 captures before \\d{4}-\\d{2}-\\d{2}, 0 read now, 4 read before; 4 archived states in its history\\n$`,
      ),
    );
    // Exports say which rows the archive gave.
    const exported = await runInProcess(
      ['export', '--config', file, '--what', 'snapshots', '--format', 'jsonl'],
      { env: { DATABASE_URL: '' } },
    );
    const rows = exported.stdout
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { source: string; original_url: string | null; first_seen: string },
      );
    // (In the order they were stored: the first check and the backfill race.)
    expect(rows.map((r) => `${r.first_seen.slice(0, 10)} ${r.source}`).sort()).toEqual([
      '2017-03-01 archive',
      '2019-01-01 archive',
      '2020-01-01 archive',
      '2023-06-01 archive',
      expect.stringMatching(/^20\d\d-\d\d-\d\d live$/) as string,
    ]);
    expect(rows.filter((r) => r.source === 'archive').map((r) => r.original_url)).toEqual(
      Array(4).fill(`http://${new URL(site.origin).host}/robots.txt`),
    );
    const causes = await runInProcess(
      ['export', '--config', file, '--what', 'causes', '--format', 'jsonl'],
      { env: { DATABASE_URL: '' } },
    );
    expect(
      causes.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { source: string }).source),
    ).not.toContain('live');
    const history = await runInProcess(['history', '--config', file, site.origin], {
      env: { DATABASE_URL: '' },
    });
    const lines = history.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/CHECKS\s+SOURCE\s+WHAT CHANGED$/);
    const source = lines[0]!.split(/\s{2,}/).indexOf('SOURCE');
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[source])).toEqual([
      'robowatch',
      'Internet Archive',
      'Internet Archive',
      'Internet Archive',
      'Internet Archive',
    ]);
    const refused = await runInProcess(['backfill', '--config', file, '--since', '2019-13'], {
      env: { DATABASE_URL: '' },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('name the sites to backfill, or --all');
    const bad = await runInProcess(['backfill', '--config', file, '--all', '--every', 'hour'], {
      env: { DATABASE_URL: '' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--every: "hour" is not one of change, day, week, month');
    // An archive whose listing never ends (a new resume key on every page) is stopped.
    wayback.listingMode = 'same-page-new-key';
    const looping = await runInProcess(['backfill', '--config', file, '--all', '--since', '2015'], {
      env: { DATABASE_URL: '' },
    });
    wayback.listingMode = 'honest';
    expect(looping.code).toBe(1);
    expect(looping.stderr).toBe(
      `robowatch: the CDX server's listing of ${new URL(site.origin).host}/robots.txt loops: page 2 lists only captures it listed before; stopped (what was read is kept)\n`,
    );
  });
});
