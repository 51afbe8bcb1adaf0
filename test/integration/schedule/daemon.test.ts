/**
 * The daemon in-process, on both databases, with a clock the test moves and cron fires
 * the test makes: two daemons sharing one database plan each period once, check each site
 * once per period and alert a change once, delivered at once, as is the alert of an
 * incident a first or an unchanged check opens (and no look for notifications follows the
 * check of a site nobody hears of); a site whose earlier check still waits is skipped for
 * a period; each recipient's digest of a period is sent once whichever
 * daemon's fire wins; sent notifications are pruned once across the daemons; /healthz
 * says when notifications have failed too long; a job another process queued is found at
 * the daemon's next look; a reload applies the alert log's length, the flap window, the
 * coverage thresholds, backfill.onAdd, the retry policy, the health limit and the mail
 * server (a waiting email goes out through the reloaded one). Nothing waits for time: the
 * tests wait for the daemons' events.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { daemonConfig, FakeClock, FakeCron, startInProcess } from '../../support/daemon-harness.js';
import type { InProcessDaemon } from '../../support/daemon-harness.js';
import type { Config } from '../../../src/config/config.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { WaybackServer } from '../../support/wayback-server.js';
import { TestSmtpServer } from '../../support/smtp.js';
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../support/fixtures.js';
import { acknowledgeIncident, listIncidents } from '../../../src/store/intent.js';
import { startTestEngine } from '../../support/job-engine.js';
import type { CheckOutcome } from '../../../src/monitor/check/site.js';
import type { DaemonEventMap } from '../../../src/schedule/events.js';
import { upkeepJob } from '../../../src/schedule/jobs/upkeep-job.js';
import { logDaemonEvents } from '../../../src/schedule/daemon-log.js';
import { queryRows } from '../../../src/store/db.js';
import { sql } from 'drizzle-orm';

const shop = new FixtureServer();
const news = new FixtureServer();
const hook = new WebhookReceiver('daemon-hook-secret');
const registry = new FixtureServer();
const wayback = new WaybackServer();
beforeAll(async () => {
  await shop.start();
  await news.start();
  await hook.start();
  await registry.start();
  await wayback.start();
});
afterAll(async () => {
  await shop.stop();
  await news.stop();
  await hook.stop();
  await registry.stop();
  await wayback.stop();
});

const OPEN = 'User-agent: *\nDisallow: /private/\n';
const CLOSED = 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Well behind the real clock, which the job engine's database compares due times with too. */
const START = new Date('2026-03-02T00:00:00Z');

/** Resolves once `condition` holds, looking every 10 ms for up to a minute. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Resolves once `condition` holds, moving `clock` on by an upkeep round (15 s) every 200 ms
 * for up to a minute: a round still at work when the clock moves sleeps from the new
 * time, so one move may come before the round is asleep; the clock moves again until the
 * round comes.
 */
