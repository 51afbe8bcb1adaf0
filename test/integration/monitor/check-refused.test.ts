/**
 * A check robowatch's own address guard refuses is a check not made, never a state of
 * the site: no snapshot, no verdicts, no "everything blocked". A site whose name turns
 * to a private address later (DNS rebinding) gets the same; the refusal is alerted once
 * and goes when a check is made again. On both databases, over real loopback HTTP:
 * 127.0.0.1 plays a public address, 127.0.0.2 a private one.
 */
import type { LookupFunction } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { SiteConfig } from '../../../src/config/config.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { CheckOutcome } from '../../../src/monitor/check/site.js';
import { outcomeDocument } from '../../../src/monitor/documents/index.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import { queryRows } from '../../../src/store/db.js';
import { createCheckStore, createWebStore } from '../../../src/store/index.js';
import { countRows } from '../../../src/store/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { historyApp } from '../../support/site-history.js';

const site = new FixtureServer();
const intranet = new FixtureServer();
/** What shop.example resolves to now: the test changes it, as a rebinding DNS would. */
let resolvesTo = '127.0.0.1';
const lookup = ((
  _hostname: string,
  options: { all?: boolean },
  callback: (error: null, a: unknown, family?: number) => void,
) => {
  if (options.all) callback(null, [{ address: resolvesTo, family: 4 }]);
  else callback(null, resolvesTo, 4);
}) as unknown as LookupFunction;
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: false,
  isAddressAllowed: (address) => address === '127.0.0.1',
  lookup,
});

beforeAll(async () => {
  await site.start('127.0.0.1');
  await intranet.start('127.0.0.2');
});
afterAll(async () => {
  await fetcher.close();
  await site.stop();
  await intranet.stop();
});

const ROBOTS = 'User-agent: *\nDisallow: /private/\n';

