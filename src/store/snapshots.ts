import { StateMovedError } from '../lib/errors.js';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { WatchVerdict } from '../policy/verdicts.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { insertAlerts } from './outbox.js';
import { bodies, changeEvents, checks, sites, snapshots, verdictSets } from './schema.js';
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
 * Records a new state in one transaction: its body (stored once by hash), the snapshot,
 * its verdicts, its change events, its alerts (each with its delivery job when this
 * process runs the job engine), the check that saw it, and the site's pointer to it.
 * Returns the new snapshot's id.
 */
export async function recordSnapshot(
  db: Database,
  snapshot: NewSnapshot,
  queueDeliveries = false,
): Promise<number> {
  return db.transaction(async (tx) => {
    // The site's row, locked first: a state is recorded only on top of the one it was
    // compared with, so two checks of a site at once cannot both record (and alert) the
    // same change. The loser's transaction rolls back; its check is retried.
    const [locked] = await tx
      .update(sites)
      .set({ currentSnapshotId: sites.currentSnapshotId })
      .where(
        and(
          eq(sites.id, snapshot.siteId),
          snapshot.previousId === null
            ? isNull(sites.currentSnapshotId)
            : eq(sites.currentSnapshotId, snapshot.previousId),
        ),
      )
      .returning({ id: sites.id });
    if (locked === undefined) throw new StateMovedError(snapshot.siteId);
    if (snapshot.body !== null) {
      await tx
        .insert(bodies)
        .values({
          sha256: snapshot.body.sha256,
          content: snapshot.body.bytes,
          size: snapshot.body.bytes.length,
        })
        .onConflictDoNothing({ target: bodies.sha256 });
    }
    const [row] = await tx
      .insert(snapshots)
      .values({
        siteId: snapshot.siteId,
        previousId: snapshot.previousId,
        status: snapshot.status,
        error: snapshot.error,
        errorDetail: snapshot.errorDetail,
        bodySha256: snapshot.body?.sha256 ?? null,
        truncated: snapshot.cut !== null,
        droppedBytes: snapshot.cut?.droppedBytes ?? null,
        droppedLineBreaks: snapshot.cut?.droppedLineBreaks ?? null,
        droppedComplete: snapshot.cut?.complete ?? null,
        redirects: [...snapshot.redirects],
        finalUrl: snapshot.finalUrl,
        stale: snapshot.stale,
        lastGoodId: snapshot.lastGoodId,
        firstSeenAt: snapshot.firstSeenAt,
        fileCondition: snapshot.fileCondition,
        causes: [...snapshot.causes],
      })
      .returning({ id: snapshots.id });
    const id = row!.id;
    if (snapshot.body !== null)
      await tx.update(snapshots).set({ lastGoodId: id }).where(eq(snapshots.id, id));
    await insertVerdicts(tx, id, snapshot.verdicts);
    if (snapshot.events.length > 0) {
      await tx.insert(changeEvents).values(
        snapshot.events.map((event) => ({
          siteId: snapshot.siteId,
          snapshotId: id,
          type: event.type,
          event,
          createdAt: snapshot.check.checkedAt,
        })),
      );
    }
    await insertAlerts(
      tx,
      snapshot.alerts,
      { siteId: snapshot.siteId, snapshotId: id, previousId: snapshot.previousId },
      snapshot.check.checkedAt,
      queueDeliveries,
    );
    await tx.insert(checks).values({ ...snapshot.check, snapshotId: id });
    await tx
      .update(snapshots)
      .set({ checkCount: 1, lastCheckedAt: snapshot.check.checkedAt })
      .where(eq(snapshots.id, id));
    await tx
      .update(sites)
      .set({
        currentSnapshotId: id,
        verdictsKey: snapshot.verdictsKey,
        unreachableSince: snapshot.unreachableSince,
      })
      .where(eq(sites.id, snapshot.siteId));
    return id;
  });
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
