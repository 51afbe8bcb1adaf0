/**
 * History benchmark: `npm run bench:history`.
 * 1. `robowatch sites import` of a 100,000-line Tranco-style list, against a bare INSERT
 *    of the same 100,000 rows in one statement (the reference, same run).
 * 2. `robowatch export --what verdicts --format parquet` of 10 million verdict rows (50,000
 *    snapshots × 10 URLs × 20 crawlers, written straight into the database), against a
 *    bare read of the same verdict sets page by page (the reference, same run): time and
 *    peak RSS (target: under 300 MB).
 * 3. `robowatch trends` over the same history.
 * 4. `robowatch backfill` of 1,000 sites × 100 captures each from a loopback Wayback
 *    Machine (CDX listing and raw captures) with the rate limit off, against bare GETs of
 *    the same captures from the same server (the reference, same run): captures per
 *    second, and where the time goes (listing, reading, storing, making the snapshots).
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else
 * postgres://root@127.0.0.1:5432/postgres; a database robowatch_history_bench_PID is made for the run.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { fmt, runRobowatch, scratchDir } from './process-support.js';
import { benchPostgres } from './web-support.js';
import { WaybackServer } from '../test/support/wayback-server.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 100_000);
const SNAPSHOTS = Number(process.env['BENCH_SNAPSHOTS'] ?? 50_000);
const URLS = 10;
const CRAWLERS = 20;
/** Trends: each site's states over 8 years, and the crawlers they count. */
const TREND_STATES = 16;
const TREND_AGENTS = 8;
const trendAgents = `ARRAY[${Array.from({ length: TREND_AGENTS }, (_, i) => `'Bot${i}'`).join(',')}]`;
const trendProfiles = `ARRAY[${Array.from({ length: TREND_AGENTS }, () => `'google'`).join(',')}]`;
const monthsSince2018 = () => {
  const now = new Date();
  return (now.getUTCFullYear() - 2018) * 12 + now.getUTCMonth() + 1;
};
const BACKFILL_SITES = Number(process.env['BENCH_BACKFILL_SITES'] ?? 1_000);
const CAPTURES = Number(process.env['BENCH_CAPTURES'] ?? 100);
/** BENCH_ONLY=backfill: that part alone. */
const ONLY = process.env['BENCH_ONLY'];
const wayback = await new WaybackServer().start();
const bench = await benchPostgres('robowatch_history_bench');
const dir = scratchDir('robowatch-history-');
const config = join(dir, 'robowatch.yaml');
writeFileSync(
  config,
  `watch: [/]\nagents: ['@search', '*']\nsitemaps: off\nsites: []\n` +
    `archive: {url: ${wayback.url}, requestsPerMinute: 0}\nfetch: {allowPrivateAddresses: true}\n`,
);

async function run(args: string[], onStdout?: (text: string) => void) {
  const started = performance.now();
  const child = runRobowatch([...args, '--config', config], bench.url, undefined, onStdout);
  const { code, peakMb } = await child.exited;
  if (code !== 0) throw new Error(`robowatch ${args.join(' ')} exited ${code}`);
  return { seconds: (performance.now() - started) / 1000, peakMb };
}

async function sql<T = unknown>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: bench.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

await run(['migrate']);

