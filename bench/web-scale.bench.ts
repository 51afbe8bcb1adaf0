/**
 * The read side at scale: `npm run bench:web-scale`. One site is checked for real (the
 * loopback fetcher, engine and store) through a few versions of its file; then 100,000
 * more sites are added by SQL, each with a first state like it (a 200 and a 2-URL × 8-agent
 * verdict set) and 90 days of daily checks, and the real site gets ten years of hourly
 * checks (87,600); 200 sites are not as intended, each with an open incident of 200 cells,
 * after 100,000 resolved incidents of other sites (BENCH_RESOLVED). The web app then answers through `app.request()`, as `robowatch serve`
 * would: the overview (page 1 and a middle page), a page of `/api/v1/sites` (100 sites, by
 * cursor), the site page, and the pages that offer a site to choose (Incidents, the alert
 * log, the tester; and the Incidents page when what is typed names no site but is in
 * every site's address). The reference, in the same run on the same database, is
 * `/healthz`. Each page is timed in BENCH_ROUNDS rounds (3) of BENCH_RUNS requests (50);
 * prints the rounds' p50 in ms (min / median / max), the median p95, the CPU ms a request
 * (this process's, PGlite's included, and on PostgreSQL its backends'), the answer's size,
 * and the medians' ratios to the reference; on PGlite (on disk) and on PostgreSQL, each
 * vacuumed and analyzed as the daemon's upkeep does.
 *
 * BENCH_SITES shrinks the number of sites; PostgreSQL: BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else DATABASE_URL, else postgres://root@127.0.0.1:5432/postgres
 * (a database robowatch_bench_web_scale_PID is made there for the run). BENCH_KEEP=1 keeps
 * what was seeded (the database, PGlite's data directory) and prints where, to look into
 * its queries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { parseConfig } from '../src/config/validate.js';
import type { Config } from '../src/config/config.js';
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
import { intentReport } from '../src/policy/incidents.js';
import { FixtureServer } from '../test/support/fixture-server.js';
import { databaseCpu, median, spread } from './process-support.js';
import type { DatabaseCpu } from './process-support.js';
import { benchPostgres, timePage } from './web-support.js';
import type { Timing } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 100_000);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 50);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const HOURLY = 10 * 365 * 24;
/** Incidents resolved before the open ones (BENCH_RESOLVED). */
const RESOLVED = Number(process.env['BENCH_RESOLVED'] ?? 100_000);
/**
 * The sites not as intended: two pages of the overview, which lists them first (100 a
 * page), each with an open incident.
 */
const NOT_AS_INTENDED = { first: 101, last: 300 };
const NOW = new Date('2026-11-20T12:00:00Z');
const AGENTS = [
  'Googlebot',
  'Bingbot',
  'GPTBot',
  'ClaudeBot',
  'CCBot',
  'Google-Extended',
  'Applebot',
  '*',
];

function configFor(origin: string): Config {
  const others = Array.from(
    { length: SITES },
    (_, i) => `  - {url: 'https://site-${i + 1}.example.com', watch: [/, /pricing]}`,
  );
  return parseConfig(
    `agents: ${JSON.stringify(AGENTS)}
sites:
  - url: ${origin}
    watch: [/, /pricing]
${others.join('\n')}
fetch: {allowPrivateAddresses: true, confirmRetries: 0, timeoutMs: 3000}
`,
    { file: 'bench-web-scale.yaml', cwd: '/tmp', env: {}, version: 'bench' },
  );
}

/** The real site, checked through three versions of its file. */
async function recordRealSite(handle: DatabaseHandle, server: FixtureServer, config: Config) {
  const fetcher = createRobotsFetcher({
    userAgent: 'robowatch-bench',
    timeoutMs: 3_000,
    allowPrivateAddresses: true,
  });
  const clock = { now: new Date(NOW.getTime() - 3 * 86_400_000) };
  const deps: CheckDeps = {
    fetchRobots: (origin) => fetcher.fetchRobots(origin),
    store: createCheckStore(handle.db),
    now: () => clock.now,
    sleep: () => Promise.resolve(),
    confirmRetries: 0,
    confirmDelayMs: 0,
  };
  for (const body of [
    'User-agent: *\nDisallow: /x\n',
    'User-agent: *\nDisallow: /pricing\n',
    'User-agent: *\nDisallow:\n',
  ]) {
    server.serve('/robots.txt', 200, body);
    await checkSites(deps, [config.sites[0]!], { concurrency: 1 });
    clock.now = new Date(clock.now.getTime() + 86_400_000);
  }
  await fetcher.close();
}

