/**
 * Web benchmark: `npm run bench:web`. One site with ten years of daily checks (3,650) and
 * 500 snapshots, recorded by the real check pipeline (loopback HTTP, the real fetcher,
 * engine and store) into PGlite (on disk, the default) and into PostgreSQL. Then the web
 * app renders its pages server-side through `app.request()`, as `robowatch serve` would,
 * without the socket: the site page, the latest diff, a diff across the ten years, the
 * verdict history of one (URL, agent), the overview. The reference, measured in the same
 * run on the same database, is `/healthz` (one `SELECT 1` and a small JSON answer).
 * Prints p50 and p95 in milliseconds and the ratio of each p50 to the reference's.
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else
 * postgres://root@127.0.0.1:5432/postgres; a database robowatch_bench_web_PID is made for the run
 * there. BENCH_DAYS and BENCH_SNAPSHOTS shrink the history for a quick run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/validate.js';
import { createRobotsFetcher } from '../src/fetch/robots-fetcher.js';
import { silentLogger } from '../src/lib/logger.js';
import { createMetrics } from '../src/lib/metrics.js';
import { checkSites } from '../src/monitor/check/batch.js';
import type { CheckDeps } from '../src/monitor/ports.js';
import { openDatabase } from '../src/store/db.js';
import type { DatabaseHandle } from '../src/store/db.js';
import { createCheckStore, createSiteDirectory, createWebStore } from '../src/store/index.js';
import { SiteCatalog } from '../src/monitor/sites/catalog.js';
import { createApp } from '../src/web/app.js';
import { FixtureServer } from '../test/support/fixture-server.js';
import { benchPostgres, timePage } from './web-support.js';
import type { Timing } from './web-support.js';

const DAYS = Number(process.env['BENCH_DAYS'] ?? 3_650);
const SNAPSHOTS = Number(process.env['BENCH_SNAPSHOTS'] ?? 500);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 100);
const DAY_MS = 24 * 60 * 60 * 1000;
const START = new Date('2016-11-21T03:00:00Z');
const WATCHES = [
  '/',
  '/pricing',
  '/search/about',
  '/blog/2026/hello',
  '/private/x',
  '/sites/dell/',
  '/ajax/follow_info',
  '/products/1?sessionid=abc',
  '/about',
  '/contact',
  '/campaign-7/landing',
  '/campaign-300/landing',
  '/news',
  '/news/tech',
  '/json/feed',
  '/preview/a',
  '/author/following/x',
  '/login',
  '/docs/manual.pdf',
  '/sitemap.xml',
];
const AGENTS = [
  'Googlebot',
  'Bingbot',
  'GPTBot',
  'ClaudeBot',
  'CCBot',
  'Google-Extended',
  'googlebot-news',
  '*',
];

/**
 * The file's versions: a real 9 KB, 312-line robots.txt (forbes.com), then each version
 * adds a campaign rule somewhere (dropping the oldest past 40), every tenth toggles
 * `Disallow: /pricing` for everyone (verdict flips), and every 25th is a 503 outage.
 */
function versions(count: number): { status: number; body: string }[] {
  const base = readFileSync(
    fileURLToPath(new URL('../test/fixtures/realworld/protego/www.forbes.com', import.meta.url)),
    'utf8',
  ).split('\n');
  const campaigns: number[] = [];
  const out: { status: number; body: string }[] = [];
  for (let k = 0; k < count; k++) {
    if (k % 25 === 12) {
      out.push({ status: 503, body: 'Service Unavailable' });
      continue;
    }
    if (k > 0) campaigns.push(k);
    if (campaigns.length > 40) campaigns.shift();
    const lines = [...base];
    for (const c of campaigns)
      lines.splice(1 + ((c * 37) % (base.length - 2)), 0, `Disallow: /campaign-${c}/`);
    if (Math.floor(k / 10) % 2 === 1) lines.splice(1, 0, 'Disallow: /pricing');
    out.push({ status: 200, body: lines.join('\n') });
  }
  return out;
}

const config = (origin: string) =>
  parseConfig(
    `agents: ${JSON.stringify(AGENTS)}
sites:
  - url: ${origin}
    watch: ${JSON.stringify(WATCHES)}
fetch: {allowPrivateAddresses: true, confirmRetries: 0, timeoutMs: 3000}
`,
    { file: 'bench-web.yaml', cwd: '/tmp', env: {}, version: 'bench' },
  );

