import { sql } from 'drizzle-orm';
import type { ChangeEvent } from '../policy/changes/events.js';
import type { FetchErrorKind } from '../policy/fetch-result.js';
import type { DayStates } from '../policy/history.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { plannedChecks } from './job-rows.js';
import type {
  CrawlerCounts,
  GroupCounts,
  SiteOverview,
  SiteStandings,
  StoredChange,
} from '../monitor/records.js';
import type { ChangeCause } from '../policy/changes/cause-model.js';
import { intentLead } from '../policy/incidents.js';
import type { SiteState, Violation, ViolationGrid } from '../policy/intent.js';
import type { FileCondition } from '../policy/file-condition.js';

const ids = (values: readonly number[]) => sql`${sql.param([...values])}::int[]`;

/** The overview of these sites: current state, last change, disallowed counts, next check. */
export async function loadOverview(
  db: Database,
  siteIds: readonly number[],
): Promise<SiteOverview[]> {
  if (siteIds.length === 0) return [];
  const rows = await queryRows<{
    id: number;
    origin: string;
    snapshot_id: number | string | null;
    status: number | null;
    error: string | null;
    stale: boolean | null;
    last_seen: string | Date | null;
    file_condition: string | null;
    refused_since: string | Date | null;
    refused_reason: string | null;
    intent_state: SiteState | null;
    intent_since: string | Date | null;
    violation_count: number | null;
    reason: string | null;
    lead: string | null;
    violations: Violation[] | null;
    grid: ViolationGrid | null;
  }>(
    db,
    sql`SELECT s.id, s.origin, n.id AS snapshot_id, n.status, n.error, n.stale,
        n.last_checked_at AS last_seen,
        g.file_condition, s.refused_since, s.refused_reason, s.intent_state, s.intent_since,
        (s.intent_report->>'violationCount')::int AS violation_count,
        s.intent_report->>'reason' AS reason,
        -- Not as intended: the phrase its judgement wrote, or (judged before it wrote one)
        -- its cells, 200 at most, to say it in one.
        s.intent_report->>'lead' AS lead,
        CASE WHEN s.intent_state = 'not-as-intended' AND s.intent_report->'lead' IS NULL
          THEN s.intent_report->'violations' END AS violations,
        CASE WHEN s.intent_state = 'not-as-intended' AND s.intent_report->'lead' IS NULL
          THEN s.intent_report->'grid' END AS grid
      FROM sites s LEFT JOIN snapshots n ON n.id = s.current_snapshot_id
        LEFT JOIN snapshots g ON g.id = n.last_good_id
      WHERE s.id = ANY(${ids(siteIds)})`,
  );
  // Each site's latest change: its last snapshot after the baseline that has causes (or,
  // recorded before causes were, change events).
  const changes = await queryRows<{
    site_id: number;
    snapshot_id: number | string;
    previous_id: number | string | null;
    first_seen_at: string | Date;
    causes: ChangeCause[] | null;
    events: ChangeEvent[] | null;
  }>(
    db,
    sql`SELECT DISTINCT ON (n.site_id) n.site_id, n.id AS snapshot_id, n.previous_id,
        n.first_seen_at, n.causes, CASE WHEN n.causes IS NULL THEN n.events END AS events
      FROM snapshots n
      WHERE n.site_id = ANY(${ids(siteIds)}) AND n.previous_id IS NOT NULL
        AND n.source = 'live'
        AND (jsonb_array_length(COALESCE(n.causes, '[]'::jsonb)) > 0
          OR (n.causes IS NULL AND n.events IS NOT NULL))
      ORDER BY n.site_id, n.id DESC`,
  );
  const current = rows.flatMap((r) => (r.snapshot_id === null ? [] : [Number(r.snapshot_id)]));
  const counts =
    current.length === 0
      ? []
      : (
          await queryRows<{
            snapshot_id: number | string;
            counts: { agent: string; disallowed: number; watched: number }[];
          }>(
            db,
            sql`SELECT snapshot_id, counts FROM verdict_sets
              WHERE snapshot_id = ANY(${sql.param(current)}::bigint[])`,
          )
        ).flatMap((r) => r.counts.map((c) => ({ ...c, snapshot_id: r.snapshot_id })));
  // Grouped once: a lookup per site, not a scan of every site's rows (10,000 sites).
  const countsBySnapshot = groupBy(counts, (c) => Number(c.snapshot_id));
  const lastChange = new Map<number, StoredChange>();
  for (const c of changes) {
    const id = Number(c.snapshot_id);
    lastChange.set(c.site_id, {
      snapshotId: id,
      previousId: c.previous_id === null ? null : Number(c.previous_id),
      at: new Date(c.first_seen_at),
      causes: c.causes,
      events: c.events ?? [],
    });
  }
  const planned = await plannedChecks(db, siteIds);
  return rows.map((r) => {
    const snapshotId = r.snapshot_id === null ? null : Number(r.snapshot_id);
    return {
      id: r.id,
      origin: r.origin,
      current:
        snapshotId === null
          ? null
          : {
              id: snapshotId,
              status: r.status,
              error: r.error as FetchErrorKind | null,
              stale: r.stale ?? false,
              lastSeen: new Date(r.last_seen ?? 0),
              fileCondition: r.file_condition as FileCondition | null,
            },
      lastChange: lastChange.get(r.id) ?? null,
      disallowed: (snapshotId === null ? [] : (countsBySnapshot.get(snapshotId) ?? [])).map(
        ({ agent, disallowed, watched }) => ({ agent, disallowed, watched }),
      ),
      nextDueAt: planned.get(r.id) ?? null,
      intent:
        r.intent_state === null
          ? null
          : {
              state: r.intent_state,
              since: r.intent_since === null ? null : new Date(r.intent_since),
              violationCount: r.violation_count ?? 0,
              reason: r.reason,
              lead:
                r.intent_state === 'as-intended'
                  ? null
                  : (r.lead ??
                    intentLead(
                      r.intent_state,
                      r.violations ?? [],
                      r.violation_count ?? 0,
                      r.reason ?? undefined,
                      r.grid ?? undefined,
                    )),
            },
      refused:
        r.refused_since === null
          ? null
          : { since: new Date(r.refused_since), reason: r.refused_reason ?? '' },
    };
  });
}

