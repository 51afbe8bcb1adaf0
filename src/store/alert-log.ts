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
  if (query.id !== undefined) having.push(sql`min(o.id) = ${query.id}`);
  if (query.channel !== undefined) having.push(sql`bool_or(o.channel = ${query.channel})`);
  if (query.state !== undefined) having.push(sql`bool_or(${STATE[query.state]})`);
  const rows = await queryRows<Row>(
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
      WHERE ${sql.join(where, sql` AND `)}
      GROUP BY o.site_id, s.origin, o.created_at, o.payload - 'format'
      HAVING ${sql.join(having, sql` AND `)}
      ORDER BY min(o.id) DESC
      LIMIT ${query.limit}`,
  );
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