/** Parts 1 to 3: import, export, trends. */
async function historyParts(): Promise<void> {
  // 1. Import 100,000 domains, and the same rows inserted bare into a scratch table.
  const list = join(dir, 'tranco.csv');
  writeFileSync(
    list,
    Array.from({ length: SITES }, (_, i) => `${i + 1},site-${i + 1}.example`).join('\n') + '\n',
  );
  await sql('CREATE TABLE scratch (origin text PRIMARY KEY, settings jsonb)');
  let started = performance.now();
  await sql(
    `INSERT INTO scratch SELECT 'https://site-' || n || '.example', jsonb_build_object('rank', n, 'watch', jsonb_build_array('/'))
     FROM generate_series(1, $1::int) AS n`,
    [SITES],
  );
  const bareInsert = (performance.now() - started) / 1000;
  const imported = await run(['sites', 'import', list]);

  // 2. 10 million verdict rows: snapshots of the imported sites, each with a verdict set.
  started = performance.now();
  const urls = `ARRAY[${Array.from({ length: URLS }, (_, i) => `'https://x.example/p${i}'`).join(',')}]`;
  const agents = `ARRAY[${Array.from({ length: CRAWLERS }, (_, i) => `'Bot${i}'`).join(',')}]`;
  const profiles = `ARRAY[${Array.from({ length: CRAWLERS }, () => `'google'`).join(',')}]`;
  await sql(
    `INSERT INTO snapshots (site_id, status, final_url, first_seen_at, last_checked_at, check_count, causes)
     SELECT ((n - 1) % $2::int) + 1, 200, 'https://x.example/robots.txt', now() - (n || ' minutes')::interval, now(), 1, '[]'::jsonb
     FROM generate_series(1, $1::int) AS n`,
    [SNAPSHOTS, SITES],
  );
  await sql(
    `INSERT INTO verdict_sets (snapshot_id, urls, agents, profiles, causes, cells, counts)
     SELECT id, ${urls}, ${agents}, ${profiles},
       '[{"type":"rule","directive":"disallow","pattern":"/p1","line":3}]'::jsonb,
       (SELECT array_agg(CASE WHEN c % 7 = 0 THEN 2 ELSE 1 END) FROM generate_series(1, ${URLS * CRAWLERS}) AS c),
       (SELECT jsonb_agg(jsonb_build_object('agent', 'Bot' || i, 'disallowed', i % 3, 'watched', ${URLS}))
        FROM generate_series(0, ${CRAWLERS - 1}) AS i)
     FROM snapshots`,
  );
  const populated = (performance.now() - started) / 1000;
  const rows = SNAPSHOTS * URLS * CRAWLERS;

  // The reference: the same verdict sets read page by page, every cell visited.
  started = performance.now();
  {
    const client = new pg.Client({ connectionString: bench.url });
    await client.connect();
    let after = 0;
    let cells = 0;
    for (;;) {
      const page = (
        await client.query<{ snapshot_id: string; cells: number[] }>(
          'SELECT snapshot_id, cells FROM verdict_sets WHERE snapshot_id > $1 ORDER BY snapshot_id LIMIT 500',
          [after],
        )
      ).rows;
      for (const r of page) cells += r.cells.length;
      if (page.length < 500) break;
      after = Number(page[page.length - 1]!.snapshot_id);
    }
    await client.end();
    if (cells !== rows) throw new Error(`read ${cells} cells, expected ${rows}`);
  }
  const bareRead = (performance.now() - started) / 1000;
  const parquet = join(dir, 'verdicts.parquet');
  const exported = await run([
    'export',
    '--what',
    'verdicts',
    '--format',
    'parquet',
    '-o',
    parquet,
  ]);
  // 3. Trends over 100,000 sites × 8 years: 16 states each, every six months since 2018
  //    (one in eight unreachable), 8 crawlers, each blocked on some sites and not others.
  started = performance.now();
  await sql(
    `WITH added AS (
       INSERT INTO snapshots (site_id, status, final_url, first_seen_at, last_checked_at, check_count, causes, source)
       SELECT n, CASE WHEN k % 8 = 7 THEN 503 ELSE 200 END, 'https://x.example/robots.txt',
         timestamptz '2018-01-01' + (k * 6 || ' months')::interval + (n % 170 || ' days')::interval,
         timestamptz '2018-01-01' + (k * 6 || ' months')::interval + (n % 170 || ' days')::interval,
         1, '[]'::jsonb, 'archive'
       FROM generate_series(1, $1::int) AS n, generate_series(0, ${TREND_STATES - 1}) AS k
       RETURNING id, site_id)
     INSERT INTO verdict_sets (snapshot_id, urls, agents, profiles, causes, cells, counts)
     SELECT id, ARRAY['https://x.example/'], ${trendAgents}, ${trendProfiles}, '[]'::jsonb,
       ARRAY[${Array.from({ length: TREND_AGENTS }, () => '1').join(',')}],
       (SELECT jsonb_agg(jsonb_build_object('agent', 'Bot' || i,
          'disallowed', CASE WHEN (site_id + id + i) % 4 = 0 THEN 2 WHEN (site_id + i) % 4 = 1 THEN 1 ELSE 0 END,
          'watched', 2)) FROM generate_series(0, ${TREND_AGENTS - 1}) AS i)
     FROM added`,
    [SITES],
  );
  const trendPopulated = (performance.now() - started) / 1000;
  await sql('ANALYZE');
  // The reference: the same states and counts read bare, a page of 1,000 sites at a time.
  started = performance.now();
  {
    const client = new pg.Client({ connectionString: bench.url });
    await client.connect();
    let states = 0;
    for (let first = 1; first <= SITES; first += 1000) {
      const page = await client.query<{ counts: unknown }>(
        `SELECT s.site_id, s.first_seen_at, s.status, v.counts FROM snapshots s
           LEFT JOIN verdict_sets v ON v.snapshot_id = s.id
         WHERE s.site_id BETWEEN $1 AND $2 ORDER BY s.site_id, s.id`,
        [first, first + 999],
      );
      states += page.rows.length;
    }
    await client.end();
    if (states !== SITES * TREND_STATES + SNAPSHOTS)
      throw new Error(`read ${states} states, expected ${SITES * TREND_STATES + SNAPSHOTS}`);
  }
  const bareTrends = (performance.now() - started) / 1000;
  const trends = await run(['trends', '--by', 'agent', '--json']);

  report(
    `| \`robowatch sites import\` of ${fmt(SITES)} lines | ${imported.seconds.toFixed(1)} s (${fmt(SITES / imported.seconds)} sites/s), peak RSS ${fmt(imported.peakMb)} MB | bare INSERT of the rows: ${bareInsert.toFixed(1)} s (${(imported.seconds / bareInsert).toFixed(1)}×) | one command |`,
    `| \`robowatch export --what verdicts --format parquet\` of ${fmt(rows)} rows | ${exported.seconds.toFixed(1)} s (${fmt(rows / exported.seconds)} rows/s), peak RSS ${fmt(exported.peakMb)} MB, ${fmt(statSync(parquet).size / 1024 / 1024)} MB file | bare read of the verdict sets: ${bareRead.toFixed(1)} s (${(exported.seconds / bareRead).toFixed(1)}×) | RSS < 300 MB |`,
    `| \`robowatch trends --by agent\` over ${fmt(SITES)} sites × 8 years (${fmt(SITES * TREND_STATES + SNAPSHOTS)} states, ${TREND_AGENTS} crawlers, ${monthsSince2018()} months) | ${trends.seconds.toFixed(1)} s, peak RSS ${fmt(trends.peakMb)} MB | bare read of the states and their counts: ${bareTrends.toFixed(1)} s (${(trends.seconds / bareTrends).toFixed(1)}×) | seconds |`,
  );
  console.log(
    `(populating the history took ${populated.toFixed(1)} s, the trends' ${trendPopulated.toFixed(1)} s)`,
  );
}

