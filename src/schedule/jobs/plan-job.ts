/** Planning a period of a check schedule: one check job per site, spread over the period. */
import type { Job } from '../../monitor/ports.js';
import { periodAt } from '../../policy/periods.js';
import { planPeriod } from '../../monitor/check/plan.js';
import type { PlanJob } from '../../monitor/check/plan.js';
import type { DaemonContext, JobKind } from '../job-kind.js';

/** Up to this many sites, a plan says where each one is due. */
const PLAN_LISTED = 50;

export function planJobKind(context: DaemonContext): JobKind<PlanJob> {
  const { deps, events } = context;
  return {
    queue: 'plan',
    concurrency: 1,
    describe: () => 'planning',
    async handle(job: Job<PlanJob>) {
      const { timezone } = deps.config.schedule;
      const now = deps.now();
      const period = periodAt(job.data.schedule, timezone, new Date(job.data.at));
      await deps.catalog.refresh(); // the period's sites as they are now, in any process
      if (period.end.getTime() <= now.getTime()) {
        events.emit('period:over', { schedule: job.data.schedule, period });
        return;
      }
      const sites = context.sites();
      const members = (context.bySchedule().get(job.data.schedule) ?? []).map((id) => ({
        id,
        config: sites.get(id)!,
      }));
      const plan = await planPeriod(
        deps.jobs,
        members,
        job.data.schedule,
        timezone,
        new Date(job.data.at),
        now,
      );
      // Folded, not spread into Math.min: a period may plan 150,000 sites.
      let first = Infinity;
      let last = -Infinity;
      for (const j of plan.planned) {
        first = Math.min(first, j.startAfter!.getTime());
        last = Math.max(last, j.startAfter!.getTime());
      }
      events.emit('period:planned', {
        schedule: job.data.schedule,
        period: plan.period,
        planned: plan.planned.length,
        firstDueAt: plan.planned.length > 0 ? new Date(first) : null,
        lastDueAt: plan.planned.length > 0 ? new Date(last) : null,
        plan: plan.planned.slice(0, PLAN_LISTED).map((j) => ({
          site: sites.get(j.data.siteId)!.origin,
          dueAt: j.startAfter!,
        })),
      });
      if (plan.skipped.length > 0)
        events.emit('check:skipped', {
          schedule: job.data.schedule,
          periodStart: plan.period.start,
          sites: plan.skipped.map((s) => s.origin),
        });
      context.wake('check');
    },
  };
}
