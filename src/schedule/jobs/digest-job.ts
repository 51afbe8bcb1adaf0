/** A digest fire: each recipient's digest of the period that ends with it. */
import type { Job } from '../../monitor/ports.js';
import { periodEndingAt } from '../../policy/periods.js';
import { prepareDigests } from '../../monitor/delivery/digests.js';
import type { DaemonContext, JobKind } from '../job-kind.js';

export function digestJobKind(context: DaemonContext): JobKind<{ fire: string }> {
  const { deps, events } = context;
  return {
    queue: 'digest',
    concurrency: 1,
    describe: () => 'digest',
    async handle(job: Job<{ fire: string }>) {
      // The period runs from the previous fire to this one, so that every process names it
      // alike and consecutive digests neither overlap nor leave a gap.
      const { timezone } = deps.config.schedule;
      const { digest } = deps.catalog.file.schedule;
      const period = periodEndingAt(digest, timezone, new Date(job.data.fire));
      const digests = await prepareDigests(deps.digests, deps.catalog.config, period, {
        record: true,
      });
      for (const d of digests)
        events.emit('digest:queued', { recipient: d.recipient, digest: d.id });
      context.wake('deliver');
    },
  };
}