/** The other sites, their first states, verdicts and 90 daily checks; the real site's ten years. */
async function seed(handle: DatabaseHandle, config: Config): Promise<void> {
  const { db } = handle;
  const origins = config.sites.slice(1).map((s) => s.origin);
  for (let i = 0; i < origins.length; i += 10_000) {
    const batch = origins.slice(i, i + 10_000);
    await db.execute(sql`INSERT INTO sites (origin) SELECT unnest(${sql.param(batch)}::text[])`);
  }
  // One snapshot per new site, like the real site's first (same body).
  await db.execute(sql`
    INSERT INTO snapshots (site_id, status, body_sha256, final_url, first_seen_at, file_condition, causes,
      check_count, last_checked_at)
    SELECT s.id, 200, f.body_sha256, s.origin || '/robots.txt', ${new Date(NOW.getTime() - 90 * 86_400_000).toISOString()}::timestamptz,
      'robots', '[]'::jsonb, 90, ${NOW.toISOString()}::timestamptz
    FROM sites s, (SELECT body_sha256 FROM snapshots ORDER BY id LIMIT 1) f
    WHERE s.current_snapshot_id IS NULL`);
  // Their standing, as the write path keeps it: served, robots.txt, /pricing blocked.
  await db.execute(sql`
    UPDATE sites s SET current_snapshot_id = n.id, current_status = 200, current_error = NULL,
      current_stale = false, current_file_condition = 'robots', blocking = true
    FROM snapshots n
    WHERE n.site_id = s.id AND s.current_snapshot_id IS NULL`);
  // Their verdicts as the store keeps them: / allowed and /pricing disallowed for each crawler.
  const cells = [...AGENTS.map(() => 1), ...AGENTS.map(() => 0)];
  const counts = JSON.stringify(
    [...AGENTS].sort().map((agent) => ({ agent, disallowed: 1, watched: 2 })),
  );
  await db.execute(sql`
    INSERT INTO verdict_sets (snapshot_id, urls, agents, profiles, causes, cells, counts)
    SELECT n.id, ARRAY[s.origin || '/', s.origin || '/pricing'], ${sql.param(AGENTS)}::text[],
      ${sql.param(AGENTS.map(() => 'google'))}::text[], '[]'::jsonb, ${sql.param(cells)}::int[],
      ${counts}::jsonb
    FROM snapshots n JOIN sites s ON s.id = n.site_id AND n.previous_id IS NULL AND n.check_count = 90`);
  await db.execute(sql`
    INSERT INTO checks (snapshot_id, checked_at, duration_ms)
    SELECT n.id, ${NOW.toISOString()}::timestamptz - d * interval '1 day', 40
    FROM snapshots n, generate_series(0, 89) AS d
    WHERE n.check_count = 90`);
  // Ten years of hourly checks of the real site's current state.
  await db.execute(sql`
    WITH cur AS (SELECT current_snapshot_id AS id FROM sites ORDER BY id LIMIT 1),
    added AS (
      INSERT INTO checks (snapshot_id, checked_at, duration_ms)
      SELECT cur.id, ${NOW.toISOString()}::timestamptz - h * interval '1 hour', 40
      FROM cur, generate_series(1, ${HOURLY}) AS h RETURNING snapshot_id)
    UPDATE snapshots SET check_count = check_count + (SELECT count(*) FROM added)
    WHERE id = (SELECT id FROM cur)`);
  // 200 sites not as intended (the overview lists them first), each with the
  // most cells a judgement keeps (200: 25 pages × 8 crawlers) and the phrase it writes
  // (what crawlers do against the intent), which a page lists them by.
  const violations = Array.from({ length: 25 }, (_, p) =>
    AGENTS.map((agent) => ({
      url: `https://site.example.com/p${p}`,
      agent,
      expected: 'allowed' as const,
      cause: { type: 'rule' as const, directive: 'disallow' as const, pattern: '/', line: 2 },
    })),
  ).flat();
  // As a judgement writes it.
  const report = intentReport({
    state: 'not-as-intended',
    violations,
    violationCount: violations.length,
    judged: 2 * AGENTS.length,
    reason: null,
  });
  await db.execute(sql`
    UPDATE sites SET intent_state = 'not-as-intended', intent_version = 1,
      intent_since = ${NOW.toISOString()}::timestamptz - interval '1 day',
      intent_report = ${JSON.stringify(report)}::jsonb
    WHERE id BETWEEN ${NOT_AS_INTENDED.first} AND ${NOT_AS_INTENDED.last}`);
  // Their incidents, open since yesterday, the cells as a judgement keeps them; before
  // them, RESOLVED incidents of other sites over the last 90 days (a fleet's years of
  // them), each with the 8 cells of one page.
  const causes = JSON.stringify(['`Disallow: /` (line 2) in the group for `*`']);
  await db.execute(sql`
    INSERT INTO incidents (site_id, state, opened_at, resolved_at, site_state, causes, violations,
      violation_count, worst_count, updated_at)
    SELECT ${NOT_AS_INTENDED.last + 1} + g % ${Math.max(1, SITES - NOT_AS_INTENDED.last)}, 'resolved',
      ${NOW.toISOString()}::timestamptz - interval '90 days' + g * interval '1 minute',
      ${NOW.toISOString()}::timestamptz - interval '90 days' + (g + 30) * interval '1 minute',
      'not-as-intended', ${causes}::jsonb, ${JSON.stringify(violations.slice(0, AGENTS.length))}::jsonb,
      ${AGENTS.length}, ${AGENTS.length}, ${NOW.toISOString()}::timestamptz
    FROM generate_series(1, ${RESOLVED}) AS g`);
  await db.execute(sql`
    INSERT INTO incidents (site_id, state, opened_at, site_state, causes, violations,
      violation_count, lead, worst_count, updated_at)
    SELECT id, 'open', ${NOW.toISOString()}::timestamptz - interval '1 day', 'not-as-intended',
      ${causes}::jsonb, ${JSON.stringify(violations)}::jsonb, ${violations.length},
      ${report.lead ?? null}, ${violations.length}, ${NOW.toISOString()}::timestamptz
    FROM sites WHERE id BETWEEN ${NOT_AS_INTENDED.first} AND ${NOT_AS_INTENDED.last} ORDER BY id`);
  // As a database that has run for 90 days is: vacuumed (by autovacuum, or daily by the
  // daemon's upkeep where it is off, as on the embedded one) as well as analyzed. Only
  // analyzed, the 90-day strip read each check's row from the table (9,000 pages for a
  // page of 100 sites) where the visibility map lets the index answer.
  await db.execute(sql`VACUUM ANALYZE`);
}

