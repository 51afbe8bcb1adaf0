/**
 * The Internet Archive's captures of each site's robots.txt (archive_captures) and the
 * archived snapshots made from them (snapshots with source `archive`). A capture is
 * written as soon as it is read, so that an interrupted backfill goes on where it
 * stopped; a site's archived chain is written whole, in one transaction, from all its
 * captures (it lives apart from the live chain: the site's current state never moves).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type {
  ArchivedCapture,
  ArchivedState,
  ArchiveSummary,
  NewCapture,
} from '../monitor/records-archive.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { archiveCaptures, bodies, verdictSets } from './schema.js';
import { encodeVerdicts } from '../policy/verdict-sets.js';
import { verdictSetRow } from './snapshots.js';

/** The capture times of a site already read (a backfill fetches none of them again). */
export async function storedCaptureTimes(db: Database, siteId: number): Promise<Set<string>> {
  const rows = await db
    .select({ timestamp: archiveCaptures.timestamp })
    .from(archiveCaptures)
    .where(eq(archiveCaptures.siteId, siteId));
  return new Set(rows.map((r) => r.timestamp));
}

/**
 * Stores captures (and their bodies, once by hash) in one transaction; a capture stored
 * already is left as it is.
 */
export async function recordCaptures(
  db: Database,
  siteId: number,
  captures: readonly NewCapture[],
): Promise<void> {
  if (captures.length === 0) return;
  await db.transaction(async (tx) => {
    const withBodies = [
      ...new Map(
        captures.flatMap((c) => (c.body === null ? [] : [[c.body.sha256, c.body] as const])),
      ).values(),
    ];
    if (withBodies.length > 0)
      await tx
        .insert(bodies)
        .values(
          withBodies.map((b) => ({ sha256: b.sha256, content: b.bytes, size: b.bytes.byteLength })),
        )
        .onConflictDoNothing();
    await tx
      .insert(archiveCaptures)
      .values(
        captures.map((capture) => ({
          siteId,
          timestamp: capture.timestamp,
          capturedAt: capture.capturedAt,
          originalUrl: capture.originalUrl,
          status: capture.status,
          error: capture.error,
          errorDetail: capture.errorDetail,
          redirects: [...capture.redirects],
          finalUrl: capture.finalUrl,
          bodySha256: capture.body?.sha256 ?? null,
          truncated: capture.truncated,
          skipped: capture.skipped,
          fetchedAt: capture.fetchedAt,
        })),
      )
      .onConflictDoNothing();
  });
}

/** A site's captures that are part of its history, oldest first, with their bodies. */
export async function loadCaptures(db: Database, siteId: number): Promise<ArchivedCapture[]> {
  const rows = await db
    .select({
      timestamp: archiveCaptures.timestamp,
      capturedAt: archiveCaptures.capturedAt,
      originalUrl: archiveCaptures.originalUrl,
      status: archiveCaptures.status,
      error: archiveCaptures.error,
      errorDetail: archiveCaptures.errorDetail,
      redirects: archiveCaptures.redirects,
      finalUrl: archiveCaptures.finalUrl,
      body: bodies.content,
      truncated: archiveCaptures.truncated,
    })
    .from(archiveCaptures)
    .leftJoin(bodies, eq(bodies.sha256, archiveCaptures.bodySha256))
    .where(and(eq(archiveCaptures.siteId, siteId), sql`${archiveCaptures.skipped} IS NULL`))
    .orderBy(asc(archiveCaptures.capturedAt), asc(archiveCaptures.timestamp));
  return rows;
}

/** Snapshot rows per statement. */
const CHAIN_BATCH = 500;

/**
 * Writes a site's archived snapshots from its states (oldest first), in one transaction
 * (a page sees the old chain or the new one). The stored chain is kept as far as it
 * agrees with the states (their capture counts brought up to date) and the rest appended:
 * a run that read later captures, or resumed, deletes nothing. Only captures older than
 * some stored state (an earlier --since, a finer --every) make the chain from there on
 * again. Returns how many archived snapshots the site has.
 */
