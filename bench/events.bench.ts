/**
 * The events feed at scale: `npm run bench:events`. BENCH_STATES changed states (1,000,000)
 * of 10,000 sites are seeded by SQL, each with its events as a changed check writes them (a
 * rule added: `rules_changed` and `newly_disallowed`); only the oldest 20 states of all had
 * an outage (`fetch_status_changed`), as in a fleet that rarely goes down. Then `GET /api/v1/events` is read as an
 * integration polls it, through the store's query (listEvents): the newest page (the
 * reference, in the same run), the newest page of a common type, of the rare one, of the
 * rare one for one site, and of any of two types. Prints p50/p95 in ms and each p50's
 * ratio to the reference.
 *
 * BENCH_DATABASES=postgres (or pglite) measures one of the two; PostgreSQL:
 * BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else
 * postgres://root@127.0.0.1:5432/postgres (a database robowatch_bench_events_PID is made
 * there for the run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { EventQuery } from '../src/monitor/records.js';
import { openDatabase } from '../src/store/db.js';
import type { DatabaseHandle } from '../src/store/db.js';
import { listEvents } from '../src/store/events.js';
import { benchPostgres } from './web-support.js';

const SITES = 10_000;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 30);
const RARE = 20;

/** `states` changed states of SITES sites, oldest first; the RARE oldest had an outage. */
async function seed({ db }: DatabaseHandle, states: number): Promise<void> {
  await db.execute(
    sql`INSERT INTO sites (origin) SELECT 'https://site-' || i || '.example.com' FROM generate_series(1, ${SITES}::int) i`,
  );
  const perSite = Math.ceil(states / SITES);
  for (let k = 1; k <= perSite; k++)
    await db.execute(sql`
      INSERT INTO snapshots (site_id, status, final_url, first_seen_at, file_condition, causes,
        events, event_types, check_count)
      SELECT s.id, 200, s.origin || '/robots.txt', now() - ${perSite - k}::int * interval '1 day',
        'robots', '[]'::jsonb, json_build_array(
          json_build_object('type', CASE WHEN r.rare THEN 'fetch_status_changed' ELSE 'rules_changed' END,
            'site', s.origin, 'agent', '*', 'added', json_build_array('Disallow: /private/' || ${k}::int)),
          json_build_object('type', 'newly_disallowed', 'site', s.origin,
            'url', s.origin || '/private/' || ${k}::int, 'agent', 'Googlebot',
            'cause', json_build_object('type', 'rule', 'directive', 'disallow', 'pattern', '/private/', 'line', 2))),
        CASE WHEN r.rare THEN ARRAY['fetch_status_changed', 'newly_disallowed']
          ELSE ARRAY['rules_changed', 'newly_disallowed'] END,
        1
      FROM sites s, LATERAL (SELECT ${(k - 1) * SITES}::int + s.id <= ${RARE}::int AS rare) r
      WHERE ${(k - 1) * SITES}::int + s.id <= ${states}::int
      ORDER BY s.id`);
  await db.execute(sql`ANALYZE`);
}

/** p50 and p95 of a query of the feed, in ms, after five warm-up runs; throws on no rows. */
async function time(handle: DatabaseHandle, query: EventQuery, expected: number) {
  const once = async () => {
    const started = performance.now();
    const rows = await listEvents(handle.db, query);
    const ms = performance.now() - started;
    if (rows.length !== expected)
      throw new Error(`${JSON.stringify(query)}: ${rows.length} events, not ${expected}`);
    return ms;
  };
  for (let i = 0; i < 5; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await once());
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { p50: at(0.5), p95: at(0.95) };
}

async function measure(name: string, handle: DatabaseHandle, states: number) {
  const started = performance.now();
  await seed(handle, states);
  console.error(
    `${name}: seeded ${states} states in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const page = 101; // the API's page of 100 and one more, as it asks
  const cases: [string, EventQuery, number][] = [
    ['reference: the newest page', { limit: page }, page],
    ['a common type (`newly_disallowed`)', { limit: page, types: ['newly_disallowed'] }, page],
    [
      `a rare type (\`fetch_status_changed\`: the ${RARE} oldest states)`,
      { limit: page, types: ['fetch_status_changed'] },
      RARE,
    ],
    [
      'the rare type for one site',
      { limit: page, siteId: RARE, types: ['fetch_status_changed'] },
      1,
    ],
    [
      'either of two rare types',
      { limit: page, types: ['fetch_status_changed', 'sitemaps_changed'] },
      RARE,
    ],
  ];
  const rows: string[] = [];
  let reference = 0;
  for (const [label, query, expected] of cases) {
    const t = await time(handle, query, expected);
    if (reference === 0) reference = t.p50;
    rows.push(
      `| ${name} | ${states.toLocaleString('en-US')} | ${label} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${(t.p50 / reference).toFixed(1)}× |`,
    );
  }
  return rows;
}

const rows: string[] = [];
const databases = (process.env['BENCH_DATABASES'] ?? 'pglite,postgres').split(',');
const states = (fallback: number) => Number(process.env['BENCH_STATES'] ?? fallback);

if (databases.includes('pglite')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'robowatch-bench-events-'));
  const pglite = await openDatabase({ url: undefined, dataDir });
  try {
    rows.push(...(await measure('PGlite', pglite, states(1_000_000))));
  } finally {
    await pglite.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (databases.includes('postgres')) {
  const bench = await benchPostgres('robowatch_bench_events');
  // A failed run drops its database too (a million states are half a gigabyte).
  try {
    const postgres = await openDatabase({ url: bench.url, dataDir: '' });
    try {
      rows.push(...(await measure('PostgreSQL', postgres, states(1_000_000))));
    } finally {
      await postgres.close();
    }
  } finally {
    await bench.drop();
  }
}

console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites; ${RUNS} reads each after 5 warm-up`,
);
console.log('| database | states | events feed page | p50 ms | p95 ms | p50 ÷ reference |');
console.log('|---|--:|---|--:|--:|--:|');
for (const row of rows) console.log(row);