/** Checks the site once a day for DAYS days, changing the file SNAPSHOTS times. */
async function record(handle: DatabaseHandle, server: FixtureServer): Promise<number> {
  const fetcher = createRobotsFetcher({
    userAgent: 'robowatch-bench',
    timeoutMs: 3_000,
    allowPrivateAddresses: true,
  });
  const clock = { now: START };
  const deps: CheckDeps = {
    fetchRobots: (origin) => fetcher.fetchRobots(origin),
    store: createCheckStore(handle.db),
    now: () => clock.now,
    sleep: () => Promise.resolve(),
    confirmRetries: 0,
    confirmDelayMs: 0,
  };
  const sites = config(server.origin).sites;
  const files = versions(SNAPSHOTS);
  const started = performance.now();
  let served = -1;
  for (let day = 0; day < DAYS; day++) {
    // Version k is first served on day ⌈k·DAYS/SNAPSHOTS⌉: SNAPSHOTS changes spread evenly.
    const version = Math.floor((day * SNAPSHOTS) / DAYS);
    if (version !== served) {
      const { status, body } = files[version]!;
      server.serve('/robots.txt', status, body);
      served = version;
    }
    const summary = await checkSites(deps, sites, { concurrency: 1 });
    if (summary.failures.length > 0) throw new Error(`day ${day}: ${summary.failures[0]!.reason}`);
    clock.now = new Date(clock.now.getTime() + DAY_MS);
  }
  await fetcher.close();
  return (performance.now() - started) / DAYS;
}

async function measure(
  name: string,
  handle: DatabaseHandle,
  server: FixtureServer,
): Promise<string[]> {
  const perCheck = await record(handle, server);
  const store = createWebStore(handle.db);
  const site = await store.findSite(server.origin);
  const snapshots = await store.listSnapshots(site!.id, 100_000);
  const checks = snapshots.reduce((sum, s) => sum + s.checks, 0);
  const configured = config(server.origin);
  const app = createApp({
    config: configured,
    catalog: new SiteCatalog(createSiteDirectory(handle.db), configured, () => new Date()),
    store,
    checkNow: () => Promise.reject(new Error('not in the benchmark')),
    previewDigests: () => Promise.resolve([]),
    metrics: createMetrics(),
    logger: silentLogger,
    now: () => new Date(START.getTime() + DAYS * DAY_MS),
  });
  const oldest = snapshots[snapshots.length - 1]!.id;
  const newest = snapshots[0]!.id;
  const id = site!.id;
  // [label, path, a text the answer must show: the page really did its work]
  const routes: [string, string, string][] = [
    ['reference: `/healthz`', '/healthz', '"ok":true'],
    ['site page', `/sites/${id}`, 'class="timeline"'],
    ['diff page, latest change', `/sites/${id}/diff`, 'What changes'],
    [
      'diff page, first → last snapshot',
      `/sites/${id}/diff?from=${oldest}&to=${newest}`,
      'class="add"',
    ],
    [
      'verdict history, /pricing for Googlebot',
      `/sites/${id}/verdicts?url=${encodeURIComponent(`${server.origin}/pricing`)}&agent=Googlebot`,
      'Now ',
    ],
    ['overview', '/', server.origin],
    ['API: snapshots (first page)', `/api/v1/sites/${id}/snapshots`, '"snapshots"'],
  ];
  const timings: Timing[] = [];
  for (const [, path, shows] of routes) timings.push(await timePage(app, path, shows, RUNS, 10));
  const reference = timings[0]!.p50;
  const ms = (n: number) => n.toFixed(1);
  const rows = routes.map(([label], i) => {
    const { p50, p95 } = timings[i]!;
    const target = label.startsWith('site page') || label.startsWith('diff page') ? '< 200 ms' : '';
    const ratio = i === 0 ? '1×' : `${(p50 / reference).toFixed(1)}×`;
    return `| ${name} | ${label} | ${ms(p50)} | ${ms(p95)} | ${ratio} | ${target} |`;
  });
  console.error(
    `${name}: ${snapshots.length} snapshots, ${checks} checks recorded at ${ms(perCheck)} ms a check`,
  );
  return rows;
}

const server = await new FixtureServer().start();
const rows: string[] = [];

const dataDir = mkdtempSync(join(tmpdir(), 'robowatch-bench-web-'));
const pglite = await openDatabase({ url: undefined, dataDir });
rows.push(...(await measure('PGlite', pglite, server)));
await pglite.close();
rmSync(dataDir, { recursive: true, force: true });

const bench = await benchPostgres('robowatch_bench_web');
const postgres = await openDatabase({ url: bench.url, dataDir: '' });
rows.push(...(await measure('PostgreSQL', postgres, server)));
await postgres.close();
await bench.drop();
await server.stop();

console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, one site: ${DAYS} daily checks, ` +
    `${SNAPSHOTS} snapshots of a 9 KB file, ${WATCHES.length} watched URLs × ${AGENTS.length} agents; ` +
    `${RUNS} requests each after 10 warm-up`,
);
console.log('| database | page | p50 ms | p95 ms | p50 ÷ reference | target |');
console.log('|---|---|--:|--:|--:|--:|');
for (const row of rows) console.log(row);