export async function replaceArchiveChain(
  db: Database,
  siteId: number,
  states: readonly ArchivedState[],
  registry: string | null,
): Promise<number> {
  return db.transaction(async (tx) => {
    const stored = await queryRows<{
      id: string | number;
      first_seen_at: Date | string;
      status: number | null;
      error: string | null;
      body_sha256: string | null;
      stale: boolean;
      check_count: number;
      last_checked_at: Date | string | null;
    }>(
      tx,
      sql`SELECT id, first_seen_at, status, error, body_sha256, stale, check_count, last_checked_at
        FROM snapshots WHERE site_id = ${siteId} AND source = 'archive' ORDER BY id`,
    );
    const same = (i: number) => {
      const a = stored[i]!;
      const b = states[i]!;
      return (
        new Date(a.first_seen_at).getTime() === b.firstSeenAt.getTime() &&
        a.status === b.status &&
        a.error === b.error &&
        a.body_sha256 === (b.body?.sha256 ?? null) &&
        a.stale === b.stale
      );
    };
    let kept = 0;
    while (kept < stored.length && kept < states.length && same(kept)) kept++;
    if (kept < stored.length) {
      const dropped = sql`(SELECT id FROM snapshots WHERE site_id = ${siteId}
        AND source = 'archive' AND id >= ${stored[kept]!.id}::bigint)`;
      await tx.execute(sql`DELETE FROM verdict_sets WHERE snapshot_id IN ${dropped}`);
      await tx.execute(
        sql`DELETE FROM snapshots WHERE site_id = ${siteId} AND source = 'archive'
          AND id >= ${stored[kept]!.id}::bigint`,
      );
    }
    // The kept states' captures: more may have been read within them.
    const recount = stored.slice(0, kept).flatMap((row, i) => {
      const state = states[i]!;
      const last = row.last_checked_at === null ? null : new Date(row.last_checked_at).getTime();
      return row.check_count === state.captures && last === state.lastSeenAt.getTime()
        ? []
        : [{ id: Number(row.id), count: state.captures, last: state.lastSeenAt.toISOString() }];
    });
    if (recount.length > 0)
      await tx.execute(sql`
        UPDATE snapshots AS s SET check_count = x.count, last_checked_at = x.last
        FROM jsonb_to_recordset(${JSON.stringify(recount)}::jsonb)
          AS x(id bigint, count int, last timestamptz)
        WHERE s.id = x.id`);
    const fresh = states.length - kept;
    const ids = [
      ...stored.slice(0, kept).map((r) => Number(r.id)),
      ...(fresh === 0
        ? []
        : await queryRows<{ id: string | number }>(
            tx,
            sql`SELECT nextval('snapshots_id_seq'::regclass) AS id
              FROM generate_series(1, ${fresh}::int) ORDER BY 1`,
          )
      ).map((r) => Number(r.id)),
    ];
    for (let start = kept; start < states.length; start += CHAIN_BATCH) {
      const batch = states.slice(start, start + CHAIN_BATCH);
      const rows = batch.map((s, k) => {
        const i = start + k;
        return {
          id: ids[i],
          previous_id: i === 0 ? null : ids[i - 1],
          status: s.status,
          error: s.error,
          error_detail: s.errorDetail,
          body_sha256: s.body?.sha256 ?? null,
          truncated: s.cut !== null,
          dropped_bytes: s.cut?.droppedBytes ?? null,
          dropped_line_breaks: s.cut?.droppedLineBreaks ?? null,
          dropped_complete: s.cut?.complete ?? null,
          redirects: s.redirects,
          final_url: s.finalUrl,
          stale: s.stale,
          last_good_id: s.lastGood === null ? null : ids[s.lastGood],
          first_seen_at: s.firstSeenAt.toISOString(),
          file_condition: s.fileCondition,
          causes: s.causes,
          check_count: s.captures,
          last_checked_at: s.lastSeenAt.toISOString(),
          original_url: s.originalUrl,
        };
      });
      // The bodies are there: the states are made from stored captures (recordCaptures).
      await tx.execute(sql`
        INSERT INTO snapshots (id, site_id, previous_id, status, error, error_detail,
          body_sha256, truncated, dropped_bytes, dropped_line_breaks, dropped_complete,
          redirects, final_url, stale, last_good_id, first_seen_at, file_condition, causes,
          check_count, last_checked_at, source, original_url)
        OVERRIDING SYSTEM VALUE
        SELECT id, ${siteId}::int, previous_id, status, error, error_detail, body_sha256,
          truncated, dropped_bytes, dropped_line_breaks, dropped_complete, redirects,
          final_url, stale, last_good_id, first_seen_at, file_condition, causes, check_count,
          last_checked_at, 'archive', original_url
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id bigint,
          previous_id bigint, status int, error text, error_detail text, body_sha256 text,
          truncated boolean, dropped_bytes int, dropped_line_breaks int,
          dropped_complete boolean, redirects jsonb, final_url text, stale boolean,
          last_good_id bigint, first_seen_at timestamptz, file_condition text, causes jsonb,
          check_count int, last_checked_at timestamptz, original_url text)`);
      const sets = batch.flatMap((s, k) =>
        s.verdicts.length === 0
          ? []
          : [
              {
                snapshotId: ids[start + k]!,
                ...verdictSetRow(encodeVerdicts(s.verdicts)),
                registrySha256: registry,
              },
            ],
      );
      if (sets.length > 0) await tx.insert(verdictSets).values(sets);
    }
    return states.length;
  });
}

