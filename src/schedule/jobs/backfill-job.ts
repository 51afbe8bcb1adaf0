/**
 * A slice of a site's history from the Internet Archive (about ten minutes of spaced
 * requests); when there is more, the next slice is queued, so that a job stays within its
 * lease and the site's page shows the history as it grows.
 */
import { jobId } from '../../lib/job-id.js';
import { backfillSite, readBackfillOptions } from '../../monitor/archive/backfill.js';
import type { BackfillJob, Job, NewJob } from '../../monitor/ports.js';

export type { BackfillJob };
import type { DaemonContext, JobKind } from '../job-kind.js';

/** A backfill job: its id from `name` (queued once per name), one waiting per site. */
export function backfillJob(job: BackfillJob, name: string): NewJob<BackfillJob> {
  return { id: jobId(`backfill:${name}`), data: job, singletonKey: `site:${job.siteId}` };
}

export function backfillJobKind(
  context: DaemonContext,
  queueBackfill: (job: BackfillJob) => Promise<void>,
): JobKind<BackfillJob> {
  const { deps, events } = context;
  return {
    queue: 'backfill',
    concurrency: 1,
    describe: (job) =>
      `loading the history of ${deps.catalog.get(job.data.siteId)?.site.origin ?? `site ${job.data.siteId}`} from the Internet Archive`,
    async handle(job: Job<BackfillJob>) {
      const entry = deps.catalog.get(job.data.siteId);
      if (deps.backfill === undefined || entry === undefined) return;
      const perMinute = deps.config.archive.requestsPerMinute;
      const outcome = await backfillSite(deps.backfill, entry.site, job.data.siteId, {
        ...readBackfillOptions(job.data),
        limit: perMinute === 0 ? 1000 : Math.max(20, perMinute * 10),
      });
      events.emit('backfill:done', { outcome });
      if (outcome.more && !context.stopping.aborted) await queueBackfill(job.data);
    },
  };
}