async function measure(
  name: string,
  handle: DatabaseHandle,
  server: FixtureServer,
  config: Config,
  /** The PostgreSQL backends of the database measured; PGlite runs in this process. */
  backends?: DatabaseCpu,
) {
  const started = performance.now();
  await recordRealSite(handle, server, config);
  await seed(handle, config);
  console.error(
    `${name}: seeded ${SITES + 1} sites in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const app = createApp({
    config,
    catalog: new SiteCatalog(createSiteDirectory(handle.db), config, () => NOW),
    store: createWebStore(handle.db),
    checkNow: () => Promise.reject(new Error('not in the benchmark')),
    previewDigests: () => Promise.resolve([]),
    metrics: createMetrics(),
    logger: silentLogger,
    now: () => NOW,
  });
  const middle = Math.floor(SITES / 200);
  // label, path, what the answer shows, target, status (200 unless said)
  const routes: [string, string, string, string, number?][] = [
    ['reference: `/healthz`', '/healthz', '"ok":true', ''],
    [
      'overview, page 1 (sites not as intended come first: 200 cells each)',
      '/',
      'are blocked for',
      '< 300 ms, < 150 KB',
    ],
    [`overview, page ${middle}`, `/?page=${middle}`, 'example.com', '< 300 ms, < 150 KB'],
    [
      'API: 100 sites (a middle page)',
      `/api/v1/sites?limit=100&after=${Math.floor(SITES / 2)}`,
      '"next"',
      '< 300 ms, < 150 KB',
    ],
    [
      'API: 100 sites not as intended',
      `/api/v1/sites?limit=100&after=${NOT_AS_INTENDED.first - 1}`,
      '"not-as-intended"',
      '< 300 ms, < 150 KB',
    ],
    ['site page (ten years of hourly checks)', '/sites/1', 'class="timeline"', '< 200 ms'],
    // Pages that offer a site to choose: typed past SITE_LIST_MAX sites, not listed.
    [
      `Incidents page (${NOT_AS_INTENDED.last - NOT_AS_INTENDED.first + 1} open of 200 cells, the newest 100 of ${RESOLVED.toLocaleString('en')} resolved)`,
      '/incidents',
      '200 open, 200 not acknowledged.',
      '< 300 ms',
    ],
    [
      'Incidents page, resolved, a middle page',
      `/incidents?state=resolved&before=${Math.floor(RESOLVED / 2)}`,
      '<h2>Resolved</h2>',
      '< 300 ms, < 150 KB',
    ],
    [
      'Incidents page, one site',
      `/incidents?site=${NOT_AS_INTENDED.first}`,
      '1 open, 1 not acknowledged.',
      '< 300 ms, < 150 KB',
    ],
    ['alert log', '/alerts', '<h1>Alert log</h1>', '< 300 ms, < 150 KB'],
    ['tester', '/tester', '<h1>Test a robots.txt</h1>', '< 300 ms, < 150 KB'],
    // A site typed that names none, held by every site's address: each is looked at.
    [
      'Incidents page, "example" typed (every site may be meant)',
      '/incidents?site=example',
      `and ${(SITES - 10).toLocaleString('en')} more`,
      '< 300 ms, < 150 KB',
      400,
    ],
  ];
  // Rounds of every page, one after another, so that a busy minute of the machine falls
  // on one round of each page rather than on every request of one.
  const timings = routes.map(() => [] as Timing[]);
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, [, path, shows, , status]] of routes.entries())
      timings[i]!.push(
        await timePage(app, path, shows, RUNS, 5, {
          ...(status === undefined ? {} : { status }),
          ...(backends === undefined ? {} : { backends }),
        }),
      );
  const medianOf = (ts: readonly Timing[], key: keyof Timing) => median(ts.map((t) => t[key]));
  const [reference] = timings;
  return routes.map(([label, , , target], i) => {
    const ts = timings[i]!;
    return `| ${name} | ${label} | ${spread(
      ts.map((t) => t.p50),
      1,
    )} | ${medianOf(ts, 'p95').toFixed(1)} | ${spread(
      ts.map((t) => t.cpuMs),
      1,
    )} | ${(ts[0]!.bytes / 1024).toFixed(1)} | ${(medianOf(ts, 'p50') / medianOf(reference!, 'p50')).toFixed(1)}× | ${(medianOf(ts, 'cpuMs') / medianOf(reference!, 'cpuMs')).toFixed(1)}× | ${target} |`;
  });
}

const server = await new FixtureServer().start();
const config = configFor(server.origin);
const rows: string[] = [];

// BENCH_DATABASES=postgres (or pglite) measures one of the two.
const databases = (process.env['BENCH_DATABASES'] ?? 'pglite,postgres').split(',');

if (databases.includes('pglite')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'robowatch-bench-web-scale-'));
  const pglite = await openDatabase({ url: undefined, dataDir });
  rows.push(...(await measure('PGlite', pglite, server, config)));
  await pglite.close();
  if (process.env['BENCH_KEEP'] === '1') console.error(`kept ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}

if (databases.includes('postgres')) {
  const bench = await benchPostgres('robowatch_bench_web_scale');
  const postgres = await openDatabase({ url: bench.url, dataDir: '' });
  rows.push(
    ...(await measure('PostgreSQL', postgres, server, config, await databaseCpu(bench.url))),
  );
  await postgres.close();
  if (process.env['BENCH_KEEP'] === '1') console.error(`kept ${bench.url}`);
  else await bench.drop();
}
await server.stop();

console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES + 1} sites (2 watched URLs × ${AGENTS.length} agents, 90 daily checks each), ` +
    `one with ten years of hourly checks (${HOURLY}); ${ROUNDS} rounds of ${RUNS} requests each after 5 warm-up; ` +
    'min / median / max of the rounds; CPU: this process (PGlite included) and, on PostgreSQL, its backends, a request',
);
console.log(
  '| database | page | p50 ms | p95 ms | CPU ms | KB | p50 ÷ reference | CPU ÷ reference | target |',
);
console.log('|---|---|--:|--:|--:|--:|--:|--:|--:|');
for (const row of rows) console.log(row);
