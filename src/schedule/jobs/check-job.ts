/** A site's check of one period. */
import type { Job } from '../../monitor/ports.js';
import { runCheckJob } from '../../monitor/check/plan.js';
import type { CheckJob } from '../../monitor/check/plan.js';
import { SITES_PER_FETCH } from '../../monitor/check/batch.js';
import type { DaemonContext, JobKind } from '../job-kind.js';
import type { Config } from '../../config/config.js';
import { reachesAnyone } from '../../policy/alerts.js';
import type { AlertTargets } from '../../policy/alerts.js';
import type { CheckOutcome } from '../../monitor/check/site.js';
import { shortestPeriodMs } from '../../policy/periods.js';
import { checkSchedules } from '../engine-options.js';

/**
 * How long the checks falling due are gathered to start together, sharing their
 * statements and the process's busy moments: a fiftieth of the shortest check period,
 * from 100 ms to ten seconds. A check starts at most that late: a daily one ten seconds,
 * a five-second period's (the tests') a tenth of a second. At ten checks a second, five
 * seconds' checks started together cost the daemon half the CPU per check that one
 * second's did (docs/performance.md, the spread sweep); the pool takes at most its
 * concurrency at once, which ten seconds fill from 6.4 checks a second.
 */
export function checkGatherMs(config: Config, now: Date): number {
  const { timezone } = config.schedule;
  const shortest = Math.min(
    ...checkSchedules(config).map((e) => shortestPeriodMs(e, timezone, now)),
  );
  return Math.max(100, Math.min(MAX_GATHER_MS, Math.floor(shortest / 50)));
}

const MAX_GATHER_MS = 10_000;

/**
 * Whether a check may have queued notifications, for the delivery to look for them at
 * once: the site's alerts reach someone, and the check recorded a change, an incident's
 * transition or the start of a refusal. A site nobody hears of queues none: waking the
 * delivery for it was a statement that found nothing, about 3% of the daemon's changed
 * check (docs/performance.md).
 */
function mayHaveAlerted(outcome: CheckOutcome, targets: AlertTargets): boolean {
  return (
    reachesAnyone(targets) &&
    (outcome.events.length > 0 ||
      (outcome.judged !== undefined && outcome.judged.recorded.step !== 'none') ||
      outcome.refused?.began === true)
  );
}

export function checkJobKind(context: DaemonContext): JobKind<CheckJob> {
  const { deps, events } = context;
  return {
    queue: 'check',
    concurrency: deps.config.fetch.concurrency * SITES_PER_FETCH,
    gatherMs: checkGatherMs(deps.config, deps.now()),
    describe: (job) =>
      `check of ${context.sites().get(job.data.siteId)?.origin ?? `site ${job.data.siteId}`}`,
    async handle(job: Job<CheckJob>) {
      // A site added in another process moments ago: this one learns of it now.
      if (!context.sites().has(job.data.siteId)) await deps.catalog.fresh(1_000);
      const result = await runCheckJob(deps.check, context.sites(), job);
      const { outcome } = result;
      if (outcome === null) return;
      if (outcome.kind === 'refused') events.emit('check:refused', { outcome });
      else events.emit('check:done', { outcome, late: result.late, periodEnd: job.data.periodEnd });
      const site = context.sites().get(job.data.siteId);
      if (site !== undefined && mayHaveAlerted(outcome, site.alerts)) context.wake('deliver');
    },
  };
}
