/**
 * History benchmark, the parts that exist so far: `npm run bench:history`.
 * 1. `robowatch sites import` of a 100,000-line Tranco-style list, against a bare INSERT
 *    of the same 100,000 rows in one statement (the reference, same run).
 * 2. `robowatch export --what verdicts --format parquet` of 10 million verdict rows (50,000
 *    snapshots × 10 URLs × 20 crawlers, written straight into the database), against a
 *    bare read of the same verdict sets page by page (the reference, same run): time and
 *    peak RSS (target: under 300 MB).
 * 3. `robowatch trends` over the same history.
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else
 * postgres://root@127.0.0.1:5432/postgres; a database robowatch_history_bench is (re)created.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fmt, runRobowatch } from './process-support.js';
import { benchPostgres } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 100_000);
const SNAPSHOTS = Number(process.env['BENCH_SNAPSHOTS'] ?? 50_000);
const URLS = 10;
const CRAWLERS = 20;
const bench = await benchPostgres('robowatch_history_bench');
const dir = mkdtempSync(join(tmpdir(), 'robowatch-history-'));
const config = join(dir, 'robowatch.yaml');
writeFileSync(config, `watch: [/]\nagents: ['@search', '*']\nsitemaps: off\nsites: []\n`);

async function run(args: string[]) {
  const started = performance.now();
  const child = runRobowatch([...args, '--config', config], bench.url);
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
const exported = await run(['export', '--what', 'verdicts', '--format', 'parquet', '-o', parquet]);
const trends = await run(['trends', '--by', 'agent', '--json']);

console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${fmt(SITES)} sites imported, ${fmt(rows)} verdict rows (${fmt(SNAPSHOTS)} snapshots × ${URLS} URLs × ${CRAWLERS} crawlers), PostgreSQL`,
);
console.log('| measurement | value | reference (same run) | target |');
console.log('|---|--:|--:|--:|');
console.log(
  `| \`robowatch sites import\` of ${fmt(SITES)} lines | ${imported.seconds.toFixed(1)} s (${fmt(SITES / imported.seconds)} sites/s), peak RSS ${fmt(imported.peakMb)} MB | bare INSERT of the rows: ${bareInsert.toFixed(1)} s (${(imported.seconds / bareInsert).toFixed(1)}×) | one command |`,
);
console.log(
  `| \`robowatch export --what verdicts --format parquet\` | ${exported.seconds.toFixed(1)} s (${fmt(rows / exported.seconds)} rows/s), peak RSS ${fmt(exported.peakMb)} MB, ${fmt(statSync(parquet).size / 1024 / 1024)} MB file | bare read of the verdict sets: ${bareRead.toFixed(1)} s (${(exported.seconds / bareRead).toFixed(1)}×) | RSS < 300 MB |`,
);
console.log(
  `| \`robowatch trends --by agent\` over ${fmt(SNAPSHOTS)} states of ${fmt(Math.min(SITES, SNAPSHOTS))} sites | ${trends.seconds.toFixed(1)} s, peak RSS ${fmt(trends.peakMb)} MB | | seconds |`,
);
console.log(`(populating the history took ${populated.toFixed(1)} s)`);
await bench.drop();
