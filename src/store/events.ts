import { and, desc, eq, isNotNull, or, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { inSites, queryRows } from './db.js';
import type { Database } from './db.js';
import { sites, snapshots } from './schema.js';
import { isChangeEventType } from '../policy/changes/events.js';
import type { ChangeEvent, ChangeEventType } from '../policy/changes/events.js';
import type { ChangeQuery, EventQuery, StoredChange, StoredEvent } from '../monitor/records.js';

/**
 * An event's id: its state's id × 2^20 + its place among the state's events (a state has
 * at most 1,000 watches × 500 crawlers of flipped pairs, and three more events), so that
 * ids order events as they were recorded, newest state first.
 */
const PLACES = 2 ** 20;

/** The state and place an event id names. */
function placeOf(id: number): { snapshotId: number; place: number } {
  return { snapshotId: Math.floor(id / PLACES), place: id % PLACES };
}

/** A state's test for one event type, with the type as a constant (only a known type). */
function hasEventType(type: ChangeEventType): SQL {
  if (!isChangeEventType(type)) throw new Error(`not a change event type: ${String(type)}`);
  return sql`${snapshots.eventTypes} @> ${sql.raw(`'{${type}}'::text[]`)}`;
}

/** Change events, newest first, filtered by site, snapshot and type, a page at a time. */
export async function listEvents(db: Database, query: EventQuery): Promise<StoredEvent[]> {
  const where: SQL[] = [sql`${snapshots.events} IS NOT NULL`];
  if (query.siteId !== undefined) where.push(sql`${snapshots.siteId} = ${query.siteId}`);
  const only = inSites(snapshots.siteId, query.siteIds);
  if (only !== undefined) where.push(only);
  if (query.snapshotId !== undefined) where.push(sql`${snapshots.id} = ${query.snapshotId}`);
  const before = query.beforeId === undefined ? null : placeOf(query.beforeId);
  if (before !== null) where.push(sql`${snapshots.id} <= ${before.snapshotId}`);
  const types = query.types !== undefined && query.types.length > 0 ? [...query.types] : null;
  // A state's types are read without its events' text; its events, by their own type. The
  // states are found type by type, newest first: a page's events are among each type's
  // newest `limit` + 1 states (the one more: the page's first state may have none left).
  // Each type is a constant the planner matches to that type's own index (RARE_EVENT_TYPES).
  // With a parameter, or with the types in one test, it scanned every state newer than the
  // first with a rare type: a million states, 0.5–0.8 s a page (docs/performance.md).
  if (types !== null) {
    const newest = types.map(
      (type) =>
        sql`(SELECT ${snapshots.id} FROM ${snapshots} WHERE ${and(...where, hasEventType(type))}
          ORDER BY ${snapshots.id} DESC LIMIT ${query.limit + 1})`,
    );
    where.push(sql`${snapshots.id} IN (${sql.join(newest, sql` UNION ALL `)})`);
  }
  const rows = await queryRows<{
    snapshot_id: number | string;
    site_id: number;
    origin: string;
    at: Date | string;
    place: number;
    event: ChangeEvent;
  }>(
    db,
    sql`SELECT ${snapshots.id} AS snapshot_id, ${snapshots.siteId} AS site_id, ${sites.origin} AS origin,
        ${snapshots.firstSeenAt} AS at, e.place, e.event
      FROM ${snapshots} JOIN ${sites} ON ${sites.id} = ${snapshots.siteId}
      CROSS JOIN LATERAL (
        SELECT (n - 1)::int AS place, x AS event
        FROM json_array_elements(${snapshots.events}) WITH ORDINALITY AS j(x, n)) AS e
      WHERE ${and(...where)}
        ${types === null ? sql`` : sql`AND e.event->>'type' = ANY(${sql.param(types)}::text[])`}
        ${before === null ? sql`` : sql`AND (${snapshots.id}, e.place) < (${before.snapshotId}::bigint, ${before.place}::int)`}
      ORDER BY ${snapshots.id} DESC, e.place DESC
      LIMIT ${query.limit}`,
  );
  return rows.map((r) => ({
    id: Number(r.snapshot_id) * PLACES + r.place,
    siteId: r.site_id,
    origin: r.origin,
    snapshotId: Number(r.snapshot_id),
    at: new Date(r.at),
    event: r.event,
  }));
}

/** How many change events each snapshot of a site introduced (snapshots with none omitted). */
export async function countEventsBySnapshot(
  db: Database,
  siteId: number,
): Promise<Map<number, number>> {
  const rows = await db
    .select({ snapshotId: snapshots.id, n: sql<number>`json_array_length(${snapshots.events})` })
    .from(snapshots)
    .where(and(eq(snapshots.siteId, siteId), isNotNull(snapshots.events)));
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
      OR (${snapshots.causes} IS NULL AND ${snapshots.events} IS NOT NULL))`,
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
      // The events of a change recorded before causes were, which it is shown by.
      events: sql<
        ChangeEvent[] | null
      >`CASE WHEN ${snapshots.causes} IS NULL THEN ${snapshots.events} END`,
    })
    .from(snapshots)
    .where(and(...where))
    .orderBy(desc(live), desc(snapshots.id))
    .limit(query.limit);
  return rows.map(({ events, ...r }) => ({
    ...r,
    events: r.causes === null ? (events ?? []) : [],
  }));
}
