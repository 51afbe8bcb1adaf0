import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FailingChannel } from '../monitor/records.js';
import type { AlertDraft, Delivery, OutboxPayload } from '../policy/alerts.js';
import type { IncidentDraft, IncidentPayload } from '../policy/incident-alerts.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { jobId } from '../lib/job-id.js';
import { sendInTransaction } from './job-rows.js';
import { outbox } from './schema.js';
import type { NewJob } from '../monitor/ports.js';
import type { DigestDelivery } from '../monitor/records.js';

export type { OutboxPayload };
export type OutboxRow = Delivery;

type Writer = Pick<Database, 'insert' | 'execute'>;

/** What a delivery job names: one attempt at one notification. */
export interface DeliveryJob {
  readonly outboxId: number;
  readonly attempt: number;
}

/** The job of a notification's attempt: the same attempt is queued once, however often asked. */
export function deliveryJob(outboxId: number, attempt: number, at: Date): NewJob<DeliveryJob> {
  return {
    id: jobId(`deliver:${outboxId}:${attempt}`),
    data: { outboxId, attempt },
    startAfter: at,
  };
}

/** Each new notification's first attempt, queued as a job in the same transaction. */
async function queueFirstAttempts(tx: Writer, ids: readonly number[], now: Date): Promise<void> {
  await queueFirstAttemptsAt(
    tx,
    ids.map((id) => ({ id, at: now })),
  );
}

async function queueFirstAttemptsAt(
  tx: Writer,
  notifications: readonly { readonly id: number; readonly at: Date }[],
): Promise<void> {
  await sendInTransaction(
    tx,
    'deliver',
    notifications.map(({ id, at }) => deliveryJob(id, 0, at)),
  );
}

/** The state a new snapshot's alerts are about. */
export interface AlertedState {
  readonly siteId: number;
  /** The state the alerts are about; null: none (a site robowatch never could check). */
  readonly snapshotId: number | null;
  readonly previousId: number | null;
}

/** Queues the alerts of a new snapshot, in the caller's transaction. */
export async function insertAlerts(
  tx: Writer,
  drafts: readonly AlertDraft[],
  snapshot: AlertedState,
  now: Date,
): Promise<void> {
  await insertAlertsOfStates(tx, [{ drafts, snapshot, now }]);
}

/**
 * Queues the alerts of many new snapshots (group commit), in the caller's transaction:
 * their rows in as few statements as their number allows, each with its first attempt.
 */
export async function insertAlertsOfStates(
  tx: Writer,
  states: readonly {
    readonly drafts: readonly AlertDraft[];
    readonly snapshot: AlertedState;
    readonly now: Date;
  }[],
): Promise<void> {
  const all = states.flatMap(({ drafts, snapshot, now }) =>
    drafts.map((draft) => alertRow(draft, snapshot, now)),
  );
  // In slices: one statement's parameters are bounded (PostgreSQL takes 65,535, and
  // drizzle builds a statement's text on the call stack).
  for (let start = 0; start < all.length; start += ALERT_ROWS_PER_STATEMENT) {
    const slice = all.slice(start, start + ALERT_ROWS_PER_STATEMENT);
    const rows = await tx
      .insert(outbox)
      .values(slice)
      .returning({ id: outbox.id, at: outbox.createdAt });
    // Each first attempt is due when its state was checked.
    await queueFirstAttemptsAt(tx, rows);
  }
}

function alertRow(draft: AlertDraft, snapshot: AlertedState, now: Date) {
  const { siteId, snapshotId, previousId } = snapshot;
  return {
    key: randomUUID(),
    channel: draft.channel,
    destination: draft.channel === 'email' ? draft.to.join(', ') : draft.url,
    payload: {
      kind: 'alert',
      site: draft.site,
      ...(draft.name === undefined ? {} : { name: draft.name }),
      events: draft.events,
      causes: draft.causes,
      agents: draft.agents,
      siteId,
      ...(snapshotId === null ? {} : { snapshotId }),
      previousId,
      checkedAt: now.toISOString(),
      ...(draft.channel === 'webhook' ? { format: draft.format } : {}),
    } satisfies OutboxPayload,
    siteId,
    snapshotId,
    createdAt: now,
    nextAttemptAt: now,
  };
}

/**
 * Queues the alerts of an incident's transition, in the caller's transaction: sent from
 * `notBefore` (a resolution waits out the flap window, in case the incident comes back).
 */
export async function insertIncidentAlerts(
  tx: Writer,
  drafts: readonly IncidentDraft[],
  siteId: number,
  now: Date,
  notBefore: Date,
): Promise<void> {
  for (let start = 0; start < drafts.length; start += ALERT_ROWS_PER_STATEMENT) {
    const rows = await tx
      .insert(outbox)
      .values(
        drafts.slice(start, start + ALERT_ROWS_PER_STATEMENT).map((draft) => {
          const { channel, ...content } = draft;
          const payload: IncidentPayload = {
            kind: 'incident',
            site: content.site,
            ...(content.name === undefined ? {} : { name: content.name }),
            siteId,
            incident: content.incident,
            at: content.at,
            ...(draft.channel === 'webhook' ? { format: draft.format } : {}),
          };
          return {
            key: randomUUID(),
            channel,
            destination: draft.channel === 'email' ? draft.to.join(', ') : draft.url,
            payload,
            siteId,
            snapshotId: null,
            createdAt: now,
            nextAttemptAt: notBefore,
          };
        }),
      )
      .returning({ id: outbox.id });
    await queueFirstAttempts(
      tx,
      rows.map((r) => r.id),
      notBefore,
    );
  }
}

/**
 * Withdraws an incident's resolution not sent yet (it came back within the flap window:
 * nobody was told it had gone). Returns how many notifications were withdrawn.
 */
