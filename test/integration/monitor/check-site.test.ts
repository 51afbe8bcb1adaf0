/**
 * Checking a site end to end: a real HTTP server plays the site, the real fetcher
 * fetches it, the real store records it, on PGlite and (when configured) PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { withAlerts } from '../../../src/config/config.js';
import { decodeVerdicts } from '../../../src/policy/verdict-sets.js';
import type { SiteConfig } from '../../../src/config/config.js';
import { checkSite } from '../../../src/monitor/check/site.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { CheckOutcome } from '../../../src/monitor/check/site.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import { createCheckStore } from '../../../src/store/index.js';
import { queryRows } from '../../../src/store/db.js';
import { countRows } from '../../../src/store/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';

const DAY = 24 * 60 * 60 * 1000;
const { server, fetcher } = useLoopbackSite();

function siteConfig(extra = ''): SiteConfig {
  const yaml = `
sites:
  - url: ${server.origin}
    watch: [/, /private/x, /blog/post, /shop/cart]
    agents: [Googlebot, {token: Bingbot, profile: rfc9309}, {token: OldBot, profile: legacy}, GPTBot]
${extra}`;
  return parseConfig(yaml, { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' }).sites[0]!;
}

const ROBOTS_V1 =
  'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /blog/\n\nSitemap: https://example.com/a.xml\n';

describe.each(databaseKinds())('checking a site on %s', (kind) => {
  let database: TestDatabase;
  let now: Date;
  let deps: CheckDeps;
  const run = async (site = siteConfig()): Promise<CheckOutcome> => {
    const outcomes: CheckOutcome[] = [];
    const summary = await checkSites(deps, [site], {
      concurrency: 1,
      onOutcome: (o) => outcomes.push(o),
    });
    expect(summary.failures).toEqual([]);
    return outcomes[0]!;
  };
  const counts = () => countRows(database.handle.db);

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    now = new Date('2026-03-01T00:00:00Z');
    deps = {
      fetchRobots: (origin) => fetcher.fetchRobots(origin),
      store: createCheckStore(database.handle.db),
      now: () => now,
      sleep: () => Promise.resolve(),
      confirmRetries: 2,
      confirmDelayMs: 1000,
    };
    server.serve('/robots.txt', 200, ROBOTS_V1);
  });
  afterEach(async () => {
    server.routes.clear();
    server.requests.length = 0;
    await database.close();
  });

  it('records a first check as the baseline, with verdicts and no events', async () => {
    const outcome = await run();
    expect(outcome.kind).toBe('baseline');
    expect(outcome.events).toEqual([]);
    expect(outcome.status).toEqual({ access: 'ok', status: 200 });
    const disallowed = decodeVerdicts(outcome.verdicts!)
      .filter((v) => !v.allowed)
      .map((v) => `${v.agent} ${new URL(v.url).pathname}`);
    expect(disallowed.sort()).toEqual(
      [
        'Bingbot /private/x',
        'Googlebot /private/x',
        'OldBot /private/x',
        'GPTBot /blog/post',
      ].sort(),
    );
    expect(await counts()).toMatchObject({
      sites: 1,
      bodies: 1,
      snapshots: 1,
      checks: 1,
      verdicts: 16,
      change_events: 0,
    });
  });

  it('writes only a check row when nothing changed', async () => {
    await run();
    const before = await counts();
    now = new Date(now.getTime() + DAY);
    const outcome = await run();
    expect(outcome).toMatchObject({ kind: 'unchanged', events: [] });
    expect(await counts()).toEqual({ ...before, checks: before['checks']! + 1 });
  });

  it('reports what a rule change does to each watched URL and agent', async () => {
    await run();
    server.serve(
      '/robots.txt',
      200,
      ROBOTS_V1.replace('Disallow: /private/', 'Disallow: /private/\nDisallow: /shop/').replace(
        'Disallow: /blog/',
        'Allow: /',
      ),
    );
    const outcome = await run();
    expect(outcome.kind).toBe('changed');
    const verdictEvents = outcome.events.filter(
      (e) => e.type === 'newly_disallowed' || e.type === 'newly_allowed',
    );
    expect(verdictEvents).toEqual(
      expect.arrayContaining([
        {
          type: 'newly_disallowed',
          site: server.origin,
          url: `${server.origin}/shop/cart`,
          agent: 'Googlebot',
          cause: { type: 'rule', directive: 'disallow', pattern: '/shop/', line: 3 },
        },
        {
          type: 'newly_allowed',
          site: server.origin,
          url: `${server.origin}/blog/post`,
          agent: 'GPTBot',
          cause: { type: 'rule', directive: 'allow', pattern: '/', line: 6 },
        },
      ]),
    );
    expect(verdictEvents).toHaveLength(4); // /shop/cart for Googlebot, Bingbot, OldBot; /blog/post for GPTBot
    const rules = outcome.events.find((e) => e.type === 'rules_changed');
    expect(rules).toEqual({
      type: 'rules_changed',
      site: server.origin,
      added: [
        { agent: 'Googlebot', directive: 'disallow', pattern: '/shop/', line: 3 },
        { agent: 'Bingbot', directive: 'disallow', pattern: '/shop/', line: 3 },
        { agent: 'OldBot', directive: 'disallow', pattern: '/shop/', line: 3 },
        { agent: 'GPTBot', directive: 'allow', pattern: '/', line: 6 },
      ],
      removed: [{ agent: 'GPTBot', directive: 'disallow', pattern: '/blog/', line: 5 }],
    });
    expect(outcome.events.some((e) => e.type === 'fetch_status_changed')).toBe(false);
    expect(await counts()).toMatchObject({
      snapshots: 2,
      bodies: 2,
      change_events: outcome.events.length,
    });
  });

  it('makes a snapshot but no rule change for comment, whitespace and order-only edits', async () => {
    await run();
    server.serve(
      '/robots.txt',
      200,
      '# new comment\n\nUser-agent:    GPTBot\nDisallow:  /blog/   # why\n\nSitemap: https://example.com/a.xml\nUser-agent: *\nDisallow: /private/\r\n',
    );
    const outcome = await run();
    expect(outcome.kind).toBe('changed');
    expect(outcome.events).toEqual([]);
    expect(await counts()).toMatchObject({ snapshots: 2 });
  });

  it('treats one failed fetch that recovers on retry as a blip, not a status change', async () => {
    await run();
    let calls = 0;
    server.routes.set('/robots.txt', (_req, res) => {
      calls++;
      res.writeHead(calls === 1 ? 503 : 200);
      res.end(calls === 1 ? 'busy' : ROBOTS_V1);
    });
    const outcome = await run();
    expect(outcome).toMatchObject({ kind: 'unchanged', transient: '503', events: [] });
    expect(calls).toBe(2);
    expect(await counts()).toMatchObject({ snapshots: 1, checks: 2 });
  });

  it('records a confirmed 503: everything disallowed, and the status change', async () => {
    await run();
    server.serve('/robots.txt', 503, 'down');
    const outcome = await run();
    expect(outcome.kind).toBe('changed');
    expect(server.requests.filter((r) => r.path === '/robots.txt').length).toBe(1 + 3); // baseline + fetch + 2 retries
    expect(outcome.events[0]).toEqual({
      type: 'fetch_status_changed',
      site: server.origin,
      before: { access: 'ok', status: 200 },
      after: { access: 'unreachable', status: 503 },
    });
    const newlyDisallowed = outcome.events.filter((e) => e.type === 'newly_disallowed');
    // 4 watches × 4 agents minus the 4 already disallowed; OldBot (1996) defers to its last good copy.
    expect(newlyDisallowed).toHaveLength(16 - 4 - 3);
    expect(newlyDisallowed[0]).toMatchObject({ cause: { type: 'access', access: 'unreachable' } });
    expect(newlyDisallowed.some((e) => e.type === 'newly_disallowed' && e.agent === 'OldBot')).toBe(
      false,
    );
    // and no rules_changed: the rules are not known to have changed
    expect(outcome.events.some((e) => e.type === 'rules_changed')).toBe(false);
  });

  it('says since when the trouble lasted when a site recovers, from the failing states read back', async () => {
    await run();
    const failingFrom = new Date(now.getTime() + DAY);
    now = failingFrom;
    server.serve('/robots.txt', 503, 'down');
    expect((await run()).kind).toBe('changed');
    now = new Date(now.getTime() + DAY);
    server.serve('/robots.txt', 500, 'broken');
    expect((await run()).kind).toBe('changed');
    now = new Date(now.getTime() + DAY);
    server.serve('/robots.txt', 200, ROBOTS_V1);
    const back = await run();
    expect(back.causes.find((c) => c.type === 'fetch_status')).toMatchObject({
      before: { access: 'unreachable', status: 500 },
      after: { access: 'ok', status: 200 },
      incidentSince: failingFrom.toISOString(),
    });
    // A page served in place of the file, then the file again: since the page came.
    const pageFrom = new Date(now.getTime() + DAY);
    now = pageFrom;
    server.serve('/robots.txt', 200, '<!DOCTYPE html><html><body>Welcome</body></html>');
    expect((await run()).kind).toBe('changed');
    now = new Date(now.getTime() + DAY);
    server.serve('/robots.txt', 200, ROBOTS_V1.replace('/blog/', '/news/'));
    const file = await run();
    expect(file.causes.find((c) => c.type === 'file_condition')).toMatchObject({
      before: 'html',
      since: pageFrom.toISOString(),
    });
    // A change from one file to another is part of no trouble.
    now = new Date(now.getTime() + DAY);
    server.serve('/robots.txt', 200, ROBOTS_V1);
    const plain = await run();
    expect(plain.kind).toBe('changed');
    expect(plain.causes.some((c) => c.type === 'fetch_status' || c.type === 'file_condition')).toBe(
      false,
    );
  });

  it('reads a 404 as "nothing is disallowed"', async () => {
    await run();
    server.serve('/robots.txt', 404, 'no such file');
    const outcome = await run();
    const allowed = outcome.events.filter((e) => e.type === 'newly_allowed');
    expect(allowed).toHaveLength(4);
    expect(allowed[0]).toMatchObject({ cause: { type: 'access', access: 'unavailable' } });
  });

  it('applies the last good copy after 30 days of unreachability (Google), with events', async () => {
    await run();
    server.serve('/robots.txt', 500, 'broken');
    const down = await run();
    expect(down.status).toEqual({ access: 'unreachable', status: 500 });
    now = new Date(now.getTime() + 29 * DAY);
    expect((await run()).kind).toBe('unchanged');
    now = new Date(now.getTime() + 1 * DAY);
    const stale = await run();
    expect(stale.kind).toBe('changed');
    // Back to the rules of the last good copy: only what it disallows stays disallowed.
    const allowedAgain = stale.events.filter((e) => e.type === 'newly_allowed');
    expect(allowedAgain).toHaveLength(16 - 4 - 3);
    expect(allowedAgain.every((e) => e.type === 'newly_allowed' && e.agent !== 'OldBot')).toBe(
      true,
    );
    expect(decodeVerdicts(stale.verdicts!).filter((v) => !v.allowed)).toHaveLength(4);
    now = new Date(now.getTime() + DAY);
    expect((await run()).kind).toBe('unchanged');
  });

  it('cuts a 600 KiB file: rules past the cut are ignored and the snapshot says so', async () => {
    const big =
      'User-agent: *\n' +
      '# filler line of forty bytes..........\n'.repeat(13_200) +
      'Disallow: /shop/\n';
    server.serve('/robots.txt', 200, big);
    const outcome = await run();
    expect(outcome.fetch.cut).toMatchObject({ complete: true });
    expect(outcome.findings.map((f) => f.message)).toEqual([
      'The file is 514831 bytes; content past 512000 bytes is ignored: line 13129 is cut and lines 13130–13203 are not read.',
    ]);
    expect(
      decodeVerdicts(outcome.verdicts!).find(
        (v) => v.agent === 'Googlebot' && v.url.endsWith('/shop/cart'),
      )?.allowed,
    ).toBe(true);
  });

  it('reports sitemap changes', async () => {
    await run();
    server.serve('/robots.txt', 200, ROBOTS_V1.replace('a.xml', 'b.xml'));
    const outcome = await run();
    expect(outcome.events).toEqual([
      {
        type: 'sitemaps_changed',
        site: server.origin,
        added: ['https://example.com/b.xml'],
        removed: ['https://example.com/a.xml'],
      },
    ]);
  });

  it('recomputes verdicts when the watches change, without events', async () => {
    await run();
    const wider = siteConfig().watches.concat(`${server.origin}/new`);
    const outcome = await run({ ...siteConfig(), watches: wider });
    expect(outcome).toMatchObject({ kind: 'unchanged', events: [] });
    expect(decodeVerdicts(outcome.verdicts!)).toHaveLength(20);
    expect(await counts()).toMatchObject({ snapshots: 1, verdicts: 20 });
  });

  it('records robots.txt answered from another place as a new state, alerted only when asked', async () => {
    const outbox = async () =>
      (
        await queryRows<{ n: number }>(
          database.handle.db,
          sql`SELECT count(*)::int AS n FROM outbox WHERE payload::text LIKE '%"type": "source"%'`,
        )
      )[0]!.n;
    const asked = siteConfig(`notify:
  events: [redirect_changed]
  webhooks: [{url: 'http://127.0.0.1:9/hook'}]`);
    const quiet = siteConfig(`notify:
  webhooks: [{url: 'http://127.0.0.1:9/hook'}]`);
    await run(quiet);
    // The same file, now served through a redirect to another path.
    server.serve('/robots.txt', 301, '', { location: '/moved/robots.txt' });
    server.serve('/moved/robots.txt', 200, ROBOTS_V1);
    now = new Date(now.getTime() + DAY);
    const moved = await run(quiet);
    expect(moved.kind).toBe('changed');
    expect(moved.causes).toEqual([
      { type: 'source', before: null, after: `${server.origin}/moved/robots.txt`, pairs: [] },
    ]);
    expect(moved.events).toEqual([]);
    expect(await outbox()).toBe(0);
    // The same place with another query string: seen again, not a new state.
    server.serve('/robots.txt', 301, '', { location: '/moved/robots.txt?session=2' });
    now = new Date(now.getTime() + DAY);
    expect((await run(quiet)).kind).toBe('unchanged');
    // Back to its own URL, for a site that asked for redirect alerts.
    server.serve('/robots.txt', 200, ROBOTS_V1);
    now = new Date(now.getTime() + DAY);
    const back = await run(asked);
    expect(back.causes.map((c) => c.type)).toEqual(['source']);
    expect(await outbox()).toBe(1);
    expect(await counts()).toMatchObject({ snapshots: 3, checks: 4, bodies: 1 });
  });

  it('records a change seen by two checks at once only once, with one set of alerts', async () => {
    const site = siteConfig(`notify:
  events: [changed]
  webhooks: [{url: 'http://127.0.0.1:9/hook'}]`);
    await run(site);
    server.serve('/robots.txt', 200, ROBOTS_V1 + 'User-agent: *\nDisallow: /shop/\n');
    // Two processes loaded the site's state before either recorded anything.
    const [stored] = await deps.store.loadSites([site.origin]);
    const results = await Promise.allSettled([
      checkSite(deps, site, stored!),
      checkSite(deps, site, stored!),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected')!;
    expect(String(rejected.reason)).toMatch(/another check recorded a new state of site \d+/);
    expect(await counts()).toMatchObject({ snapshots: 2, checks: 2 });
    const outbox = await queryRows<{ n: number }>(
      database.handle.db,
      sql`SELECT count(*)::int AS n FROM outbox`,
    );
    expect(outbox[0]!.n).toBe(1);
  });

  it('records a change and queues its alerts for every target, however many (in slices)', async () => {
    // The configuration caps a list at 100; the store must not depend on that cap.
    const base = siteConfig();
    const webhooks = Array.from({ length: 10_000 }, (_, i) => ({
      url: `http://127.0.0.1:9/hook/${i}`,
      secret: undefined,
      format: 'json' as const,
    }));
    const site = withAlerts(base, { ...base.alerts, webhooks });
    await run(site);
    server.serve('/robots.txt', 200, ROBOTS_V1 + 'User-agent: *\nDisallow: /shop/\n');
    expect((await run(site)).kind).toBe('changed');
    const outbox = await queryRows<{ n: number; destinations: number }>(
      database.handle.db,
      sql`SELECT count(*)::int AS n, count(DISTINCT destination)::int AS destinations FROM outbox`,
    );
    // Googlebot is meant to fetch every watched page (the built-in intent): the baseline
    // opened an incident (/private/x), the change made it worse (/shop/cart): two alerts
    // to each of the 10,000 webhooks.
    expect(outbox[0]).toEqual({ n: 20_000, destinations: 10_000 });
  });

  it('begins no further check once its run is stopped, and finishes the one begun', async () => {
    const second = parseConfig('sites:\n  - url: http://127.0.0.1:9\n    watch: [/]\n', {
      file: 'test.yaml',
      cwd: '/tmp',
      env: {},
      version: 'test',
    }).sites[0]!;
    const stop = new AbortController();
    const outcomes: CheckOutcome[] = [];
    const summary = await checkSites(deps, [siteConfig(), second], {
      concurrency: 1,
      signal: stop.signal,
      onOutcome: (o) => {
        outcomes.push(o);
        stop.abort(); // as when the client of POST /api/v1/checks goes away
      },
    });
    expect(outcomes.map((o) => [o.site, o.kind])).toEqual([[server.origin, 'baseline']]);
    expect(summary).toMatchObject({ checked: 1, baseline: 1, failures: [] });
    expect((await counts()).snapshots).toBe(1);
  });

  it('keeps checking the other sites when one cannot be recorded', async () => {
    await database.handle.db.execute(
      'ALTER TABLE checks ADD CONSTRAINT no_checks CHECK (duration_ms < 0)',
    );
    const failures: string[] = [];
    const summary = await checkSites(deps, [siteConfig()], {
      concurrency: 2,
      onFailure: (site) => failures.push(site),
    });
    expect(summary.checked).toBe(0);
    expect(failures).toEqual([server.origin]);
    expect(summary.failures[0]!.reason).toMatch(/no_checks/);
  });
});
