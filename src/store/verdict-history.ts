import { desc, eq, sql } from 'drizzle-orm';
import type { VerdictCause } from '../policy/verdicts.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { checks } from './schema.js';
import type { CheckSeen, VerdictAt } from '../monitor/records.js';

/**
 * The verdicts of one watched URL for one agent across a site's snapshots, oldest
 * first. Snapshots from before the URL or agent was watched have none. Each snapshot's
 * cell is picked out of its verdict set by the database.
 */
export async function loadVerdictHistory(
  db: Database,
  siteId: number,
  url: string,
  agent: string,
): Promise<VerdictAt[]> {
  const rows = await queryRows<{
    snapshot_id: number | string;
    first_seen_at: string | Date;
    cell: number;
    cause: VerdictCause | null;
    profile: string;
  }>(
    db,
    sql`SELECT x.snapshot_id, x.first_seen_at, x.cell, x.profile,
        CASE WHEN x.cell >> 1 = 0 THEN NULL ELSE x.causes -> ((x.cell >> 1) - 1) END AS cause
      FROM (
        SELECT n.id AS snapshot_id, n.source, n.first_seen_at, v.causes, v.profiles[a.j] AS profile,
          v.cells[(u.i - 1) * cardinality(v.agents) + a.j] AS cell
        FROM snapshots n JOIN verdict_sets v ON v.snapshot_id = n.id
          CROSS JOIN LATERAL (SELECT array_position(v.urls, ${url}::text) AS i) u
          CROSS JOIN LATERAL (SELECT array_position(v.agents, ${agent}::text) AS j) a
        WHERE n.site_id = ${siteId} AND u.i IS NOT NULL AND a.j IS NOT NULL) x
      WHERE x.cell >= 0
      ORDER BY x.source = 'live', x.snapshot_id`,
  );
  return rows.map((r) => ({
    snapshotId: Number(r.snapshot_id),
    firstSeen: new Date(r.first_seen_at),
    allowed: (r.cell & 1) === 1,
    cause: r.cause,
    profile: r.profile,
  }));
}

/** The checks that saw a snapshot, newest first: when, how long, any blip. */
export async function listChecks(
  db: Database,
  snapshotId: number,
  limit: number,
): Promise<CheckSeen[]> {
  return db
    .select({
      checkedAt: checks.checkedAt,
      durationMs: checks.durationMs,
      transient: checks.transient,
    })
    .from(checks)
    .where(eq(checks.snapshotId, snapshotId))
    .orderBy(desc(checks.checkedAt))
    .limit(limit);
}
