/**
 * The alert log: every notification queued (alerts, incident alerts, digests) with its
 * deliveries per channel, read from the outbox, where each row is one delivery. The
 * deliveries of one notification share their site, time and content (all but a webhook's
 * format), and are one entry of the log.
 */
import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { AlertLogEntry, AlertLogQuery } from '../monitor/records.js';
import type { OutboxPayload } from '../policy/alerts.js';
import { inSites, queryRows } from './db.js';
import type { Database } from './db.js';

interface Row {
  id: string | number;
  site_id: number | null;
  origin: string | null;
  created_at: string | Date;
  payload: OutboxPayload;
  digest_subject: string | null;
  deliveries: {
    id: number;
    key: string;
    channel: 'email' | 'webhook';
    destination: string;
    payload: OutboxPayload;
    attempts: number;
    sentAt: string | null;
    nextAttemptAt: string;
    error: string | null;
  }[];
}

/** Conditions joined by AND. */
const allOf = (conditions: readonly SQL[]): SQL => sql.join([...conditions], sql` AND `);

const STATE: Record<NonNullable<AlertLogQuery['state']>, SQL> = {
  sent: sql`o.sent_at IS NOT NULL`,
  failed: sql`o.sent_at IS NULL AND o.attempts > 0`,
  queued: sql`o.sent_at IS NULL AND o.attempts = 0`,
};

/** Entries of the log, the newest first (or one, by the id of its first delivery). */
export async function listAlertLog(db: Database, query: AlertLogQuery): Promise<AlertLogEntry[]> {
  const where: SQL[] = [sql`true`];
  if (query.siteId !== undefined) where.push(sql`o.site_id = ${query.siteId}`);
  const only = inSites(sql`o.site_id`, query.siteIds);
  if (only !== undefined) where.push(only);
  if (query.before !== undefined) where.push(sql`o.id < ${query.before}`);
  const having: SQL[] = [sql`true`];
  if (query.id !== undefined) {
    // An entry's deliveries share their creation time: read by it, not the whole outbox.
    where.push(sql`o.created_at = (SELECT created_at FROM outbox WHERE id = ${query.id})`);
    having.push(sql`min(o.id) = ${query.id}`);
  }
  if (query.channel !== undefined) having.push(sql`bool_or(o.channel = ${query.channel})`);
  if (query.state !== undefined) having.push(sql`bool_or(${STATE[query.state]})`);
  // Entries with an unsent delivery are few, and their deliveries share their creation time
  // with it: only their times are grouped (the outbox's index of unsent deliveries finds
  // them), not 90 days of sent ones (3.7 s a page for 100,000 notifications).
  if (query.state === 'failed' || query.state === 'queued')
    where.push(sql`o.created_at IN (SELECT o.created_at FROM outbox o
      WHERE ${allOf(where)} AND ${STATE[query.state]})`);
  const entries = (window: SQL[] = []) =>
    queryRows<Row>(
      db,
      sql`SELECT min(o.id) AS id, o.site_id, s.origin, o.created_at,
        (array_agg(o.payload ORDER BY o.id))[1] AS payload,
        min(d.subject) AS digest_subject,
        jsonb_agg(jsonb_build_object('id', o.id, 'key', o.key, 'channel', o.channel,
          'destination', o.destination, 'payload', o.payload, 'attempts', o.attempts,
          'sentAt', o.sent_at, 'nextAttemptAt', o.next_attempt_at, 'error', o.last_error)
          ORDER BY o.id) AS deliveries
      FROM outbox o
        LEFT JOIN sites s ON s.id = o.site_id
        LEFT JOIN digests d ON o.payload->>'kind' = 'digest'
          AND d.id = (o.payload->>'digestId')::bigint
      WHERE ${allOf([...where, ...window])}
      GROUP BY o.site_id, s.origin, o.created_at, o.payload - 'format'
      HAVING ${allOf(having)}
      ORDER BY min(o.id) DESC
      LIMIT ${query.limit}`,
    );
  const rows =
    query.id === undefined ? await newestEntries(db, where, query.limit, entries) : await entries();
  return rows.map((r) => ({
    id: Number(r.id),
    siteId: r.site_id,
    origin: r.origin,
    createdAt: new Date(r.created_at),
    payload: r.payload,
    digestSubject: r.digest_subject,
    deliveries: r.deliveries.map((d) => ({
      id: Number(d.id),
      key: d.key,
      channel: d.channel,
      destination: d.destination,
      payload: d.payload,
      attempts: d.attempts,
      sentAt: d.sentAt === null ? null : new Date(d.sentAt),
      nextAttemptAt: new Date(d.nextAttemptAt),
      error: d.error,
    })),
  }));
}

/** Deliveries looked at for a page of the log: its entries are rarely more than this each. */
const DELIVERIES_PER_ENTRY = 16;

/**
 * The newest entries of the log without grouping the whole outbox (90 days of a large
 * fleet's alerts: 100,000 notifications took about 3 s a page). An entry's deliveries share
 * their creation time, so the entries of the newest deliveries are read whole by the
 * times of those deliveries. The page is exact when it is full and its last entry began
 * among them: every other entry began before all of them. Otherwise (an entry of many
 * deliveries, or filters that few entries pass) the whole outbox is grouped as before.
 */
async function newestEntries(
  db: Database,
  where: readonly SQL[],
  limit: number,
  entries: (window?: SQL[]) => Promise<Row[]>,
): Promise<Row[]> {
  const [floor] = await queryRows<{ id: string | number }>(
    db,
    sql`SELECT o.id FROM outbox o WHERE ${allOf(where)}
      ORDER BY o.id DESC OFFSET ${limit * DELIVERIES_PER_ENTRY - 1} LIMIT 1`,
  );
  if (floor === undefined) return entries();
  const from = Number(floor.id);
  // (The subquery's own `o`: the newest deliveries that pass the same filters.)
  const page = await entries([
    sql`o.created_at IN (SELECT o.created_at FROM outbox o
      WHERE ${allOf(where)} AND o.id >= ${from})`,
  ]);
  if (page.length === limit && Number(page.at(-1)!.id) >= from) return page;
  return entries();
}
