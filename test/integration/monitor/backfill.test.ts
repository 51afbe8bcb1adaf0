/**
 * Backfilling a site's history from the Internet Archive: a loopback Wayback Machine
 * (CDX listing and raw captures) holds eight years of a site's robots.txt, the real
 * fetcher reads it, the real store keeps the captures and the archived snapshots, on
 * PGlite and (when configured) PostgreSQL; then the site's first live check starts the
 * live history without an alert.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { SiteConfig } from '../../../src/config/config.js';
import { ArchiveClient, ArchiveError } from '../../../src/fetch/archive.js';
import { backfillSite, readBackfillOptions } from '../../../src/monitor/archive/backfill.js';
import type { BackfillDeps } from '../../../src/monitor/archive/backfill.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { storedCaptureTimes } from '../../../src/store/archive.js';
import { queryRows } from '../../../src/store/db.js';
import { listSnapshots } from '../../../src/store/history.js';
import { createBackfillStore, createCheckStore } from '../../../src/store/index.js';
import { loadVerdictHistory } from '../../../src/store/verdict-history.js';
import { listChanges } from '../../../src/store/events.js';
import { trendSites, trendStart } from '../../../src/store/export.js';
import { viewTrends } from '../../../src/monitor/views/trends.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { WaybackServer } from '../../support/wayback-server.js';

const { server, fetcher } = useLoopbackSite();
const wayback = new WaybackServer();
beforeAll(() => wayback.start());
afterAll(() => wayback.stop());

const OPEN = 'User-agent: *\nDisallow: /private/\n';
const CLOSED = 'User-agent: *\nDisallow: /\n';
const MOVED = 'User-agent: *\nDisallow: /moved/\n';

describe.each(databaseKinds())('backfilling from the Internet Archive on %s', (kind) => {
  let database: TestDatabase;
  let site: SiteConfig;
  let siteId: number;
  let host: string;
  const waits: number[] = [];
  let now: Date;

  const deps = (options: { maxRefusals?: number; onCapture?: () => void } = {}): BackfillDeps => {
    const db = database.handle.db;
    return {
      archive: new ArchiveClient((r) => fetcher.fetchDocument(r), {
        url: wayback.url,
        requestsPerMinute: 0,
        maxRefusals: options.maxRefusals ?? 5,
        timeoutMs: 3_000,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      }),
      store: createBackfillStore(db),
      now: () => now,
      ...(options.onCapture === undefined ? {} : { onCapture: options.onCapture }),
    };
  };
  /** One live check of the site, as the daemon makes it. */
  const checkOnce = () =>
    checkSites(
      {
        fetchRobots: (o) => fetcher.fetchRobots(o),
        store: createCheckStore(database.handle.db),
        now: () => now,
        sleep: () => Promise.resolve(),
        confirmRetries: 0,
        confirmDelayMs: 0,
      },
      [site],
      { concurrency: 1 },
    );
  const rawReads = () => wayback.requests.filter((r) => r.startsWith('/web/'));
  const snapshotsNow = async () =>
    (await listSnapshots(database.handle.db, siteId)).map((s) => ({
      source: s.source,
      firstSeen: s.firstSeen.toISOString().slice(0, 10),
      status: s.status,
    }));

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    now = new Date('2026-11-24T12:00:00Z');
    waits.length = 0;
    wayback.requests.length = 0;
    wayback.refuse = { count: 0, status: 429 };
    wayback.listingMode = 'honest';
    host = new URL(server.origin).host;
    const config = parseConfig(
      `
agents: [Googlebot, '*']
watch: [/, /private/x, /moved/x]
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0}
sites:
  - url: ${server.origin}
`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const [row] = await queryRows<{ id: number }>(
      database.handle.db,
      sql`INSERT INTO sites (origin) VALUES (${server.origin}) RETURNING id`,
    );
    site = config.sites[0]!;
    siteId = row!.id;
    wayback.captures.clear();
    wayback.captures.set(host, [
      { timestamp: '20180101000000', status: 200, body: OPEN },
      { timestamp: '20180601000000', status: 200, body: OPEN },
      { timestamp: '20190301000000', status: 200, body: CLOSED },
      {
        timestamp: '20200101000000',
        status: 200,
        mimetype: 'text/html',
        body: '<!DOCTYPE html><html><body>Not found</body></html>',
      },
      { timestamp: '20210101000000', status: 503, body: 'busy' },
      { timestamp: '20210401000000', status: 200, body: OPEN },
      { timestamp: '20220101000000', status: 301, location: 'https://www.example.test/robots.txt' },
      { timestamp: '20240101000000', status: 404, body: 'gone' },
    ]);
    // The redirect's target, as the archive captured it two days later.
    wayback.captures.set('www.example.test', [
      { timestamp: '20220103000000', status: 200, body: MOVED },
    ]);
  });
  afterEach(() => database.close());

  it('adds the archived states before the live ones, with causes, and the first live check does not alert', async () => {
    const outcome = await backfillSite(deps(), site, siteId);
    // The CDX server lists changes only: the capture of 2018-06 (the same file) is not.
    expect(outcome).toMatchObject({ listed: 7, fetched: 7, known: 0, skipped: 0, snapshots: 7 });
    // Every state in time order, newest first; the site has no current state yet.
    expect(await snapshotsNow()).toEqual([
      { source: 'archive', firstSeen: '2024-01-01', status: 404 },
      { source: 'archive', firstSeen: '2022-01-01', status: 200 },
      { source: 'archive', firstSeen: '2021-04-01', status: 200 },
      { source: 'archive', firstSeen: '2021-01-01', status: 503 },
      { source: 'archive', firstSeen: '2020-01-01', status: 200 },
      { source: 'archive', firstSeen: '2019-03-01', status: 200 },
      { source: 'archive', firstSeen: '2018-01-01', status: 200 },
    ]);
    const all = await listSnapshots(database.handle.db, siteId);
    // The redirect was followed to its target as captured then.
    const moved = all.find((s) => s.firstSeen.toISOString().startsWith('2022-01-01'))!;
    expect(moved.redirects).toEqual([
      {
        url: `http://${host}/robots.txt`,
        status: 301,
        location: 'https://www.example.test/robots.txt',
      },
    ]);
    expect(moved.finalUrl).toBe('https://www.example.test/robots.txt');
    expect(moved.originalUrl).toBe(`http://${host}/robots.txt`);
    const [{ current }] = (await queryRows<{ current: number | null }>(
      database.handle.db,
      sql`SELECT current_snapshot_id AS current FROM sites WHERE id = ${siteId}`,
    )) as [{ current: number | null }];
    expect(current).toBeNull();
    // The HTML page is recognised as not a robots.txt file.
    const [html] = await queryRows<{ file_condition: string }>(
      database.handle.db,
      sql`SELECT file_condition FROM snapshots WHERE first_seen_at = '2020-01-01T00:00:00Z'`,
    );
    expect(html!.file_condition).toBe('html');
    // Causes between archived states, in words, on the site's list of changes.
    const changes = await listChanges(database.handle.db, { siteId: siteId, limit: 20 });
    const closed = changes.find((c) => c.at.toISOString().startsWith('2019-03-01'))!;
    expect(closed.causes![0]).toMatchObject({
      type: 'rule',
      change: 'added',
      rule: { directive: 'disallow', pattern: '/' },
    });
    expect(JSON.stringify(closed.causes![0])).toContain(
      JSON.stringify({
        url: `${server.origin}/`,
        agent: 'Googlebot',
        allowed: false,
        flipped: true,
      }),
    );
    // Not on the feed of what robowatch saw, and no alert queued.
    expect(await listChanges(database.handle.db, { limit: 20 })).toEqual([]);
    const outbox = await queryRows<{ n: number }>(
      database.handle.db,
      sql`SELECT count(*)::int AS n FROM outbox`,
    );
    expect(outbox[0]!.n).toBe(0);
    // The verdict history of / for Googlebot across the years.
    const runs = await loadVerdictHistory(
      database.handle.db,
      siteId,
      `${server.origin}/`,
      'Googlebot',
    );
    expect(runs.map((r) => [r.firstSeen.toISOString().slice(0, 10), r.allowed])).toEqual([
      ['2018-01-01', true],
      ['2019-03-01', false],
      ['2020-01-01', true],
      ['2021-01-01', false],
      ['2021-04-01', true],
      ['2022-01-01', true],
      ['2024-01-01', true],
    ]);

    // Trends read the archived years: Googlebot blocked from every watched URL in 2019-06.
    const trends = await viewTrends(
      {
        trendStart: () => trendStart(database.handle.db),
        trendSites: () => trendSites(database.handle.db),
      },
      [site],
      parseConfig('sites: []', { file: 't.yaml', cwd: '/tmp', env: {}, version: 'test' }),
      { by: 'agent', weighted: false, now },
    );
    const googlebot = trends.find((t) => t.group === 'googlebot')!;
    expect(googlebot.points[0]!.month).toBe('2018-01');
    expect(googlebot.points.find((p) => p.month === '2018-06')).toMatchObject({
      none: 0,
      partly: 1,
    });
    expect(googlebot.points.find((p) => p.month === '2019-06')).toMatchObject({ full: 1 });
    expect(googlebot.points.find((p) => p.month === '2024-06')).toMatchObject({ noRobotsTxt: 1 });

    // The first live check: a baseline (no alert), after the archived states.
    server.serve('/robots.txt', 200, CLOSED);
    const check = await checkOnce();
    expect(check).toMatchObject({ baseline: 1, changed: 0 });
    expect((await snapshotsNow())[0]).toEqual({
      source: 'live',
      firstSeen: '2026-11-24',
      status: 200,
    });
    expect((await snapshotsNow())[1]).toEqual({
      source: 'archive',
      firstSeen: '2024-01-01',
      status: 404,
    });
    expect(
      (
        await queryRows<{ n: number }>(
          database.handle.db,
          sql`SELECT count(*)::int AS n FROM outbox`,
        )
      )[0]!.n,
    ).toBe(0);
  });

  it('goes on where an interrupted run stopped, and a second run reads nothing again', async () => {
    let read = 0;
    await expect(
      backfillSite(
        deps({
          onCapture: () => {
            if (++read === 3) throw new Error('killed');
          },
        }),
        site,
        siteId,
      ),
    ).rejects.toThrow('killed');
    expect((await storedCaptureTimes(database.handle.db, siteId)).size).toBe(3);
    const before = rawReads().length;
    const resumed = await backfillSite(deps(), site, siteId);
    expect(resumed).toMatchObject({ listed: 7, fetched: 4, known: 3, snapshots: 7 });
    // Four captures read (and the redirect target's one), none of the first three again.
    expect(rawReads().length - before).toBe(5);
    const again = await backfillSite(deps(), site, siteId);
    expect(again).toMatchObject({ listed: 7, fetched: 0, known: 7, snapshots: 7 });
    expect(rawReads().length - before).toBe(5);
    expect(await snapshotsNow()).toHaveLength(7);
  });

  it('waits out a refusal, stops after too many keeping what it read, and keeps to a period', async () => {
    wayback.refuse = { count: 1, status: 429, retryAfter: '7' };
    const period = await backfillSite(
      deps(),
      site,
      siteId,
      readBackfillOptions({ since: '2019', until: '2021-02' }),
    );
    expect(waits).toEqual([7_000]);
    expect(period).toMatchObject({ listed: 3, fetched: 3, snapshots: 3 });
    expect((await snapshotsNow()).map((s) => s.firstSeen)).toEqual([
      '2021-01-01',
      '2020-01-01',
      '2019-03-01',
    ]);
    wayback.refuse = { count: 100, status: 429 };
    await expect(backfillSite(deps({ maxRefusals: 3 }), site, siteId)).rejects.toThrow(
      ArchiveError,
    );
    wayback.refuse = { count: 0, status: 429 };
    // Later captures are appended: the stored archived snapshots stay as they are.
    const ids = async () => (await listSnapshots(database.handle.db, siteId)).map((s) => s.id);
    const before = await ids();
    const later = await backfillSite(
      deps(),
      site,
      siteId,
      readBackfillOptions({ since: '2021-03' }),
    );
    expect(later).toMatchObject({ fetched: 3, snapshots: 6 });
    expect((await ids()).slice(3)).toEqual(before);
    // An earlier capture comes before them all: the chain is made again from all captures.
    const rest = await backfillSite(deps(), site, siteId);
    expect(rest).toMatchObject({ fetched: 1, known: 6, snapshots: 7 });
    expect((await snapshotsNow()).map((s) => s.firstSeen)).toEqual([
      '2024-01-01',
      '2022-01-01',
      '2021-04-01',
      '2021-01-01',
      '2020-01-01',
      '2019-03-01',
      '2018-01-01',
    ]);
  });

  it.each([
    [
      'same-page-new-key' as const,
      /^the CDX server's listing of .+\/robots\.txt loops: page 2 lists only captures it listed before; stopped$/,
      2,
    ],
    [
      'same-key' as const,
      /^the CDX server's listing of .+\/robots\.txt loops: page 2 gives a resume key it gave before; stopped$/,
      2,
    ],
    [
      'endless' as const,
      /^the CDX server's listing of .+\/robots\.txt holds more than 1,000 captures, more than 14 days can hold; stopped$/,
      2,
    ],
    [
      'empty-pages' as const,
      /^the CDX server's listing of .+\/robots\.txt runs past 100 pages, more than 14 days can hold; stopped$/,
      100,
    ],
  ])(
    'stops a CDX server whose listing never ends (%s), keeping what it read',
    async (mode, message, pages) => {
      wayback.listingMode = mode;
      const client = (): BackfillDeps => {
        const base = deps();
        return {
          ...base,
          archive: new ArchiveClient((r) => fetcher.fetchDocument(r), {
            url: wayback.url,
            requestsPerMinute: 0,
            maxRefusals: 5,
            timeoutMs: 3_000,
            pageSize: 1_000,
            sleep: () => Promise.resolve(),
          }),
        };
      };
      const run = backfillSite(
        client(),
        site,
        siteId,
        readBackfillOptions({ since: '2023-12-20', until: '2024-01-02' }),
      );
      await expect(run).rejects.toThrow(ArchiveError);
      await expect(run).rejects.toThrow(message);
      expect(wayback.requests.filter((r) => r.startsWith('/cdx/')).length).toBe(pages);
      // What was read before the stop is stored: a run again reads none of it.
      const stored = await storedCaptureTimes(database.handle.db, siteId);
      expect(stored.size).toBe(mode === 'endless' ? 1_000 : mode === 'empty-pages' ? 0 : 1);
    },
  );

  it('reads nothing from the first live check on', async () => {
    server.serve('/robots.txt', 200, OPEN);
    now = new Date('2021-06-01T00:00:00Z');
    await checkOnce();
    now = new Date('2026-11-24T12:00:00Z');
    const outcome = await backfillSite(deps(), site, siteId);
    expect(outcome.until.toISOString()).toBe('2021-06-01T00:00:00.000Z');
    expect(outcome).toMatchObject({ listed: 5, fetched: 5, snapshots: 5 });
    const states = await snapshotsNow();
    expect(states[0]).toMatchObject({ source: 'live', firstSeen: '2021-06-01' });
    expect(states.slice(1).every((s) => s.source === 'archive')).toBe(true);
  });

  it('leaves out a redirect whose target the archive did not capture, saying why', async () => {
    wayback.captures.set('www.example.test', []);
    const outcome = await backfillSite(deps(), site, siteId);
    expect(outcome).toMatchObject({ listed: 7, fetched: 7, skipped: 1, snapshots: 6 });
    const [row] = await queryRows<{ skipped: string | null }>(
      database.handle.db,
      sql`SELECT skipped FROM archive_captures WHERE timestamp = '20220101000000'`,
    );
    expect(row!.skipped).toBe(
      'it redirects to https://www.example.test/robots.txt, which the archive did not capture within 90 days',
    );
    // A second run does not try it again.
    expect(await backfillSite(deps(), site, siteId)).toMatchObject({
      fetched: 0,
      known: 7,
      snapshots: 6,
    });
  });

  it('refuses options that are not days', () => {
    expect(() => readBackfillOptions({ until: '2020-02-30' })).toThrow(
      /until: "2020-02-30" is not a day/,
    );
    expect(() => readBackfillOptions({ since: '2019-13' })).toThrow(
      /since: "2019-13" is not a day/,
    );
    expect(() => readBackfillOptions({ since: '2020', until: '2019' })).toThrow(/not before until/);
    expect(() => readBackfillOptions({ every: 'hour' })).toThrow(
      /every: "hour" is not one of change, day, week, month/,
    );
    expect(readBackfillOptions({ until: '2020-02' }).until!.toISOString()).toBe(
      '2020-03-01T00:00:00.000Z',
    );
  });
});
