import { rejudge } from '../../src/monitor/check/rejudge.js';
import { renderDelivery } from '../../src/notify/render-delivery.js';
import { parseConfig } from '../../src/config/validate.js';
import type { Config } from '../../src/config/config.js';
import type { RobotsFetcher } from '../../src/fetch/robots-fetcher.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createMetrics } from '../../src/lib/metrics.js';
import type { Metrics } from '../../src/lib/metrics.js';
import type { CheckOutcome } from '../../src/monitor/check/site.js';
import { checkSites } from '../../src/monitor/check/batch.js';
import type { CheckDeps } from '../../src/monitor/ports.js';
import type { Database } from '../../src/store/db.js';
import {
  createCheckStore,
  createDaemonStore,
  createSiteDirectory,
  createWebStore,
} from '../../src/store/index.js';
import { SiteCatalog } from '../../src/monitor/sites/catalog.js';
import { prepareDigests } from '../../src/monitor/delivery/digests.js';
import { digestData, renderDigest } from '../../src/notify/render-digest.js';
import type { Digest } from '../../src/policy/digest.js';
import { linksFrom } from '../../src/policy/links.js';
import { checkManyWith } from '../../src/compose.js';
import { createApp } from '../../src/web/app.js';
import type { WebDeps } from '../../src/web/deps.js';
import type { FixtureServer } from './fixture-server.js';

/** A site's robots.txt through its life, as the web tests and the browser test see it. */
export const HISTORY = {
  v1: 'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /blog/\n',
  v2: 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n\nUser-agent: GPTBot\nDisallow: /blog/\n\nSitemap: https://example.com/sitemap.xml\n',
  /** Hostile content: markup and script URLs that must stay inert text everywhere. */
  xss:
    'User-agent: *\nDisallow: /private/\nDisallow: /pricing\nDisallow: /"><img src=x onerror=alert(1)>\n' +
    '# <script>alert("robots")</script>\nUser-agent: GPTBot\nDisallow: /blog/\nDisallow: /<script>alert(2)</script>\n\n' +
    'Sitemap: javascript:alert(3)\n',
} as const;

export const DAY_MS = 24 * 60 * 60 * 1000;
export const START = new Date('2026-03-01T03:00:00Z');

export function historyConfig(origin: string, extra = ''): Config {
  return parseConfig(
    `agents: [Googlebot, GPTBot]
sites:
  - url: ${origin}
    watch: [/, /pricing, /private/x, /blog/post]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
${extra}`,
    { file: 'web-test.yaml', cwd: '/tmp', env: {}, version: 'test' },
  );
}

/** What checks need, on a test's database, fetcher and clock: no waits, no retries. */
export function checkDepsOn(
  db: Database,
  fetcher: RobotsFetcher,
  clock: { readonly now: Date },
): CheckDeps {
  return {
    fetchRobots: (origin) => fetcher.fetchRobots(origin),
    store: createCheckStore(db),
    now: () => clock.now,
    sleep: () => Promise.resolve(),
    confirmRetries: 0,
    confirmDelayMs: 0,
  };
}

/**
 * Checks the site through its history, one check a day from START: v1, v2 (behind a
 * redirect), a 503, v2 again, then the hostile file. Returns the clock, advanced to the
 * last check, and the check dependencies for more.
 */
export async function buildHistory(
  db: Database,
  server: FixtureServer,
  fetcher: RobotsFetcher,
  config: Config,
): Promise<{ deps: CheckDeps; clock: { now: Date }; outcomes: CheckOutcome[] }> {
  const clock = { now: START };
  const deps = checkDepsOn(db, fetcher, clock);
  const outcomes: CheckOutcome[] = [];
  const check = async () => {
    await checkSites(deps, config.sites, { concurrency: 1, onOutcome: (o) => outcomes.push(o) });
    clock.now = new Date(clock.now.getTime() + DAY_MS);
  };
  server.serve('/robots.txt', 200, HISTORY.v1);
  await check();
  await check(); // seen again: one more check of the same snapshot
  server.serve('/robots.txt', 301, '', { location: '/moved/robots.txt' });
  server.serve('/moved/robots.txt', 200, HISTORY.v2);
  await check();
  server.serve('/robots.txt', 503, 'down');
  await check();
  server.serve('/robots.txt', 200, HISTORY.v2);
  await check();
  server.serve('/robots.txt', 200, HISTORY.xss);
  await check();
  clock.now = new Date(clock.now.getTime() - DAY_MS);
  return { deps, clock, outcomes };
}

/** The web app over a database, as `robowatch serve` builds it, with a clock the test sets. */
export function historyApp(
  db: Database,
  config: Config,
  deps: CheckDeps,
  clock: { now: Date },
  metrics: Metrics = createMetrics(),
  extra: Partial<Pick<WebDeps, 'tester' | 'sendTest' | 'accounts' | 'sso'>> = {},
) {
  const digests = {
    ...createDaemonStore(db).digests,
    renderDigest: (digest: Digest) => {
      const context = { links: linksFrom(''), timeZone: config.schedule.timezone };
      return { ...renderDigest(digest, context), data: digestData(digest, context) };
    },
    now: () => clock.now,
  };
  return createApp({
    config,
    catalog: new SiteCatalog(createSiteDirectory(db), config, () => clock.now),
    store: createWebStore(db),
    previewDigests: (period, recipient, only) =>
      prepareDigests(digests, config, period, {
        record: false,
        ...(recipient === undefined ? {} : { recipient }),
        ...(only === undefined ? {} : { only }),
      }),
    sendDigests: (period, recipient) =>
      prepareDigests(digests, config, period, {
        record: true,
        ...(recipient === undefined ? {} : { recipient }),
      }),
    checkNow: async (site) => {
      let outcome: CheckOutcome | undefined;
      await checkSites(deps, [site], { concurrency: 1, onOutcome: (o) => (outcome = o) });
      metrics.observeCheck({
        access: outcome!.status.access,
        durationMs: outcome!.durationMs,
        eventTypes: outcome!.events.map((e) => e.type),
      });
      return outcome!;
    },
    checkMany: checkManyWith(
      deps,
      config.fetch.concurrency,
      metrics,
      silentLogger,
      () => undefined,
    ),
    rejudge: (site) => rejudge(deps, site),
    renderDelivery: (delivery, createdAt) =>
      renderDelivery(
        { ...delivery, createdAt },
        { links: linksFrom(''), timeZone: config.schedule.timezone },
        (id) => createWebStore(db).loadDigest(id),
      ),
    metrics,
    logger: silentLogger,
    now: () => clock.now,
    ...extra,
  });
}
