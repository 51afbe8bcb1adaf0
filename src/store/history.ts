import { and, desc, eq, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { FetchErrorKind } from '../policy/fetch-result.js';
import type { Database } from './db.js';
import { bodies, registryVersions, snapshots, verdictSets } from './schema.js';
import type { SnapshotSummary } from '../monitor/records.js';

/** Snapshots matching `where`, with their body's size and the checks that saw them. */
function summaries(db: Database, where: SQL | undefined) {
  return db
    .select({
      id: snapshots.id,
      siteId: snapshots.siteId,
      previousId: snapshots.previousId,
      firstSeen: snapshots.firstSeenAt,
      status: snapshots.status,
      error: snapshots.error,
      errorDetail: snapshots.errorDetail,
      sha256: snapshots.bodySha256,
      size: bodies.size,
      truncated: snapshots.truncated,
      droppedBytes: snapshots.droppedBytes,
      droppedLineBreaks: snapshots.droppedLineBreaks,
      droppedComplete: snapshots.droppedComplete,
      stale: snapshots.stale,
      lastGoodId: snapshots.lastGoodId,
      redirects: snapshots.redirects,
      finalUrl: snapshots.finalUrl,
      source: snapshots.source,
      originalUrl: snapshots.originalUrl,
      lastSeen: snapshots.lastCheckedAt,
      checks: snapshots.checkCount,
      registrySha256: verdictSets.registrySha256,
      registrySource: registryVersions.source,
      registryDate: registryVersions.date,
      registryAgents: registryVersions.agents,
    })
    .from(snapshots)
    .leftJoin(bodies, eq(bodies.sha256, snapshots.bodySha256))
    .leftJoin(verdictSets, eq(verdictSets.snapshotId, snapshots.id))
    .leftJoin(registryVersions, eq(registryVersions.sha256, verdictSets.registrySha256))
    .where(where)
    .$dynamic();
}

type SummaryRow = Awaited<ReturnType<typeof summaries>>[number];

function toSummary(row: SummaryRow): SnapshotSummary {
  const {
    droppedBytes,
    droppedLineBreaks,
    droppedComplete,
    registrySha256,
    registrySource,
    registryDate,
    registryAgents,
    ...rest
  } = row;
  return {
    ...rest,
    // The AI crawler registry its verdicts were made with.
    registry:
      registrySha256 === null
        ? null
        : {
            sha256: registrySha256,
            source: registrySource ?? 'unknown',
            date: registryDate ?? '',
            agents: registryAgents ?? 0,
          },
    cut:
      droppedBytes === null
        ? null
        : {
            droppedBytes,
            droppedLineBreaks: droppedLineBreaks ?? 0,
            complete: droppedComplete ?? false,
          },
    error: row.error as FetchErrorKind | null,
    // max() over a timestamp comes back as text from some drivers.
    lastSeen: row.lastSeen === null ? row.firstSeen : new Date(row.lastSeen),
    checks: Number(row.checks),
  };
}

/**
 * A site's snapshots, newest first (after `beforeId` in that order, for paging), with
 * their checks: the live ones, then those from the Internet Archive (which all came
 * before robowatch's first check; each chain is in id order).
 */
export async function listSnapshots(
  db: Database,
  siteId: number,
  limit = 1000,
  beforeId?: number,
): Promise<SnapshotSummary[]> {
  const live = sql`(${snapshots.source} = 'live')`;
  const where =
    beforeId === undefined
      ? eq(snapshots.siteId, siteId)
      : and(
          eq(snapshots.siteId, siteId),
          sql`(${live}, ${snapshots.id}) < (coalesce((SELECT b.source = 'live' FROM snapshots b WHERE b.id = ${beforeId}), true), ${beforeId}::bigint)`,
        );
  const rows = await summaries(db, where).orderBy(desc(live), desc(snapshots.id)).limit(limit);
  return rows.map(toSummary);
}

/** One snapshot of a site, or undefined if the id is not one of the site's. */
export async function getSnapshot(
  db: Database,
  siteId: number,
  id: number,
): Promise<SnapshotSummary | undefined> {
  const [row] = await summaries(db, and(eq(snapshots.siteId, siteId), eq(snapshots.id, id)));
  return row === undefined ? undefined : toSummary(row);
}

/** A snapshot by id alone (the API names snapshots without their site), or undefined. */
export async function findSnapshot(db: Database, id: number): Promise<SnapshotSummary | undefined> {
  const [row] = await summaries(db, eq(snapshots.id, id));
  return row === undefined ? undefined : toSummary(row);
}