export async function withdrawResolution(
  tx: Pick<Database, 'delete'>,
  incidentId: number,
): Promise<number> {
  const rows = await tx
    .delete(outbox)
    .where(
      and(
        isNull(outbox.sentAt),
        sql`${outbox.payload}->>'kind' = 'incident'`,
        sql`(${outbox.payload}->'incident'->>'id')::bigint = ${incidentId}`,
        sql`${outbox.payload}->'incident'->>'transition' = 'resolved'`,
      ),
    )
    .returning({ id: outbox.id });
  return rows.length;
}

/** Outbox rows one INSERT writes. */
const ALERT_ROWS_PER_STATEMENT = 500;

/** Queues a digest's delivery (an email, or a webhook's POST), in the caller's transaction. */
export async function insertDigestDelivery(
  tx: Writer,
  digestId: number,
  delivery: DigestDelivery,
  now: Date,
): Promise<void> {
  const [row] = await tx
    .insert(outbox)
    .values({
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
    })
    .returning({ id: outbox.id });
  await queueFirstAttempts(tx, [row!.id], now);
}

type OutboxRecord = {
  id: string | number;
  key: string;
  channel: 'email' | 'webhook';
  destination: string;
  payload: OutboxPayload;
  attempts: number;
  created_at: Date | string;
};

const toDelivery = (r: OutboxRecord): OutboxRow => ({
  ...r,
  id: Number(r.id),
  createdAt: new Date(r.created_at),
});

/** Marks a notification sent (once: a second attempt that ran too finds it sent). */
export async function markSent(db: Database, id: number, now: Date): Promise<void> {
  await db
    .update(outbox)
    .set({ sentAt: now, lastError: null })
    .where(and(eq(outbox.id, id), isNull(outbox.sentAt)));
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

/**
 * The notification a delivery job names, if it is unsent and still at that attempt (a
 * job of an attempt made already, or of a notification sent, has nothing to do): null.
 */
export async function claimDelivery(db: Database, job: DeliveryJob): Promise<OutboxRow | null> {
  const [row] = await queryRows<OutboxRecord>(
    db,
    sql`SELECT id, key, channel, destination, payload, attempts, created_at FROM outbox
      WHERE id = ${job.outboxId} AND sent_at IS NULL AND attempts = ${job.attempt}`,
  );
  return row === undefined ? null : toDelivery(row);
}

/**
 * A failed attempt: recorded on the notification, and its next attempt queued for
 * `nextAttemptAt`, in one transaction (once: the attempt count is the guard).
 */
export async function retryDelivery(
  db: Database,
  delivery: OutboxRow,
  error: string,
  nextAttemptAt: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    const updated = await tx
      .update(outbox)
      .set({ attempts: delivery.attempts + 1, nextAttemptAt, lastError: error.slice(0, 500) })
      .where(
        and(
          eq(outbox.id, delivery.id),
          isNull(outbox.sentAt),
          eq(outbox.attempts, delivery.attempts),
        ),
      )
      .returning({ id: outbox.id });
    if (updated.length === 1)
      await sendInTransaction(tx, 'deliver', [
        deliveryJob(delivery.id, delivery.attempts + 1, nextAttemptAt),
      ]);
  });
}

/**
 * The next attempt of every notification not sent, as jobs (each queued once, by its
 * name): at a daemon's start, for notifications an older robowatch queued without one.
 */
export async function unsentDeliveries(db: Database): Promise<NewJob<DeliveryJob>[]> {
  const rows = await queryRows<{ id: string | number; attempts: number; at: string | Date }>(
    db,
    sql`SELECT id, attempts, next_attempt_at AS at FROM outbox WHERE sent_at IS NULL`,
  );
  return rows.map((r) => deliveryJob(Number(r.id), r.attempts, new Date(r.at)));
}

/** Deletes the notifications sent before `before` (retention). Returns how many. */
export async function pruneOutbox(db: Database, before: Date): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH gone AS (DELETE FROM outbox WHERE sent_at < ${before.toISOString()}::timestamptz RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
  );
  return rows[0]?.n ?? 0;
}

/** The oldest notification still failing: since when, and its last error; null when none is. */
export async function failingDelivery(
  db: Database,
): Promise<{ since: Date; error: string; channel: string } | null> {
  const [row] = await queryRows<{ since: string | Date; error: string | null; channel: string }>(
    db,
    sql`SELECT created_at AS since, last_error AS error, channel FROM outbox
      WHERE sent_at IS NULL AND attempts > 0 ORDER BY created_at LIMIT 1`,
  );
  return row === undefined
    ? null
    : { since: new Date(row.since), error: row.error ?? 'unknown error', channel: row.channel };
}

/**
 * The channels whose notifications are failing now: email as one (its server), each
 * webhook by its URL; since when, how many wait, and the latest error.
 */
export async function failingChannels(db: Database): Promise<FailingChannel[]> {
  const rows = await queryRows<{
    channel: 'email' | 'webhook';
    destination: string;
    since: string | Date;
    waiting: number;
    error: string | null;
  }>(
    db,
    sql`SELECT channel, CASE WHEN channel = 'webhook' THEN destination ELSE '' END AS destination,
        min(created_at) AS since, count(*)::int AS waiting,
        (array_agg(last_error ORDER BY created_at DESC))[1] AS error
      FROM outbox WHERE sent_at IS NULL AND attempts > 0
      GROUP BY 1, 2 ORDER BY since`,
  );
  return rows.map((r) => ({
    channel: r.channel,
    destination: r.destination === '' ? null : r.destination,
    since: new Date(r.since),
    waiting: r.waiting,
    error: r.error ?? 'unknown error',
  }));
}
