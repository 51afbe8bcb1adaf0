import type { DeliveryReport } from '../monitor/delivery/deliver.js';

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