const results: string[] = [];
const report = (...lines: string[]) => {
  results.push(...lines);
  for (const line of lines) console.log(line);
};
if (ONLY !== 'backfill') await historyParts();

// 4. Backfill: 1,000 sites of their own (no history yet) × 100 captures each.
{
  const list = join(dir, 'backfill.csv');
  writeFileSync(
    list,
    Array.from({ length: BACKFILL_SITES }, (_, i) => `https://backfill-${i + 1}.example`).join(
      '\n',
    ) + '\n',
  );
  await run(['sites', 'import', list]);
}

for (let n = 1; n <= BACKFILL_SITES; n++)
  wayback.captures.set(
    `backfill-${n}.example`,
    Array.from({ length: CAPTURES }, (_, k) => {
      const day = new Date(Date.UTC(2016, 0, 1) + k * 29 * 86_400_000);
      return {
        timestamp: day.toISOString().replace(/\D/g, '').slice(0, 14),
        // One capture in 20 an outage; the rest a file that changes each time.
        status: k % 20 === 19 ? 503 : 200,
        body:
          k % 20 === 19
            ? 'busy'
            : `User-agent: *\nDisallow: /private/\nDisallow: /v${k}/\n\nUser-agent: GPTBot\n${k % 3 === 0 ? 'Disallow: /\n' : 'Allow: /\n'}\nSitemap: https://backfill-${n}.example/sitemap.xml\n`,
      };
    }),
  );
const captures = BACKFILL_SITES * CAPTURES;
// The reference: the same captures fetched bare, one at a time, from the same server.
const startedGets = performance.now();
{
  const agent = new Agent({ connections: 1 });
  for (let n = 1; n <= BACKFILL_SITES; n++)
    for (const c of wayback.captures.get(`backfill-${n}.example`)!) {
      const response = await request(
        `${wayback.url}/web/${c.timestamp}id_/http://backfill-${n}.example:80/robots.txt`,
        { dispatcher: agent },
      );
      await response.body.arrayBuffer();
    }
  await agent.close();
}
const bareGets = (performance.now() - startedGets) / 1000;
const time = { list: 0, read: 0, store: 0, chain: 0 };
let buffered = '';
let snapshots = 0;
const origins = Array.from(
  { length: BACKFILL_SITES },
  (_, i) => `https://backfill-${i + 1}.example`,
);
const backfilled = await run(['backfill', '--json', ...origins], (text) => {
  buffered += text;
  const lines = buffered.split('\n');
  buffered = lines.pop()!;
  for (const line of lines) {
    const outcome = JSON.parse(line) as { snapshots: number; timings: typeof time };
    snapshots += outcome.snapshots;
    for (const k of Object.keys(time) as (keyof typeof time)[]) time[k] += outcome.timings[k];
  }
});
const stored = await sql<{ n: string }>('SELECT count(*) AS n FROM archive_captures');
if (Number(stored[0]!.n) !== captures)
  throw new Error(`stored ${stored[0]!.n} captures, expected ${captures}`);
const again = await run(['backfill', ...origins]);
const spent = time.list + time.read + time.store + time.chain;
const share = (ms: number) => `${((ms / spent) * 100).toFixed(0)}%`;
report(
  `| \`robowatch backfill\` of ${fmt(BACKFILL_SITES)} sites × ${CAPTURES} captures | ${backfilled.seconds.toFixed(1)} s (${fmt(captures / backfilled.seconds)} captures/s; ${fmt(snapshots)} archived snapshots), peak RSS ${fmt(backfilled.peakMb)} MB; listing ${share(time.list)}, reading ${share(time.read)}, storing ${share(time.store)}, making the snapshots ${share(time.chain)} | bare GETs of the captures: ${bareGets.toFixed(1)} s (${(backfilled.seconds / bareGets).toFixed(1)}×) | captures/s |`,
  `| the same again (nothing new to read) | ${again.seconds.toFixed(1)} s | | reads nothing |`,
);

console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}, PostgreSQL`);
console.log('| measurement | value | reference (same run) | target |');
console.log('|---|--:|--:|--:|');
for (const line of results) console.log(line);
await wayback.stop();
await bench.drop();