describe.each(databaseKinds())('a check the address guard refuses, on %s', (kind) => {
  let database: TestDatabase;
  let now: Date;
  let deps: CheckDeps;
  let shop: SiteConfig;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    now = new Date('2026-11-01T03:00:00Z');
    resolvesTo = '127.0.0.1';
    deps = {
      fetchRobots: (origin) => fetcher.fetchRobots(origin),
      store: createCheckStore(database.handle.db),
      now: () => now,
      sleep: () => Promise.resolve(),
      confirmRetries: 2,
      confirmDelayMs: 1000,
    };
    shop = parseConfig(
      `agents: [Googlebot]
sites:
  - url: http://shop.example:${new URL(site.origin).port}
    watch: [/, /private/x]
notify: {events: [changed], webhooks: [{url: 'http://127.0.0.1:9/hook'}]}
`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    ).sites[0]!;
    site.serve('/robots.txt', 200, ROBOTS);
  });
  afterEach(async () => {
    site.routes.clear();
    site.requests.length = 0;
    intranet.requests.length = 0;
    await database.close();
  });

  const check = async () => {
    const outcomes: CheckOutcome[] = [];
    const summary = await checkSites(deps, [shop], {
      concurrency: 1,
      onOutcome: (o) => outcomes.push(o),
    });
    now = new Date(now.getTime() + 86_400_000);
    return { outcome: outcomes[0]!, summary };
  };
  const alerts = () =>
    queryRows<{ causes: { type: string }[] }>(
      database.handle.db,
      sql`SELECT payload->'causes' AS causes FROM outbox ORDER BY id`,
    );

  it('records no state when the name turns private, alerts once, and clears when it is back', async () => {
    const baseline = await check();
    expect(baseline.outcome.kind).toBe('baseline');
    const before = await countRows(database.handle.db);

    // DNS rebinding: the same name now resolves to a private address.
    resolvesTo = '127.0.0.2';
    const refused = await check();
    expect(refused.outcome.kind).toBe('refused');
    expect(refused.outcome.verdicts).toBeNull();
    expect(refused.outcome.events).toEqual([]);
    expect(refused.outcome.snapshotId).toBe(baseline.outcome.snapshotId);
    expect(intranet.requests).toHaveLength(0);
    expect(refused.summary).toMatchObject({ checked: 0, changed: 0 });
    expect(refused.summary.failures).toEqual([
      {
        site: shop.origin,
        reason:
          'robowatch could not check this site: it resolves to a private address (shop.example resolves only to private or reserved addresses); fetch.allowPrivateAddresses allows it',
      },
    ]);
    expect(outcomeDocument(refused.outcome).refused).toEqual({
      message:
        'robowatch could not check this site: it resolves to a private address (shop.example resolves only to private or reserved addresses); fetch.allowPrivateAddresses allows it',
      since: '2026-11-02T03:00:00.000Z',
      began: true,
    });
    // Nothing of the site was recorded: no snapshot, no check, no "unreachable".
    expect(await countRows(database.handle.db)).toEqual(before);
    const web = createWebStore(database.handle.db);
    const [overview] = await web.loadOverview([refused.outcome.siteId]);
    expect(overview!.current).toMatchObject({ id: baseline.outcome.snapshotId, status: 200 });
    expect(overview!.refused).toEqual({
      since: new Date('2026-11-02T03:00:00Z'),
      reason: 'shop.example resolves only to private or reserved addresses',
    });
    expect((await web.loadSiteStandings(new Date(0))).refused).toEqual(
      new Set([refused.outcome.siteId]),
    );
    // One alert, saying robowatch could not check: not that crawlers are blocked.
    expect((await alerts()).map((a) => a.causes.map((c) => c.type))).toEqual([['refused']]);

    // Refused again: the same refusal, since the first day; no second alert.
    const again = await check();
    expect(again.outcome.refused).toEqual({
      since: new Date('2026-11-02T03:00:00Z'),
      began: false,
    });
    expect(await alerts()).toHaveLength(1);
    expect(await web.loadRefusal(refused.outcome.siteId)).toMatchObject({
      since: new Date('2026-11-02T03:00:00Z'),
      at: new Date('2026-11-03T03:00:00Z'),
    });

    // Public again: checked, the state seen again, the refusal gone.
    resolvesTo = '127.0.0.1';
    const back = await check();
    expect(back.outcome.kind).toBe('unchanged');
    expect(await web.loadRefusal(refused.outcome.siteId)).toBeNull();
    expect((await web.loadSiteStandings(new Date(0))).refused.size).toBe(0);
  });

  it('refuses a redirect to a private address, and a site never checked, recording nothing', async () => {
    site.serve('/robots.txt', 301, '', { location: `${intranet.origin}/robots.txt` });
    intranet.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /\n');
    const { outcome } = await check();
    expect(outcome.kind).toBe('refused');
    expect(outcome.snapshotId).toBeNull();
    expect(outcome.causes).toEqual([
      {
        type: 'refused',
        url: `${intranet.origin}/robots.txt`,
        redirected: true,
        reason: '127.0.0.2 is a private or reserved address',
        pairs: [],
      },
    ]);
    expect(intranet.requests).toHaveLength(0);
    expect(await countRows(database.handle.db)).toMatchObject({ snapshots: 0, checks: 0 });
    const [alert] = await queryRows<{ snapshot_id: number | null; title: unknown }>(
      database.handle.db,
      sql`SELECT snapshot_id, payload->'snapshotId' AS title FROM outbox`,
    );
    expect(alert).toEqual({ snapshot_id: null, title: null });
  });

  it('says so on the site page, the overview, the API and Check now', async () => {
    await check();
    resolvesTo = '127.0.0.2';
    const config = parseConfig(
      `agents: [Googlebot]
sites:
  - url: ${shop.origin}
    watch: [/, /private/x]
web: {token: refused-token-0123456789}
`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const clock = { now };
    const app = historyApp(database.handle.db, config, deps, clock);
    const bearer = { authorization: 'Bearer refused-token-0123456789' };
    const checked = await app.request('/api/v1/sites/1/check', { method: 'POST', headers: bearer });
    expect(checked.status).toBe(200);
    expect(await checked.json()).toMatchObject({
      kind: 'refused',
      verdicts: null,
      refused: { began: true },
    });
    const document = (await (await app.request('/api/v1/sites/1', { headers: bearer })).json()) as {
      refused: { reason: string; message: string } | null;
      current: { status: number } | null;
    };
    expect(document.refused).toMatchObject({
      reason: 'shop.example resolves only to private or reserved addresses',
      message:
        'robowatch could not check this site: shop.example resolves only to private or reserved addresses, and robowatch does not fetch private or reserved addresses (fetch.allowPrivateAddresses allows it)',
    });
    expect(document.current).toMatchObject({ status: 200 });
    const list = (await (await app.request('/api/v1/sites', { headers: bearer })).json()) as {
      sites: { condition: string; refused: unknown }[];
    };
    expect(list.sites[0]).toMatchObject({ condition: 'refused' });
    const page = await (await app.request('/sites/1', { headers: bearer })).text();
    expect(page).toContain('robowatch could not check this site since');
    expect(page).toContain('cannot check');
    expect(page).not.toContain('unreachable');
    const overview = await (await app.request('/', { headers: bearer })).text();
    expect(overview).toContain('1 robowatch cannot check: its host resolves to a private address');
    const form = await app.request('/sites/1/check', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.headers.get('location')).toBe('/sites/1?checked=refused');
  });
});
