import { oneLine } from '../lib/errors.js';
import { retryDelay } from '../policy/alerts.js';
import type { Channel, Delivery } from '../policy/alerts.js';

/** What sending a notification needs, however it was taken (a one-shot lease, a job). */
interface Sending {
  markSent(id: number, now: Date): Promise<void>;
  /** The channels configured; a delivery for a missing one waits, retried, until it is. */
  readonly channels: Partial<Record<Delivery['channel'], Channel>>;
  now(): Date;
  readonly retry: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly onSent?: (delivery: Delivery) => void;
  readonly onFailed?: (delivery: Delivery, error: unknown, retryAt: Date) => void;
}

export interface DeliverDeps extends Sending {
  lease(now: Date, limit: number): Promise<Delivery[]>;
  markRetry(id: number, error: string, nextAttemptAt: Date): Promise<void>;
}

/**
 * Sends a notification this process holds and marks it sent; a channel's failure is
 * recorded with its next attempt (exponential backoff, capped). Marked sent only after
 * its channel accepted it, so a crash between the two sends it again, with the same key
 * for the receiver to recognise. The store failing throws.
 */
async function sendOne(
  deps: Sending,
  delivery: Delivery,
  retryLater: (error: string, nextAttemptAt: Date) => Promise<void>,
): Promise<'sent' | 'failed'> {
  const channel = deps.channels[delivery.channel];
  try {
    if (channel === undefined) throw new Error(`no ${delivery.channel} channel is configured`);
    await channel.send(delivery);
  } catch (error) {
    const retryAt = new Date(deps.now().getTime() + retryDelay(delivery.attempts, deps.retry));
    await retryLater(oneLine(error), retryAt);
    deps.onFailed?.(delivery, error, retryAt);
    return 'failed';
  }
  await deps.markSent(delivery.id, deps.now());
  deps.onSent?.(delivery);
  return 'sent';
}

/** Leases due notifications and sends them (the one-shot commands). */
export async function deliverDue(
  deps: DeliverDeps,
  limit: number,
): Promise<{ leased: number; sent: number; failed: number }> {
  const leased = await deps.lease(deps.now(), limit);
  let sent = 0;
  let failed = 0;
  await Promise.all(
    leased.map(async (delivery) => {
      const result = await sendOne(deps, delivery, (error, at) =>
        deps.markRetry(delivery.id, error, at),
      );
      if (result === 'sent') sent++;
      else failed++;
    }),
  );
  return { leased: leased.length, sent, failed };
}

/** One attempt at one notification, as its delivery job names it. */
export interface DeliveryAttempt {
  readonly outboxId: number;
  readonly attempt: number;
}

export interface DeliveryJobDeps extends Sending {
  /** The notification, if it is unsent, at this attempt, and free; null when there is nothing to do. */
  claim(job: DeliveryAttempt, now: Date): Promise<Delivery | null>;
  /** Records the failure and queues the next attempt for `nextAttemptAt`. */
  retryLater(delivery: Delivery, error: string, nextAttemptAt: Date): Promise<void>;
}

/**
 * Runs one delivery job: sends the notification; a channel's failure queues the next
 * attempt's job. The store failing throws, for the engine to retry the job: the
 * notification is then sent again with the same key (at least once).
 */
export async function deliverAttempt(
  deps: DeliveryJobDeps,
  job: DeliveryAttempt,
): Promise<'sent' | 'failed' | 'nothing'> {
  const delivery = await deps.claim(job, deps.now());
  if (delivery === null) return 'nothing';
  return sendOne(deps, delivery, (error, at) => deps.retryLater(delivery, error, at));
}

/** What a one-shot delivery achieved: sent, failed, and why the first failure failed. */
export interface DeliveryReport {
  readonly sent: number;
  readonly failed: number;
  readonly error?: string;
}

/**
 * Sends everything due now, round after round, until nothing is left that is due (for
 * the one-shot commands). A failure stays queued with its backoff, so this ends.
 */
export async function deliverAllDue(deps: DeliverDeps): Promise<DeliveryReport> {
  let sent = 0;
  let failed = 0;
  let error: string | undefined;
  for (;;) {
    const round = await deliverDue(
      {
        ...deps,
        onFailed: (delivery, cause, retryAt) => {
          error ??= oneLine(cause);
          deps.onFailed?.(delivery, cause, retryAt);
        },
      },
      20,
    );
    sent += round.sent;
    failed += round.failed;
    if (round.leased === 0) break;
  }
  return { sent, failed, ...(error === undefined ? {} : { error }) };
}
