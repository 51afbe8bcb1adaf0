import { StateMovedError } from '../lib/errors.js';
import { and, eq, sql } from 'drizzle-orm';
import type { WatchVerdict } from '../policy/verdicts.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { insertAlerts } from './outbox.js';
import { bodies, sites, verdictSets } from './schema.js';
import { decodeVerdicts, encodeVerdicts } from './verdict-sets.js';
import type { CheckRow, NewSnapshot } from '../monitor/records.js';

/**
 * Records checks that saw their site's state again: one small row each, the most
 * frequent write of all. Rows are written by group commit: a check's promise resolves
 * once its row is committed; while one insert is in flight the next rows wait, and the
 * following insert takes them all at once. Under load the batches form by themselves,
 * with no timer and nothing held back: a row is never acknowledged before it is stored.
 */
export class CheckWriter {
  readonly #db: Database;
  #queue: { row: CheckRow; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #draining = false;

  constructor(db: Database) {
    this.#db = db;
  }

  record(row: CheckRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ row, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, 1000);
      try {
        await insertChecks(
          this.#db,
          batch.map((b) => b.row),
        );
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.#draining = false;
  }
}

/**
 * Inserts check rows as one statement with one array parameter per column, and counts
 * them on their snapshots (how many checks saw each state, and when last) in the same
 * statement.
 */
async function insertChecks(
  db: Pick<Database, 'execute'>,
  rows: readonly CheckRow[],
): Promise<void> {
  await db.execute(sql`
    WITH added AS (
      INSERT INTO checks (snapshot_id, checked_at, duration_ms, transient)
      SELECT * FROM unnest(
        ${sql.param(rows.map((r) => r.snapshotId))}::bigint[],
        ${sql.param(rows.map((r) => r.checkedAt.toISOString()))}::timestamptz[],
        ${sql.param(rows.map((r) => r.durationMs))}::integer[],
        ${sql.param(rows.map((r) => r.transient))}::text[])
      RETURNING snapshot_id, checked_at)
    UPDATE snapshots AS s SET check_count = s.check_count + a.n,
      last_checked_at = GREATEST(s.last_checked_at, a.last)
    FROM (SELECT snapshot_id, count(*)::int AS n, max(checked_at) AS last FROM added GROUP BY 1) AS a
    WHERE s.id = a.snapshot_id`);
}

/**
 * Records a new state: its body (stored once by hash), the snapshot, its verdicts, its
 * change events, the check that saw it, and the site's pointer to it, in one statement
 * (one round trip, atomic); with alerts, in a transaction with them (each with its
 * delivery job when this process runs the job engine). Returns the new snapshot's id.
 *
 * The site's row is the guard: the state is recorded only on top of the one it was
 * compared with, so two checks of a site at once cannot both record (and alert) the
 * same change; the loser records nothing and gets StateMovedError (its check is retried).
 */
export async function recordSnapshot(
  db: Database,
  snapshot: NewSnapshot,
  queueDeliveries = false,
): Promise<number> {
  if (snapshot.alerts.length === 0) return insertSnapshot(db, snapshot);
  return db.transaction(async (tx) => {
    const id = await insertSnapshot(tx, snapshot);
    await insertAlerts(
      tx,
      snapshot.alerts,
      { siteId: snapshot.siteId, snapshotId: id, previousId: snapshot.previousId },
      snapshot.check.checkedAt,
      queueDeliveries,
    );
    return id;
  });
}

