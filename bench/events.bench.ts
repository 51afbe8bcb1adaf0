/**
 * The events feed and the alert log at scale: `npm run bench:events`. BENCH_STATES changed states (1,000,000)
 * of 10,000 sites are seeded by SQL, each with its events as a changed check writes them (a
 * rule added: `rules_changed` and `newly_disallowed`); only the oldest 20 states of all had
 * an outage (`fetch_status_changed`), as in a fleet that rarely goes down. Then `GET /api/v1/events` is read as an
 * integration polls it, through the store's query (listEvents): the newest page (the
 * reference, in the same run), the newest page of a common type, of the rare one, of the
 * rare one for one site, and of any of two types. The alert log's outbox gets 90 days of
 * BENCH_NOTIFICATIONS notifications (100,000) of the same sites, each an email and a
 * webhook, every hundredth failing; its pages are read as the web UI reads them
 * (listAlertLog): the newest, one further back, one site's, the failing ones, and one
 * notification by its id. Prints p50/p95 in ms and each p50's ratio to the reference.
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
import { listAlertLog } from '../src/store/alert-log.js';
import type { AlertLogQuery } from '../src/monitor/records.js';
import { benchPostgres } from './web-support.js';

const SITES = 10_000;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 30);
const RARE = 20;
const NOTIFICATIONS = Number(process.env['BENCH_NOTIFICATIONS'] ?? 100_000);

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
  const notifications = NOTIFICATIONS;
  await db.execute(sql`
    INSERT INTO outbox (key, channel, destination, payload, site_id, created_at,
      next_attempt_at, attempts, sent_at, last_error)
    SELECT 'n' || a || '-' || c, CASE c WHEN 1 THEN 'email' ELSE 'webhook' END,
      CASE c WHEN 1 THEN 'seo@example.com' ELSE 'https://hooks.example.com/robowatch' END,
      jsonb_build_object('kind', 'alert', 'site', s.origin, 'format', CASE c WHEN 2 THEN 'slack' END,
        'events', (SELECT jsonb_agg(jsonb_build_object('type', 'newly_disallowed', 'site', s.origin,
          'url', s.origin || '/private/' || j, 'agent', 'Googlebot')) FROM generate_series(1, 8) j)),
      s.id, t.at, t.at, CASE WHEN a % 100 = 0 THEN 3 ELSE 1 END,
      CASE WHEN a % 100 = 0 THEN NULL ELSE t.at END,
      CASE WHEN a % 100 = 0 THEN 'hooks.example.com answered 500' END
    FROM generate_series(1, ${notifications}::int) a, generate_series(1, 2) c,
      LATERAL (SELECT now() - (${notifications}::int - a) * (interval '90 days' / ${notifications}::int) AS at) t,
      LATERAL (SELECT id, origin FROM sites WHERE id = a % ${SITES}::int + 1) s
    ORDER BY a, c`);
  await db.execute(sql`ANALYZE`);
}

/** p50 and p95 of a read of the alert log, in ms, after five warm-up runs. */
async function timeLog(handle: DatabaseHandle, query: AlertLogQuery, expected: number) {
  return timeRead(async () => {
    const entries = await listAlertLog(handle.db, query);
    if (entries.length !== expected)
      throw new Error(`${JSON.stringify(query)}: ${entries.length} entries, not ${expected}`);
  });
}

/** p50 and p95 of a query of the feed, in ms, after five warm-up runs. */
async function time(handle: DatabaseHandle, query: EventQuery, expected: number) {
  return timeRead(async () => {
    const rows = await listEvents(handle.db, query);
    if (rows.length !== expected)
      throw new Error(`${JSON.stringify(query)}: ${rows.length} events, not ${expected}`);
  });
}

/** p50 and p95 of a read, in ms, after five warm-up runs; the read throws on a wrong answer. */
async function timeRead(read: () => Promise<void>) {
  const once = async () => {
    const started = performance.now();
    await read();
    return performance.now() - started;
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
  const row = (label: string, t: { p50: number; p95: number }) => {
    if (reference === 0) reference = t.p50;
    rows.push(
      `| ${name} | ${label} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${(t.p50 / reference).toFixed(1)}× |`,
    );
  };
  for (const [label, query, expected] of cases)
    row(`events feed: ${label}`, await time(handle, query, expected));
  // The alert log: 51 entries a page (the UI's 50 and one more, as it asks).
  const [newest] = await listAlertLog(handle.db, { limit: 1 });
  const back = newest!.id - 20_000;
  const [failing] = await listAlertLog(handle.db, { state: 'failed', limit: 1 });
  const log: [string, AlertLogQuery, number][] = [
    ['alert log: the newest page', { limit: 51 }, 51],
    ['alert log: a page 10,000 notifications back', { limit: 51, before: back }, 51],
    [
      'alert log: one site',
      { limit: 51, siteId: 7 },
      Math.min(51, Math.floor((NOTIFICATIONS - 6) / SITES) + 1),
    ],
    ['alert log: the failing notifications', { limit: 51, state: 'failed' }, 51],
    ['alert log: one notification (its page)', { limit: 1, id: failing!.id }, 1],
  ];
  for (const [label, query, expected] of log) row(label, await timeLog(handle, query, expected));
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
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites, ${states(1_000_000).toLocaleString('en-US')} changed states, ${NOTIFICATIONS.toLocaleString('en-US')} notifications; ${RUNS} reads each after 5 warm-up`,
);
console.log('| database | read | p50 ms | p95 ms | p50 ÷ reference |');
console.log('|---|---|--:|--:|--:|');
for (const row of rows) console.log(row);
