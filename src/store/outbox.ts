import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AlertDraft, Delivery, OutboxPayload } from '../policy/alerts.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { outbox } from './schema.js';
import type { DigestDelivery } from '../monitor/records.js';

export type { OutboxPayload };
export type OutboxRow = Delivery;

type Writer = Pick<Database, 'insert'>;

/** Queues the alerts of a new snapshot, in the caller's transaction. */
export async function insertAlerts(
  tx: Writer,
  drafts: readonly AlertDraft[],
  snapshot: {
    readonly siteId: number;
    readonly snapshotId: number;
    readonly previousId: number | null;
  },
  now: Date,
): Promise<void> {
  if (drafts.length === 0) return;
  const { siteId, snapshotId, previousId } = snapshot;
  await tx.insert(outbox).values(
    drafts.map((draft) => ({
      key: randomUUID(),
      channel: draft.channel,
      destination: draft.channel === 'email' ? draft.to.join(', ') : draft.url,
      payload: {
        kind: 'alert',
        site: draft.site,
        events: draft.events,
        causes: draft.causes,
        agents: draft.agents,
        siteId,
        snapshotId,
        previousId,
        checkedAt: now.toISOString(),
        ...(draft.channel === 'webhook' ? { format: draft.format } : {}),
      } satisfies OutboxPayload,
      siteId,
      snapshotId,
      createdAt: now,
      nextAttemptAt: now,
    })),
  );
}

/** Queues a digest's delivery (an email, or a webhook's POST), in the caller's transaction. */
export async function insertDigestDelivery(
  tx: Writer,
  digestId: number,
  delivery: DigestDelivery,
  now: Date,
): Promise<void> {
  await tx.insert(outbox).values({
    key: randomUUID(),
    channel: delivery.channel,
    destination: delivery.channel === 'email' ? delivery.to : delivery.url,
    payload: {
      kind: 'digest',
      digestId,
      ...(delivery.channel === 'webhook' ? { format: delivery.format } : {}),
    } satisfies OutboxPayload,
    createdAt: now,
    nextAttemptAt: now,
  });
}

/**
 * Leases up to `limit` rows due at `now` for `owner`, skipping rows another process
 * holds: each row is delivered by one process. A lease that expires (its process died)
 * makes the row due again.
 */
export async function leaseOutbox(
  db: Database,
  owner: string,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<OutboxRow[]> {
  const until = new Date(now.getTime() + leaseMs);
  const rows = await queryRows<{
    id: string | number;
    key: string;
    channel: 'email' | 'webhook';
    destination: string;
    payload: OutboxPayload;
    attempts: number;
    created_at: Date | string;
  }>(
    db,
    sql`
      UPDATE outbox SET leased_by = ${owner}, lease_until = ${until.toISOString()}::timestamptz
      WHERE id IN (
        SELECT id FROM outbox
        WHERE sent_at IS NULL AND next_attempt_at <= ${now.toISOString()}::timestamptz
          AND (lease_until IS NULL OR lease_until < ${now.toISOString()}::timestamptz)
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING id, key, channel, destination, payload, attempts, created_at`,
  );
  return rows
    .map((r) => ({ ...r, id: Number(r.id), createdAt: new Date(r.created_at) }))
    .sort((a, b) => a.id - b.id);
}

/** Marks a row sent, if `owner` still holds it. */
export async function markSent(db: Database, id: number, owner: string, now: Date): Promise<void> {
  await db
    .update(outbox)
    .set({ sentAt: now, leasedBy: null, leaseUntil: null, lastError: null })
    .where(and(eq(outbox.id, id), eq(outbox.leasedBy, owner)));
}

/** Records a failed attempt and when to try again. */
export async function markRetry(
  db: Database,
  id: number,
  owner: string,
  error: string,
  nextAttemptAt: Date,
): Promise<void> {
  await db
    .update(outbox)
    .set({
      attempts: sql`${outbox.attempts} + 1`,
      nextAttemptAt,
      lastError: error.slice(0, 500),
      leasedBy: null,
      leaseUntil: null,
    })
    .where(and(eq(outbox.id, id), eq(outbox.leasedBy, owner)));
}

/** Gives back the rows `owner` holds and has not sent (a shutdown at its deadline). */
export async function releaseOutbox(db: Database, owner: string): Promise<void> {
  await db
    .update(outbox)
    .set({ leasedBy: null, leaseUntil: null })
    .where(and(eq(outbox.leasedBy, owner), isNull(outbox.sentAt)));
}

/** Rows not yet sent (for tests, `status`, and the web UI). */
export async function pendingOutbox(
  db: Database,
): Promise<{ id: number; attempts: number; lastError: string | null }[]> {
  const rows = await db
    .select({ id: outbox.id, attempts: outbox.attempts, lastError: outbox.lastError })
    .from(outbox)
    .where(sql`${outbox.sentAt} IS NULL`);
  return rows;
}

/** Notifications not yet sent, and those among them that failed at least once (metrics). */
export async function outboxCounts(db: Database): Promise<{ pending: number; failed: number }> {
  const [row] = await queryRows<{ pending: number; failed: number }>(
    db,
    sql`SELECT count(*)::int AS pending, (count(*) FILTER (WHERE attempts > 0))::int AS failed
      FROM outbox WHERE sent_at IS NULL`,
  );
  return { pending: row?.pending ?? 0, failed: row?.failed ?? 0 };
}
