import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Database } from './db.js';
import { changeEvents, sites } from './schema.js';
import type { EventQuery, StoredEvent } from '../monitor/records.js';

/** Change events, newest first, filtered by site, snapshot and type, a page at a time. */
export async function listEvents(db: Database, query: EventQuery): Promise<StoredEvent[]> {
  const where: SQL[] = [];
  if (query.siteId !== undefined) where.push(eq(changeEvents.siteId, query.siteId));
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
