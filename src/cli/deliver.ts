import type { Config } from '../config/config.js';
import { oneLine } from '../lib/errors.js';
import { deliverDue } from '../monitor/deliver-outbox.js';
import { createDaemonStore } from '../store/index.js';
import type { Database } from '../store/db.js';
import type { CliContext } from './context.js';

export interface DeliveryReport {
  readonly sent: number;
  readonly failed: number;
  /** Why the first failure failed. */
  readonly error?: string;
}

/**
 * How long a one-shot command holds what it leases (it does not renew): longer than a
 * delivery may take; if it crashes, the daemon takes its rows over after that.
 */
export const ONE_SHOT_LEASE_MS = 120_000;

/**
 * Sends what the outbox holds that is due now, for the one-shot commands (`check`,
 * `digest --send`). A failure stays queued with its backoff, for the daemon or the next
 * command to retry; the outbox's leases keep a running daemon from sending it too.
 */
export async function deliverQueued(
  context: CliContext,
  config: Config,
  db: Database,
): Promise<DeliveryReport> {
  const store = createDaemonStore(db, context.owner, ONE_SHOT_LEASE_MS);
  const notifiers = context.createChannels(config, (id) => store.digests.loadDigest(id));
  let sent = 0;
  let failed = 0;
  let error: string | undefined;
  try {
    for (;;) {
      const round = await deliverDue(
        {
          ...store.outbox,
          channels: notifiers.channels,
          now: () => context.now(),
          retry: config.notify.retry,
          onFailed: (_delivery, cause) => (error ??= oneLine(cause)),
        },
        20,
      );
      sent += round.sent;
      failed += round.failed;
      // A failed row is due again only after its backoff, so this ends.
      if (round.leased === 0) break;
    }
  } finally {
    await notifiers.close();
  }
  return { sent, failed, ...(error === undefined ? {} : { error }) };
}

/** "2 notifications sent", and the first failure's cause, for a command's last lines. */
export function describeDelivery(report: DeliveryReport): { sent: string; failed?: string } {
  const plural = (n: number) => `${n} notification${n === 1 ? '' : 's'}`;
  return {
    sent: `${plural(report.sent)} sent`,
    ...(report.failed === 0
      ? {}
      : {
          failed:
            `${plural(report.failed)} could not be sent (${report.error ?? 'unknown error'}); ` +
            'queued for the daemon or the next run to retry',
        }),
  };
}
