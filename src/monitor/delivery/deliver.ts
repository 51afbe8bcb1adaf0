import { oneLine } from '../../lib/errors.js';
import { visibleControls } from '../../policy/wording/format.js';
import { retryDelay } from '../../policy/alerts.js';
import type { Channel, Delivery } from '../../policy/alerts.js';
import type { JobQueue } from '../ports.js';

/** What sending a notification needs. */
interface Sending {
  markSent(id: number, now: Date): Promise<void>;
  /** The channels configured; a delivery for a missing one waits, retried, until it is. */
  readonly channels: Partial<Record<Delivery['channel'], Channel>>;
  now(): Date;
  readonly retry: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly onSent?: (delivery: Delivery) => void;
  readonly onFailed?: (delivery: Delivery, error: unknown, retryAt: Date) => void;
}

/**
 * A failure as kept and shown: one line, its control characters written out (a receiver's
 * or a mail server's answer is the web's text: a NUL in it could not be stored, and an
 * escape sequence would recolour the terminal that prints it).
 */
const said = (error: unknown) => visibleControls(oneLine(error));

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
    await retryLater(said(error), retryAt);
    deps.onFailed?.(delivery, error, retryAt);
    return 'failed';
  }
  await deps.markSent(delivery.id, deps.now());
  deps.onSent?.(delivery);
  return 'sent';
}

/** One attempt at one notification, as its delivery job names it. */
export interface DeliveryAttempt {
  readonly outboxId: number;
  readonly attempt: number;
}

export interface DeliveryJobDeps extends Sending {
  /** The notification, if it is unsent and at this attempt; null when there is nothing to do. */
  claim(job: DeliveryAttempt): Promise<Delivery | null>;
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
  const delivery = await deps.claim(job);
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
 * Works the delivery queue until no attempt due when it starts is left (the one-shot
 * commands, when they queued notifications): each job as the daemon runs it; a channel's
 * failure queues the next attempt for later, so this ends. The store failing fails the job
 * for the engine to retry, and ends the run.
 */
export async function deliverDueJobs(
  jobs: Pick<JobQueue, 'fetch' | 'complete' | 'fail'>,
  deps: DeliveryJobDeps,
): Promise<DeliveryReport> {
  let sent = 0;
  let failed = 0;
  let error: string | undefined;
  const counting: DeliveryJobDeps = {
    ...deps,
    onFailed: (delivery, cause, retryAt) => {
      error ??= said(cause);
      deps.onFailed?.(delivery, cause, retryAt);
    },
  };
  // What is due when the run starts: a retry that falls due meanwhile waits for later.
  const dueBy = deps.now();
  for (;;) {
    const due = await jobs.fetch<DeliveryAttempt>('deliver', DELIVERIES_AT_ONCE, dueBy);
    if (due.length === 0) break;
    const outcomes = await deliverInOrder(counting, due);
    let broken: Error | undefined;
    for (const [i, outcome] of outcomes.entries()) {
      const job = due[i]!;
      if (outcome.status === 'fulfilled') {
        if (outcome.value === 'sent') sent++;
        else if (outcome.value === 'failed') failed++;
        await jobs.complete('deliver', job.id);
      } else {
        broken ??=
          outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
        await jobs.fail('deliver', job.id, said(outcome.reason)).catch(() => undefined);
      }
    }
    if (broken !== undefined) throw broken;
  }
  return { sent, failed, ...(error === undefined ? {} : { error }) };
}

type Outcome = PromiseSettledResult<'sent' | 'failed' | 'nothing'>;

/**
 * Claims the jobs' notifications, then sends each destination's in the order they were
 * recorded (an outage's alert before its recovery's), destinations at once. The outcomes
 * are the jobs', in their order.
 */
async function deliverInOrder(
  deps: DeliveryJobDeps,
  due: readonly { readonly data: DeliveryAttempt }[],
): Promise<Outcome[]> {
  const claims = await Promise.allSettled(due.map((job) => deps.claim(job.data)));
  const outcomes: Outcome[] = claims.map((claim) =>
    claim.status === 'rejected' ? claim : { status: 'fulfilled', value: 'nothing' },
  );
  const lanes = new Map<string, { index: number; delivery: Delivery }[]>();
  for (const [index, claim] of claims.entries()) {
    if (claim.status !== 'fulfilled' || claim.value === null) continue;
    const key = `${claim.value.channel} ${claim.value.destination}`;
    let lane = lanes.get(key);
    if (lane === undefined) lanes.set(key, (lane = []));
    lane.push({ index, delivery: claim.value });
  }
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      lane.sort((a, b) => a.delivery.id - b.delivery.id);
      for (const { index, delivery } of lane)
        try {
          outcomes[index] = {
            status: 'fulfilled',
            value: await sendOne(deps, delivery, (error, at) =>
              deps.retryLater(delivery, error, at),
            ),
          };
        } catch (reason) {
          outcomes[index] = { status: 'rejected', reason };
        }
    }),
  );
  return outcomes;
}

/** Notifications a one-shot command sends at once. */
const DELIVERIES_AT_ONCE = 20;