async function insertSnapshot(
  db: Pick<Database, 'execute'>,
  snapshot: NewSnapshot,
): Promise<number> {
  const { body, cut, check } = snapshot;
  const set = snapshot.verdicts.length === 0 ? null : encodeVerdicts(snapshot.verdicts);
  const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;
  const at = (date: Date | null) => sql`${date === null ? null : date.toISOString()}::timestamptz`;
  // Data-modifying CTEs see none of each other's rows; the foreign keys are checked at
  // the end of the statement, when the snapshot is there.
  const rows = await queryRows<{ id: string | number }>(
    db,
    sql`
      WITH fresh AS (SELECT nextval(pg_get_serial_sequence('snapshots', 'id')) AS id),
      guard AS (
        UPDATE sites SET current_snapshot_id = (SELECT id FROM fresh),
          verdicts_key = ${snapshot.verdictsKey}, unreachable_since = ${at(snapshot.unreachableSince)}
        WHERE id = ${snapshot.siteId}
          AND current_snapshot_id IS NOT DISTINCT FROM ${snapshot.previousId}::bigint
        RETURNING id),
      stored_body AS (
        INSERT INTO bodies (sha256, content, size)
        SELECT ${body?.sha256 ?? null}::text, ${body === null ? null : Buffer.from(body.bytes)}::bytea,
          ${body?.bytes.length ?? 0}::int
        FROM guard WHERE ${body !== null}
        ON CONFLICT (sha256) DO NOTHING),
      stored_snapshot AS (
        INSERT INTO snapshots (id, site_id, previous_id, status, error,
          error_detail, body_sha256, truncated, dropped_bytes, dropped_line_breaks,
          dropped_complete, redirects, final_url, stale, last_good_id, first_seen_at,
          file_condition, causes, check_count, last_checked_at)
        OVERRIDING SYSTEM VALUE
        SELECT fresh.id, ${snapshot.siteId}, ${snapshot.previousId}::bigint, ${snapshot.status}::int,
          ${snapshot.error}::text, ${snapshot.errorDetail}::text, ${body?.sha256 ?? null}::text,
          ${cut !== null}, ${cut?.droppedBytes ?? null}::int, ${cut?.droppedLineBreaks ?? null}::int,
          ${cut?.complete ?? null}::boolean, ${json(snapshot.redirects)}, ${snapshot.finalUrl},
          ${snapshot.stale}, ${body !== null ? sql`fresh.id` : sql`${snapshot.lastGoodId}::bigint`},
          ${at(snapshot.firstSeenAt)}, ${snapshot.fileCondition}::text, ${json(snapshot.causes)},
          1, ${at(check.checkedAt)}
        FROM fresh, guard),
      stored_verdicts AS (
        INSERT INTO verdict_sets (snapshot_id, urls, agents, profiles, causes, cells, counts)
        SELECT fresh.id, ${sql.param(set?.urls ?? [])}::text[], ${sql.param(set?.agents ?? [])}::text[],
          ${sql.param(set?.profiles ?? [])}::text[], ${json(set?.causes ?? [])},
          ${sql.param(set?.cells ?? [])}::int[], ${json(set?.counts ?? [])}
        FROM fresh, guard WHERE ${set !== null}),
      stored_events AS (
        INSERT INTO change_events (site_id, snapshot_id, type, event, created_at)
        SELECT ${snapshot.siteId}, fresh.id, e.type, e.event, ${at(check.checkedAt)}
        FROM fresh, guard, unnest(${sql.param(snapshot.events.map((e) => e.type))}::text[],
          ${sql.param(snapshot.events.map((e) => JSON.stringify(e)))}::jsonb[]) AS e(type, event)),
      stored_check AS (
        INSERT INTO checks (snapshot_id, checked_at, duration_ms, transient)
        SELECT fresh.id, ${at(check.checkedAt)}, ${check.durationMs}::int, ${check.transient}::text
        FROM fresh, guard)
      SELECT fresh.id FROM fresh, guard`,
  );
  const [row] = rows;
  if (row === undefined) throw new StateMovedError(snapshot.siteId);
  return Number(row.id);
}

/** Replaces a snapshot's verdicts after the watches or agents changed (no events: the file did not). */
export async function replaceVerdicts(
  db: Database,
  siteId: number,
  snapshotId: number,
  rows: readonly WatchVerdict[],
  verdictsKey: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(verdictSets).where(eq(verdictSets.snapshotId, snapshotId));
    await insertVerdicts(tx, snapshotId, rows);
    await tx
      .update(sites)
      .set({ verdictsKey })
      .where(and(eq(sites.id, siteId), eq(sites.currentSnapshotId, snapshotId)));
  });
}

/** Stores a snapshot's verdicts as one compact row (store/verdict-sets.ts). */
async function insertVerdicts(
  tx: Pick<Database, 'insert'>,
  snapshotId: number,
  rows: readonly WatchVerdict[],
) {
  if (rows.length === 0) return;
  await tx.insert(verdictSets).values({ snapshotId, ...encodeVerdicts(rows) });
}

/** A snapshot's verdicts. */
export async function loadVerdicts(db: Database, snapshotId: number): Promise<WatchVerdict[]> {
  const [set] = await db
    .select({
      urls: verdictSets.urls,
      agents: verdictSets.agents,
      profiles: verdictSets.profiles,
      causes: verdictSets.causes,
      cells: verdictSets.cells,
    })
    .from(verdictSets)
    .where(eq(verdictSets.snapshotId, snapshotId));
  return set === undefined ? [] : decodeVerdicts(set);
}

/** A stored body by its hash. */
export async function loadBody(db: Database, sha256: string): Promise<Uint8Array> {
  const [row] = await db
    .select({ content: bodies.content })
    .from(bodies)
    .where(eq(bodies.sha256, sha256));
  if (row === undefined) throw new Error(`body ${sha256} is missing from the store`);
  return row.content;
}

/** When any site's check last completed, in any process; null before the first. */
export async function lastCheckAt(db: Database): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`SELECT max(checked_at) AS at FROM checks`,
  );
  return row?.at ? new Date(row.at) : null;
}
