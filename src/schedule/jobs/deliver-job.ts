/** One attempt at one notification. */
import { oneLine } from '../../lib/errors.js';
import { deliverAttempt } from '../../monitor/delivery/deliver.js';
import type { DeliveryAttempt, DeliveryJobDeps } from '../../monitor/delivery/deliver.js';
import type { Job } from '../../monitor/ports.js';
import type { DaemonContext, JobKind } from '../job-kind.js';

export function deliverJobKind(context: DaemonContext): JobKind<DeliveryAttempt> {
  const { deps, events } = context;
  const sending: DeliveryJobDeps = {
    ...deps.deliver,
    // Read at each failure: a reload may have changed notify.retry.
    get retry() {
      return deps.deliver.retry;
    },
    now: () => deps.now(),
    onSent: (delivery) => events.emit('delivery:sent', { delivery }),
    onFailed: (delivery, error, retryAt) =>
      events.emit('delivery:failed', { delivery, error: oneLine(error), retryAt }),
  };
  return {
    queue: 'deliver',
    concurrency: 4,
    describe: () => 'notification',
    async handle(job: Job<DeliveryAttempt>) {
      await deliverAttempt(sending, job.data);
    },
  };
}