export async function archiveSummary(db: Database, siteId: number): Promise<ArchiveSummary> {
  const [row] = await queryRows<{
    captures: number;
    skipped: number;
    snapshots: number;
    first: string | Date | null;
    last: string | Date | null;
  }>(
    db,
    sql`SELECT count(*)::int AS captures, count(skipped)::int AS skipped,
        min(captured_at) AS first, max(captured_at) AS last,
        (SELECT count(*)::int FROM snapshots
          WHERE site_id = ${siteId} AND source = 'archive') AS snapshots
      FROM archive_captures WHERE site_id = ${siteId}`,
  );
  const date = (value: string | Date | null | undefined) => (value ? new Date(value) : null);
  return {
    captures: row?.captures ?? 0,
    skipped: row?.skipped ?? 0,
    snapshots: row?.snapshots ?? 0,
    first: date(row?.first),
    last: date(row?.last),
  };
}

/**
 * Whether a site's archived snapshots were made from all its captures (a run stopped
 * between storing captures and making them again leaves them behind), and how many.
 */
export async function archiveChainCurrent(
  db: Database,
  siteId: number,
): Promise<{ current: boolean; snapshots: number }> {
  const [row] = await queryRows<{ captures: number; seen: number; snapshots: number }>(
    db,
    sql`SELECT
        (SELECT count(*)::int FROM archive_captures
          WHERE site_id = ${siteId} AND skipped IS NULL) AS captures,
        coalesce(sum(check_count), 0)::int AS seen, count(*)::int AS snapshots
      FROM snapshots WHERE site_id = ${siteId} AND source = 'archive'`,
  );
  return {
    current: (row?.captures ?? 0) === (row?.seen ?? 0),
    snapshots: row?.snapshots ?? 0,
  };
}

/** When the site's live history begins (its first live snapshot), or null before its first check. */
export async function liveHistoryStart(db: Database, siteId: number): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`SELECT min(first_seen_at) AS at FROM snapshots WHERE site_id = ${siteId} AND source = 'live'`,
  );
  return row?.at ? new Date(row.at) : null;
}