/**
 * For each site, the states its checks saw on each day (UTC) since `since`. Only the
 * snapshots that can have checks since then are read: those first seen since, and the
 * one current at `since` (a site's snapshots follow one another).
 */
export async function loadDailyStates(
  db: Database,
  siteIds: readonly number[],
  since: Date,
): Promise<Map<number, DayStates[]>> {
  const result = new Map<number, DayStates[]>();
  if (siteIds.length === 0) return result;
  const from = since.toISOString();
  const rows = await queryRows<{
    site_id: number;
    day: string;
    status: number | null;
    error: string | null;
    stale: boolean;
    checks: number;
  }>(
    db,
    sql`SELECT n.site_id, to_char(c.checked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
        n.status, n.error, n.stale, count(*)::int AS checks
      FROM snapshots n JOIN checks c ON c.snapshot_id = n.id AND c.checked_at >= ${from}::timestamptz
      WHERE n.site_id = ANY(${ids(siteIds)})
        AND (n.first_seen_at >= ${from}::timestamptz OR n.id IN (
          SELECT max(p.id) FROM snapshots p
          WHERE p.site_id = ANY(${ids(siteIds)}) AND p.first_seen_at < ${from}::timestamptz
            AND p.source = 'live'
          GROUP BY p.site_id))
      GROUP BY n.site_id, day, n.status, n.error, n.stale
      ORDER BY n.site_id, day`,
  );
  for (const row of rows) {
    let days = result.get(row.site_id);
    if (days === undefined) result.set(row.site_id, (days = []));
    let last = days[days.length - 1];
    if (last?.day !== row.day) days.push((last = { day: row.day, states: [] }));
    (last.states as DayStates['states'][number][]).push({
      status: row.status,
      error: row.error as FetchErrorKind | null,
      stale: row.stale,
      checks: row.checks,
    });
  }
  return result;
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

/**
 * Where every site stands, for the overview's counts, state filter and order. The
 * standing is kept in the sites table with each new state, and read grouped: one row per
 * distinct standing with its sites' ids (parsing 100,000 rows cost more than the query),
 * hashed by the server (the sites' standing statistics, migration 0026, tell its planner
 * how few standings there are: it sorted every site to group them) and sent as 4 bytes an
 * id in base64 (an array of 100,000 ids as text cost the page 20 ms to parse; as bytea,
 * PGlite's parser took 70 ms more than base64); the new blocks are
 * read through a partial index (snapshots.newly_blocked).
 */
export async function loadSiteStandings(db: Database, since: Date): Promise<SiteStandings> {
  const [rows, fresh] = await Promise.all([
    queryRows<{
      checked: boolean;
      status: number | null;
      error: string | null;
      stale: boolean | null;
      file_condition: string | null;
      blocking: boolean;
      intent_state: SiteState | null;
      refused: boolean;
      ids: string;
    }>(
      db,
      // The sites robowatch refuses to check come with the rest: a second scan of every
      // site for them cost PGlite 70 ms a page at 100,000 sites.
      sql`SELECT current_snapshot_id IS NOT NULL AS checked, current_status AS status,
          current_error AS error, current_stale AS stale,
          current_file_condition AS file_condition, blocking, intent_state,
          refused_since IS NOT NULL AS refused,
          encode(string_agg(int4send(id), ''::bytea), 'base64') AS ids
        FROM sites WHERE removed_at IS NULL
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
    ),
    queryRows<{ site_id: number }>(
      db,
      sql`SELECT DISTINCT site_id FROM snapshots
        WHERE newly_blocked AND first_seen_at >= ${since.toISOString()}::timestamptz
          AND previous_id IS NOT NULL AND source = 'live'`,
    ),
  ]);
  const groups = rows.map((r) => ({
    current: !r.checked
      ? null
      : {
          status: r.status,
          error: r.error as FetchErrorKind | null,
          stale: r.stale ?? false,
          fileCondition: r.file_condition as FileCondition | null,
        },
    blocking: r.blocking,
    intent: r.intent_state,
    ids: int4s(Buffer.from(r.ids, 'base64')),
  }));
  return {
    groups,
    newBlocks: new Set(fresh.map((r) => r.site_id)),
    refused: new Set(groups.flatMap((g, i) => (rows[i]!.refused ? g.ids : []))),
  };
}

/** The integers of `int4send`s joined (4 bytes each, most significant first). */
function int4s(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Array<number>(bytes.byteLength >>> 2);
  for (let i = 0; i < values.length; i++) values[i] = view.getInt32(i * 4);
  return values;
}

/**
 * Per watched crawler, over every watched site's current state: on how many sites it may
 * fetch no watched URL, some, or all (from the verdict counts kept with each state).
 */
export async function loadCrawlerCounts(db: Database): Promise<CrawlerCounts[]> {
  const rows = await queryRows<{ agent: string; all: number; some: number; none: number }>(
    db,
    sql`SELECT c->>'agent' AS agent,
        (count(*) FILTER (WHERE (c->>'disallowed')::int >= (c->>'watched')::int))::int AS "all",
        (count(*) FILTER (WHERE (c->>'disallowed')::int > 0
          AND (c->>'disallowed')::int < (c->>'watched')::int))::int AS some,
        (count(*) FILTER (WHERE (c->>'disallowed')::int = 0))::int AS none
      FROM sites s JOIN verdict_sets v ON v.snapshot_id = s.current_snapshot_id,
        jsonb_array_elements(v.counts) AS c
      WHERE s.removed_at IS NULL
      GROUP BY 1 ORDER BY 1`,
  );
  return rows.map((r) => ({ agent: r.agent, blocked: r.all, partly: r.some, allowed: r.none }));
}

/** One crawler's verdict counts on every watched site that watches it, by site id. */
export async function loadCrawlerVerdicts(
  db: Database,
  agent: string,
): Promise<Map<number, { disallowed: number; watched: number }>> {
  const rows = await queryRows<{ id: number; disallowed: number; watched: number }>(
    db,
    sql`SELECT s.id, (c->>'disallowed')::int AS disallowed, (c->>'watched')::int AS watched
      FROM sites s JOIN verdict_sets v ON v.snapshot_id = s.current_snapshot_id,
        jsonb_array_elements(v.counts) AS c
      WHERE s.removed_at IS NULL AND c->>'agent' = ${agent}`,
  );
  return new Map(rows.map((r) => [r.id, { disallowed: r.disallowed, watched: r.watched }]));
}

/**
 * For groups of crawlers (the AI registry's purposes and operators), on how many sites
 * every watched crawler of the group is blocked from every watched URL, some of them
 * from some, or none from any: sites that watch none of a group's crawlers are not
 * counted for it.
 */
export async function loadGroupCounts(
  db: Database,
  groups: readonly { readonly name: string; readonly agents: readonly string[] }[],
): Promise<GroupCounts[]> {
  const names = groups.flatMap((g) => g.agents.map(() => g.name));
  const agents = groups.flatMap((g) => g.agents.map((a) => a.toLowerCase()));
  if (agents.length === 0) return [];
  const rows = await queryRows<{ name: string; blocked: number; partly: number; allowed: number }>(
    db,
    sql`WITH member AS (
        SELECT * FROM unnest(${sql.param(agents)}::text[], ${sql.param(names)}::text[])
          AS m(agent, name)),
      per_site AS (
        SELECT s.id, m.name,
          bool_and((c->>'disallowed')::int >= (c->>'watched')::int) AS all_blocked,
          bool_and((c->>'disallowed')::int = 0) AS none_blocked
        FROM sites s JOIN verdict_sets v ON v.snapshot_id = s.current_snapshot_id,
          jsonb_array_elements(v.counts) AS c, member m
        WHERE s.removed_at IS NULL AND m.agent = lower(c->>'agent')
        GROUP BY s.id, m.name)
      SELECT name,
        (count(*) FILTER (WHERE all_blocked))::int AS blocked,
        (count(*) FILTER (WHERE NOT all_blocked AND NOT none_blocked))::int AS partly,
        (count(*) FILTER (WHERE none_blocked AND NOT all_blocked))::int AS allowed
      FROM per_site GROUP BY name`,
  );
  return rows;
}