async function untilUpkeep(
  clock: FakeClock,
  condition: () => boolean,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within a minute`);
    clock.advance(15_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.each(databaseKinds())('the daemon in-process on %s', (kind) => {
  let database: TestDatabase;
  let clock: FakeClock;
  let daemons: { daemon: InProcessDaemon; cron: FakeCron }[];
  const config = (extra = '') =>
    daemonConfig(`agents: [Googlebot]
schedule: {check: '0 3 * * *', digest: '0 8 * * 1'}
sites:
  - {url: '${shop.origin}', watch: [/, /pricing]}
  - {url: '${news.origin}', watch: [/, /pricing]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  webhooks: [{url: '${hook.url}/hook', secret: daemon-hook-secret}]
${extra}`);
  /** Two daemons sharing the test's database, as two processes would. */
  const startTwo = async (extra = '') => {
    daemons = [];
    for (let i = 0; i < 2; i++) {
      const cron = new FakeCron();
      daemons.push({
        daemon: await startInProcess(database.handle, config(extra), clock, cron),
        cron,
      });
    }
  };
  /** One daemon on the test's database, with `configured`. */
  const startOne = async (configured: Config) => {
    const cron = new FakeCron();
    const daemon = await startInProcess(database.handle, configured, clock, cron);
    daemons.push({ daemon, cron });
    return daemon;
  };
  const all = <E extends Parameters<InProcessDaemon['heardOf']>[0]>(event: E) =>
    daemons.flatMap(({ daemon }) => daemon.heardOf(event));
  const checks = () => all('check:done').map((e) => e.outcome);
  /**
   * The first checks, then the shop blocks /pricing and the next period's checks run
   * (one daemon's plan fire); `before` runs just before the change is served.
   */
  const blockPricingNextPeriod = async (before?: () => void) => {
    clock.advance(10_000);
    await until(() => checks().length === 2, 'the first checks');
    before?.();
    shop.serve('/robots.txt', 200, CLOSED);
    const fire = new Date('2026-03-02T03:00:00Z');
    clock.advanceTo(fire);
    daemons[0]!.cron.fire('plan 0 3 * * *', fire);
    clock.advance(DAY - 1);
  };

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    clock = new FakeClock(START);
    daemons = [];
    hook.received.length = 0;
    hook.status = 200;
    shop.serve('/robots.txt', 200, OPEN);
    news.serve('/robots.txt', 200, OPEN);
  });
  afterEach(async () => {
    for (const { daemon } of daemons) await daemon.stop();
    shop.routes.clear();
    news.routes.clear();
    await database.close();
  });

  it('plans each period once, checks each site once per period, and alerts a change once', async () => {
    await startTwo();
    // Never checked: each site's first check within seconds of the start.
    clock.advance(10_000);
    await until(() => checks().length === 2, 'the two first checks');
    expect(checks().map((c) => c.kind)).toEqual(['baseline', 'baseline']);
    // The outcomes are listed daemon by daemon, not in time: the period's are the others.
    const first = new Set(checks());

    // The next period: both processes' fires, one plan.
    shop.serve('/robots.txt', 200, CLOSED);
    const fire = new Date('2026-03-02T03:00:00Z');
    clock.advanceTo(fire);
    for (const { cron } of daemons) cron.fire('plan 0 3 * * *', fire);
    await until(
      () => all('period:planned').some((p) => p.period.start.getTime() === fire.getTime()),
      'the plan of the period',
    );
    const planned = all('period:planned').filter(
      (p) => p.period.start.getTime() === fire.getTime(),
    );
    expect(planned).toHaveLength(1);
    expect(planned[0]!.planned).toBe(2);
    // Each site is due at its place within the period: nothing runs before.
    expect(planned[0]!.firstDueAt!.getTime()).toBeGreaterThan(fire.getTime());
    expect(planned[0]!.lastDueAt!.getTime()).toBeLessThan(fire.getTime() + 0.9 * DAY);
    clock.advance(DAY - 1);
    await until(() => checks().length === 4, 'the period’s checks');
    const period = checks().filter((c) => !first.has(c));
    expect(period.map((c) => [c.site, c.kind]).sort()).toEqual(
      [
        [news.origin, 'unchanged'],
        [shop.origin, 'changed'],
      ].sort(),
    );
    // One alert, signed, for the one change; delivered by one of the two.
    await until(() => all('delivery:sent').length === 1, 'the alert');
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.signatureValid).toBe(true);
    // Both shared the work, and no check or plan job failed.
    expect(all('job:failed')).toEqual([]);
  });

  it('delivers a check’s alert at once, and does not look for notifications after a check of a site nobody hears of', async () => {
    // The news site tells nobody (no address, no webhook): its checks queue nothing.
    const cron = new FakeCron();
    const daemon = await startInProcess(
      database.handle,
      daemonConfig(`agents: [Googlebot]
schedule: {check: '0 3 * * *', digest: '0 8 * * 1'}
sites:
  - {url: '${shop.origin}', watch: [/, /pricing]}
  - {url: '${news.origin}', watch: [/, /pricing], notify: {webhooks: []}}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  webhooks: [{url: '${hook.url}/hook', secret: daemon-hook-secret}]
`),
      clock,
      cron,
    );
    daemons.push({ daemon, cron });
    /** Where the site's check of that kind is among the events the daemon told. */
    const doneAt = (origin: string, kind: CheckOutcome['kind']) =>
      daemon.heard.findIndex(({ event, payload }) => {
        if (event !== 'check:done') return false;
        const { outcome } = payload as DaemonEventMap['check:done'];
        return outcome.site === origin && outcome.kind === kind;
      });
    const deliveryLooksAfter = (index: number) =>
      daemon.looks.filter((l) => l.queue === 'deliver' && l.after > index);
    const nextPeriod = (day: number) => {
      const fire = new Date(Date.UTC(2026, 2, day, 3));
      clock.advanceTo(fire);
      cron.fire('plan 0 3 * * *', fire);
      clock.advance(DAY - 1);
    };
    clock.advance(10_000);
    await until(() => doneAt(shop.origin, 'baseline') >= 0, 'the shop’s first check');
    await until(() => doneAt(news.origin, 'baseline') >= 0, 'the news site’s first check');

    // The news site blocks /pricing: its incident opens, and nobody is told.
    news.serve('/robots.txt', 200, CLOSED);
    nextPeriod(2);
    await until(() => doneAt(news.origin, 'changed') >= 0, 'the news site’s changed check');
    await until(() => doneAt(shop.origin, 'unchanged') >= 0, 'the shop’s unchanged check');
    // Any look a wake set off has begun by the time the looks under way have ended.
    await until(
      () => daemon.looks.every((l) => l.queue !== 'deliver' || l.ended),
      'the looks for notifications under way',
    );
    expect(deliveryLooksAfter(doneAt(news.origin, 'changed'))).toEqual([]);
    expect(all('delivery:sent')).toEqual([]);

    // The shop blocks /pricing: its alert is sent without the clock moving on, so without
    // the daemon's own looks (they sleep by the clock).
    shop.serve('/robots.txt', 200, CLOSED);
    nextPeriod(3);
    await until(() => doneAt(shop.origin, 'changed') >= 0, 'the shop’s changed check');
    await until(() => all('delivery:sent').length === 1, 'the shop’s alert');
    expect(deliveryLooksAfter(doneAt(shop.origin, 'changed')).length).toBeGreaterThan(0);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.body).toContain(shop.origin);
    expect(all('job:failed')).toEqual([]);
  });

  /**
   * The shop alone, with a webhook, `intent` (YAML lines under the site) and `extra`
   * (top-level lines) if any.
   */
  const shopAlone = (intent = '', extra = '') =>
    daemonConfig(`agents: [Googlebot]
schedule: {check: '0 3 * * *', digest: '0 8 * * 1'}
sites:
  - url: '${shop.origin}'
    watch: [/, /pricing]
${intent}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  webhooks: [{url: '${hook.url}/hook', secret: daemon-hook-secret}]
${extra}`);
  /** The owner means /pricing to be closed to Googlebot (the shop's file opens it). */
  const PRICING_CLOSED = `    intent:
      - {watch: /pricing, agents: [Googlebot], expect: disallowed}`;

  /**
   * The daemon's one check, of `kind` and with no change events, opens an incident whose
   * alert is sent without the clock moving on after it, so without the daemon's own looks
   * (they sleep by the clock): the check itself woke the delivery.
   */
  const expectIncidentAlertAtOnce = async (daemon: InProcessDaemon, kind: CheckOutcome['kind']) => {
    await until(() => daemon.heardOf('check:done').length === 1, `the ${kind} check`);
    const { outcome } = daemon.heardOf('check:done')[0]!;
    expect([outcome.kind, outcome.events.length, outcome.judged?.recorded.step]).toEqual([
      kind,
      0,
      'open',
    ]);
    await until(() => daemon.heardOf('delivery:sent').length === 1, 'the incident’s alert');
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.body).toContain('/pricing');
  };

  it('delivers at once the alert of an incident a site’s first check opens', async () => {
    const cron = new FakeCron();
    const daemon = await startInProcess(database.handle, shopAlone(PRICING_CLOSED), clock, cron);
    daemons.push({ daemon, cron });
    clock.advance(10_000);
    await expectIncidentAlertAtOnce(daemon, 'baseline');
  });

  it('delivers at once the alert of an incident an unchanged check opens, the intent having changed in the file', async () => {
    const first = new FakeCron();
    const before = await startInProcess(database.handle, shopAlone(), clock, first);
    daemons.push({ daemon: before, cron: first });
    clock.advance(10_000);
    await until(() => before.heardOf('check:done').length === 1, 'the first check');
    await before.stop();
    daemons = [];

    // The owner now means /pricing to be closed to Googlebot; the file still opens it.
    const cron = new FakeCron();
    const daemon = await startInProcess(database.handle, shopAlone(PRICING_CLOSED), clock, cron);
    daemons.push({ daemon, cron });
    const fire = new Date('2026-03-02T03:00:00Z');
    clock.advanceTo(fire);
    cron.fire('plan 0 3 * * *', fire);
    clock.advance(DAY - 1);
    await expectIncidentAlertAtOnce(daemon, 'unchanged');
  });

  it('finds a job another process queued at its next look, long before a pool would look for itself', async () => {
    const cron = new FakeCron();
    daemons = [{ daemon: await startInProcess(database.handle, config(), clock, cron), cron }];
    clock.advance(10_000);
    await until(() => checks().length === 2, 'the first checks');
    const shopId = checks().find((c) => c.site === shop.origin)!.siteId;
    shop.serve('/robots.txt', 200, CLOSED);
    // Another process (a web process of its own, a replica) queues a check of the shop:
    // nothing in this one is told of it.
    const other = await startTestEngine(database.handle.executor);
    try {
      await other.send('check', [
        {
          id: crypto.randomUUID(),
          data: {
            siteId: shopId,
            periodStart: '2026-03-02T00:00:00.000Z',
            periodEnd: '2026-03-03T00:00:00.000Z',
          },
          startAfter: clock.now(),
        },
      ]);
      // The daemon looks every 5-10 s (the default lease's half, at most 10 s); its pools
      // look for themselves every 50-100 s. The clock moves on 5 s at a time, 35 s at most
      // (a margin below the pools' 50), half a second apart so that a look at work when the
      // clock moves sleeps again before the next move: only the daemon's look can find the job.
      for (let moved = 0; moved < 35_000 && checks().length < 3; moved += 5_000) {
        clock.advance(5_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await until(() => checks().length === 3, 'the check another process queued');
      expect(checks()[2]).toMatchObject({ site: shop.origin, kind: 'changed' });
    } finally {
      await other.stop();
    }
  });

  it('queues a period’s planning once, and the next period’s when its fire was missed', async () => {
    await startTwo();
    const [one] = daemons;
    const ticks = () => one!.daemon.heardOf('daemon:tick').length;
    const plans = () => one!.daemon.queued.filter((q) => q.queue === 'plan').map((q) => q.id);
    // Four upkeep rounds in the start's period: its planning was queued at the start, once.
    for (let round = 1; round <= 4; round++) {
      const before = ticks();
      await untilUpkeep(clock, () => ticks() !== before, 'an upkeep round');
    }
    expect(plans()).toHaveLength(1);
    // The next period begins and no fire comes (the process was busy, the database
    // away): the next round plans it all the same.
    const next = new Date('2026-03-02T03:00:00Z');
    clock.advanceTo(next);
    await untilUpkeep(
      clock,
      () => all('period:planned').some((p) => p.period.start.getTime() === next.getTime()),
      'the next period planned by the upkeep',
    );
    expect(plans()).toHaveLength(2);
  });

  it('skips a site whose check of an earlier period still waits', async () => {
    await startTwo();
    clock.advance(10_000);
    await until(() => checks().length === 2, 'the first checks');
    const first = new Set(checks());
    // Period one is planned, its checks due later in the period…
    const one = new Date('2026-03-02T03:00:00Z');
    clock.advanceTo(one);
    daemons[0]!.cron.fire('plan 0 3 * * *', one);
    await until(
      () => all('period:planned').some((p) => p.period.start.getTime() === one.getTime()),
      'period one',
    );
    // …and period two comes before any of them ran (a machine that cannot keep up).
    const two = new Date(one.getTime() + DAY);
    daemons[0]!.cron.fire('plan 0 3 * * *', two);
    await until(() => all('check:skipped').length === 1, 'the skip');
    expect(all('check:skipped')[0]!.sites.slice().sort()).toEqual(
      [news.origin, shop.origin].sort(),
    );
    // The waiting checks run first when their time comes: each site once.
    clock.advanceTo(new Date(two.getTime() + DAY - 1));
    await until(() => checks().length === 4, 'the waiting checks');
    expect(
      checks()
        .filter((c) => !first.has(c))
        .map((c) => c.site)
        .sort(),
    ).toEqual([news.origin, shop.origin].sort());
  });

  it('sends each recipient’s digest of a period once, whichever daemon’s fire wins', async () => {
    await startTwo();
    clock.advance(10_000);
    await until(() => checks().length === 2, 'the first checks');
    const fire = new Date('2026-03-09T08:00:00Z');
    clock.advanceTo(fire);
    for (const { cron } of daemons) cron.fire('digest', fire);
    await until(() => hook.received.some((h) => h.body.includes('"kind":"digest"')), 'the digest');
    const queued = all('digest:queued');
    expect(queued.filter((q) => q.digest !== null)).toHaveLength(1);
    await until(() => all('delivery:sent').length === 1, 'its delivery');
    // Both processes' fires were one job: one digest per recipient and period, sent once.
    expect(hook.received.filter((h) => h.body.includes('"kind":"digest"'))).toHaveLength(1);
  });

  it('prunes sent notifications once across the daemons, after the alert log keeps them', async () => {
    await startTwo('  alertLogDays: 7\n');
    await blockPricingNextPeriod();
    await until(() => all('delivery:sent').length === 1, 'the alert');
    // A week and a day on (notify.alertLogDays: 7): one process prunes it, as the hour's
    // upkeep job.
    clock.advance(8 * DAY);
    await until(
      () => all('upkeep:done').some((u) => u.task === 'prune' && u.pruned > 0),
      'the pruning',
    );
    const pruned = all('upkeep:done').filter((u) => u.task === 'prune' && u.pruned > 0);
    expect(pruned).toHaveLength(1);
    expect(pruned[0]).toMatchObject({ pruned: 1 });
  });

  it('refreshes the statistics half a minute after its start where the database keeps none', async () => {
    const daemon = await startOne(config());
    // The lines the daemon's log gets, as operators read them (docs/operations.md).
    const logged: string[] = [];
    const record = (_fields: object, message: string) => void logged.push(message);
    logDaemonEvents(daemon.daemon.events, { info: record, warn: record, error: record });
    // The upkeep round that queues it, on the test's clock (which moves 15 s at a time):
    // none before 30 s after the start (the cadence after it is unit/schedule/tick.test.ts's).
    const rounds = Array.from({ length: 40 }, (_, k) => {
      const at = new Date(START.getTime() + k * 15_000);
      return { at, id: upkeepJob('analyze', at).id };
    });
    const queued = () => rounds.find((r) => daemon.queued.some((q) => q.id === r.id));
    await untilUpkeep(clock, () => queued() !== undefined, 'the statistics job queued');
    const job = queued()!;
    expect(job.at.getTime() - START.getTime()).toBeGreaterThanOrEqual(30_000);
    const state = async () =>
      (
        await queryRows<{ state: string }>(
          database.handle.db,
          sql`SELECT state FROM pgboss.job WHERE id = ${job.id}::uuid`,
        )
      )[0]?.state;
    const deadline = Date.now() + 60_000;
    while ((await state()) !== 'completed') {
      if (Date.now() > deadline) throw new Error('the statistics job did not complete in a minute');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [server] = await queryRows<{ autovacuum: string }>(
      database.handle.db,
      kind === 'postgres'
        ? sql`SELECT current_setting('autovacuum') AS autovacuum`
        : sql`SELECT 'none' AS autovacuum`,
    );
    const analyzed = daemon
      .heardOf('upkeep:done')
      .filter((u) => u.task === 'analyze' || u.task === 'vacuum');
    // The embedded database has no autovacuum: the daemon analyzes it, and says so; a
    // PostgreSQL running with autovacuum off (as the workplace's does) too. Where the
    // server's autovacuum runs, it keeps the statistics: the daemon leaves them to it.
    const said = logged.filter((line) => line.includes('analyzed'));
    if (server!.autovacuum === 'on') expect([analyzed, said]).toEqual([[], []]);
    else {
      expect(analyzed).toHaveLength(1);
      expect(analyzed[0]).toMatchObject({
        task: 'analyze',
        database: kind === 'pglite' ? 'embedded' : 'postgres',
      });
      expect(said).toEqual([
        kind === 'pglite'
          ? 'embedded database analyzed'
          : 'database analyzed by robowatch: its PostgreSQL runs with autovacuum off',
      ]);
    }
  });

  it('keeps sent notifications, judges flaps and weighs coverage as the reloaded file says', async () => {
    const daemon = await startOne(config('  alertLogDays: 30\n'));
    await blockPricingNextPeriod();
    await until(() => daemon.heardOf('delivery:sent').length === 1, 'the alert');
    // SIGHUP: the alert log now keeps a week; relapses within a day reopen an incident;
    // a change alerts from 5 URLs and 2% of a sitemap's set.
    await daemon.reload(
      config('  alertLogDays: 7\n  flapWindow: 1d\n  coverage: {minUrls: 5, minShare: 0.02}\n'),
    );
    expect(daemon.check.flapWindowMs).toBe(DAY);
    expect(daemon.check.coverage?.thresholds).toEqual({ minUrls: 5, minShare: 0.02 });
    // A week and a day on, the hour's upkeep prunes the alert the start's 30 days kept.
    clock.advance(8 * DAY);
    await until(
      () => daemon.heardOf('upkeep:done').some((u) => u.task === 'prune' && u.pruned > 0),
      'the pruning',
    );
  });

  it('reopens the incident of a relapse within the flap window a reload lengthened', async () => {
    const daemon = await startOne(config()); // notify.flapWindow: 1h by default
    await blockPricingNextPeriod();
    await until(() => checks().length === 4, 'the checks that open the incident');
    /** The next day's checks, the shop serving `robots`. */
    const nextDay = async (robots: string) => {
      const done = checks().length;
      shop.serve('/robots.txt', 200, robots);
      const fire = new Date(clock.now().getTime() + 1);
      clock.advanceTo(fire);
      daemons[0]!.cron.fire('plan 0 3 * * *', fire);
      clock.advance(DAY - 1);
      await until(() => checks().length === done + 2, 'the day’s checks');
    };
    await nextDay(OPEN);
    const [resolved, ...others] = await listIncidents(database.handle.db, { limit: 5 });
    expect([resolved?.state, others]).toEqual(['resolved', []]);
    // SIGHUP: a relapse within three days of a resolution is the same incident.
    await daemon.reload(config('  flapWindow: 3d\n'));
    await nextDay(CLOSED);
    const incidents = await listIncidents(database.handle.db, { limit: 5 });
    expect(incidents.map((i) => [i.id, i.state])).toEqual([[resolved!.id, 'open']]);
  });

  it('loads the history of a site a reload adds once the reloaded file turns backfill.onAdd on', async () => {
    wayback.captures.set(new URL(news.origin).host, [
      { timestamp: '20240101000000', status: 200, body: OPEN },
    ]);
    const archive = `archive: {url: '${wayback.url}', requestsPerMinute: 0}\n`;
    const daemon = await startOne(shopAlone('', archive));
    await daemon.reload(config(`${archive}backfill: {onAdd: true}\n`));
    await until(() => daemon.heardOf('backfill:done').length === 1, 'the backfill');
    expect(daemon.heardOf('backfill:done')[0]!.outcome).toMatchObject({
      site: news.origin,
      fetched: 1,
    });
  });

  it('reminds of an open incident nobody acknowledged, once across the daemons, until someone does', async () => {
    await startTwo('  remind: 2h\n');
    await blockPricingNextPeriod();
    await until(() => all('delivery:sent').length === 1, 'the incident’s alert');
    const transitions = () =>
      hook.received.map(
        (h) => (JSON.parse(h.body) as { incident?: { transition: string } }).incident?.transition,
      );
    expect(transitions()).toEqual(['opened']);
    // Two hours on, nobody has acknowledged it: one reminder, from one of the two.
    clock.advance(2 * HOUR + 60_000);
    await until(() => all('delivery:sent').length === 2, 'the reminder');
    expect(transitions()).toEqual(['opened', 'reminder']);
    const reminded = all('upkeep:done').filter((u) => u.task === 'remind' && u.reminded > 0);
    expect(reminded).toHaveLength(1);
    // Acknowledged: the rounds after it remind no one.
    const [incident] = await listIncidents(database.handle.db, { limit: 1 });
    await acknowledgeIncident(database.handle.db, incident!.id, {
      note: 'rolled back',
      by: 'ana',
      at: clock.now(),
    });
    const acknowledged = clock.now().getTime();
    clock.advance(5 * HOUR);
    await until(
      () =>
        all('upkeep:done').some(
          (u) => u.task === 'remind' && u.at.getTime() >= acknowledged + 4 * HOUR,
        ),
      'a reminder round hours after the acknowledgment',
    );
    expect(all('upkeep:done').filter((u) => u.task === 'remind' && u.reminded > 0)).toHaveLength(1);
    expect(transitions()).toEqual(['opened', 'reminder']);
  });

  it('judges failing notifications by the notify.unhealthyAfterMs a reload sets', async () => {
    const daemon = await startOne(config('  unhealthyAfterMs: 3600000\n'));
    await blockPricingNextPeriod(() => (hook.status = 500));
    await until(() => daemon.heardOf('delivery:failed').length >= 1, 'a failed delivery');
    expect((await daemon.daemon.health()).deliveries.ok).toBe(true);
    // SIGHUP: a few seconds of failures are too many now, without a restart.
    await daemon.reload(config('  unhealthyAfterMs: 1000\n'));
    clock.advance(5_000);
    expect((await daemon.daemon.health()).deliveries.ok).toBe(false);
    await daemon.reload(config('  unhealthyAfterMs: 3600000\n'));
    expect((await daemon.daemon.health()).deliveries.ok).toBe(true);
  });

  it('spaces the retries of a failing notification as the reloaded notify.retry says', async () => {
    const retry = (base: number) =>
      config(`  retry: {baseDelayMs: ${base}, maxDelayMs: 86400000}\n`);
    const daemon = await startOne(retry(30_000));
    await blockPricingNextPeriod(() => (hook.status = 500));
    await until(() => daemon.heardOf('delivery:failed').length >= 1, 'a failed delivery');
    // SIGHUP: retries ten minutes apart, doubling; the next failure waits by that (the
    // clock stands still while it is handled).
    await daemon.reload(retry(600_000));
    clock.advance(HOUR);
    await until(() => daemon.heardOf('delivery:failed').length >= 2, 'the retry');
    const next = daemon.heardOf('delivery:failed')[1]!.retryAt;
    expect(next.getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(600_000);
  });

  it('sends a waiting email through the mail server and sender a reload names', async () => {
    const [down, up] = [new TestSmtpServer(), new TestSmtpServer()];
    await down.reservePort(); // refused: nothing listens there
    await up.start();
    const email = (port: number, from: string) =>
      config(
        `  email: {smtp: 'smtp://127.0.0.1:${port}', from: ${from}, to: [seo@shop.example]}\n`,
      );
    const emailFailures = () =>
      daemon.heardOf('delivery:failed').filter((f) => f.delivery.channel === 'email');
    const daemon = await startOne(email(down.port, 'robowatch@shop.example'));
    try {
      await blockPricingNextPeriod();
      await until(() => emailFailures().length === 1, 'the alert’s email failing');
      // SIGHUP without notify.email: the email waits, and its retry says why it fails.
      await daemon.reload(config());
      clock.advance(DAY);
      await until(() => emailFailures().length === 2, 'the retry');
      expect(emailFailures()[1]!.error).toBe(
        'email needs notify.email (the SMTP server to send from)',
      );
      // SIGHUP naming another server and sender: the next retry goes through them.
      await daemon.reload(email(up.port, 'alerts@shop.example'));
      clock.advance(DAY);
      await until(() => up.received.length === 1, 'the alert by email');
      expect(up.received[0]!.parsed.from?.address).toBe('alerts@shop.example');
      expect(up.received[0]!.envelopeTo).toEqual(['seo@shop.example']);
      expect(up.received[0]!.parsed.subject).toMatch(/pricing/);
    } finally {
      await up.stop();
    }
  });

  it('says on /healthz when notifications have failed for longer than allowed', async () => {
    await startTwo('  unhealthyAfterMs: 3600000\n');
    await blockPricingNextPeriod(() => (hook.status = 500));
    await until(() => all('delivery:failed').length >= 1, 'a failed delivery');
    const { daemon } = daemons[0]!;
    expect((await daemon.daemon.health()).deliveries.ok).toBe(true);
    // An hour and more of failures: unhealthy, saying which channel and why.
    clock.advance(2 * HOUR);
    await until(() => all('delivery:failed').length >= 2, 'the retries');
    const health = await daemon.daemon.health();
    expect(health.ok).toBe(false);
    expect(health.deliveries.problem).toMatch(
      /^webhook notifications have been failing since 2026-03-0\dT\d\d:\d\d:\d\d\.\d{3}Z: http:\/\/127\.0\.0\.1:\d+\/… answered 500$/,
    );
    // The receiver is back: the retry goes through, and it is healthy again.
    hook.status = 200;
    clock.advance(2 * HOUR);
    await until(() => all('delivery:sent').length === 1, 'the delivery');
    expect((await daemon.daemon.health()).deliveries.ok).toBe(true);
  });

  it('refreshes the AI crawler registry at its fire and uses what it serves', async () => {
    registry.serve(
      '/robots.json',
      200,
      readFileSync(fixturePath('registry/ai-robots.2026-02.json'), 'utf8'),
      { 'content-type': 'application/json' },
    );
    await startTwo(`registry: {url: '${registry.origin}/robots.json', refresh: '0 4 * * *'}\n`);
    // Fetched once at the start (by whichever process), recorded, and used by both.
    await until(() => all('registry:used').length === 2, 'the registry in use');
    const fetched = registry.requests.length;
    registry.serve(
      '/robots.json',
      200,
      readFileSync(new URL('../../../registry/ai-robots.json', import.meta.url), 'utf8'),
      { 'content-type': 'application/json' },
    );
    const fire = new Date('2026-03-02T04:00:00Z');
    clock.advanceTo(fire);
    for (const { cron } of daemons) cron.fire('registry', fire);
    await until(
      () =>
        all('registry:refreshed').some(
          (r) => r.outcome.kind === 'updated' && r.outcome.previous !== null,
        ),
      'the refresh',
    );
    // Both fires were one job: one fetch. The other process takes it at its next upkeep
    // round (one at work when the refresh landed read the registry before it).
    expect(registry.requests.length - fetched).toBe(1);
    await untilUpkeep(clock, () => all('registry:used').length === 4, 'the new registry in use');
    expect(all('registry:used').at(-1)!.version.agents).toBe(160);
  });

  it('loads a site’s history from the Internet Archive as a job, a slice at a time', async () => {
    wayback.captures.set(new URL(shop.origin).host, [
      { timestamp: '20240101000000', status: 200, body: OPEN },
      { timestamp: '20250101000000', status: 200, body: CLOSED },
    ]);
    await startTwo(`archive: {url: '${wayback.url}', requestsPerMinute: 0}\n`);
    // The shop is the configuration's first site: site 1.
    await daemons[0]!.daemon.daemon.queueBackfill({ siteId: 1 });
    await until(() => all('backfill:done').length === 1, 'the backfill');
    expect(all('backfill:done')[0]!.outcome).toMatchObject({
      site: shop.origin,
      fetched: 2,
      snapshots: 2,
      more: false,
    });
  });
});
