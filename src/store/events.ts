import { and, desc, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { inSites } from './db.js';
import type { Database } from './db.js';
import { changeEvents, sites, snapshots } from './schema.js';
import type { ChangeQuery, EventQuery, StoredChange, StoredEvent } from '../monitor/records.js';

/** Change events, newest first, filtered by site, snapshot and type, a page at a time. */
export async function listEvents(db: Database, query: EventQuery): Promise<StoredEvent[]> {
  const where: SQL[] = [];
  if (query.siteId !== undefined) where.push(eq(changeEvents.siteId, query.siteId));
  const only = inSites(changeEvents.siteId, query.siteIds);
  if (only !== undefined) where.push(only);
  if (query.snapshotId !== undefined) where.push(eq(changeEvents.snapshotId, query.snapshotId));
  if (query.types !== undefined && query.types.length > 0)
    where.push(inArray(changeEvents.type, [...query.types]));
  if (query.beforeId !== undefined) where.push(lt(changeEvents.id, query.beforeId));
  return db
    .select({
      id: changeEvents.id,
      siteId: changeEvents.siteId,
      origin: sites.origin,
      snapshotId: changeEvents.snapshotId,
      at: changeEvents.createdAt,
      event: changeEvents.event,
    })
    .from(changeEvents)
    .innerJoin(sites, eq(sites.id, changeEvents.siteId))
    .where(and(...where))
    .orderBy(desc(changeEvents.id))
    .limit(query.limit);
}

/** How many change events each snapshot of a site introduced (snapshots with none omitted). */
export async function countEventsBySnapshot(
  db: Database,
  siteId: number,
): Promise<Map<number, number>> {
  const rows = await db
    .select({ snapshotId: changeEvents.snapshotId, n: sql<number>`count(*)::int` })
    .from(changeEvents)
    .where(eq(changeEvents.siteId, siteId))
    .groupBy(changeEvents.snapshotId);
  return new Map(rows.map((r) => [r.snapshotId, Number(r.n)]));
}

/**
 * A site's changes (new states after its baseline), newest first, a page at a time: each
 * with its causes, or its events when it was recorded before causes were. With `types`,
 * only changes with a cause of one of those types.
 */
export async function listChanges(db: Database, query: ChangeQuery): Promise<StoredChange[]> {
  const where: SQL[] = [
    // Across sites (the feed), what robowatch saw; a site's own list has its archived
    // changes too, after its live ones.
    query.siteId === undefined
      ? sql`EXISTS (SELECT 1 FROM sites s WHERE s.id = ${snapshots.siteId} AND s.removed_at IS NULL)
          AND ${snapshots.source} = 'live'`
      : eq(snapshots.siteId, query.siteId),
    isNotNull(snapshots.previousId),
    sql`(jsonb_array_length(COALESCE(${snapshots.causes}, '[]'::jsonb)) > 0
      OR (${snapshots.causes} IS NULL AND EXISTS
        (SELECT 1 FROM change_events e WHERE e.snapshot_id = ${snapshots.id})))`,
  ];
  const only = inSites(snapshots.siteId, query.siteIds);
  if (only !== undefined) where.push(only);
  const live = sql`(${snapshots.source} = 'live')`;
  if (query.beforeId !== undefined)
    where.push(
      sql`(${live}, ${snapshots.id}) < (coalesce((SELECT b.source = 'live' FROM snapshots b WHERE b.id = ${query.beforeId}), true), ${query.beforeId}::bigint)`,
    );
  if (query.types !== undefined && query.types.length > 0)
    where.push(
      or(
        ...query.types.map(
          (type) => sql`${snapshots.causes} @> ${JSON.stringify([{ type }])}::jsonb`,
        ),
      )!,
    );
  const rows = await db
    .select({
      siteId: snapshots.siteId,
      snapshotId: snapshots.id,
      previousId: snapshots.previousId,
      at: snapshots.firstSeenAt,
      causes: snapshots.causes,
      source: snapshots.source,
    })
    .from(snapshots)
    .where(and(...where))
    .orderBy(desc(live), desc(snapshots.id))
    .limit(query.limit);
  const legacy = rows.filter((r) => r.causes === null).map((r) => r.snapshotId);
  const events =
    legacy.length === 0
      ? []
      : await db
          .select({ snapshotId: changeEvents.snapshotId, event: changeEvents.event })
          .from(changeEvents)
          .where(inArray(changeEvents.snapshotId, legacy))
          .orderBy(changeEvents.id);
  return rows.map((r) => ({
    ...r,
    events: events.filter((e) => e.snapshotId === r.snapshotId).map((e) => e.event),
  }));
}
