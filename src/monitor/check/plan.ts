import type { SiteConfig } from '../../config/config.js';
import { jobId } from '../../lib/job-id.js';
import type { CheckDeps, Job, JobQueue, NewJob } from '../ports.js';
import { checkSiteAgainIfMoved } from './batch.js';
import type { CheckOutcome } from './site.js';
import { dueAt, periodAt } from '../../policy/periods.js';
import type { Period } from '../../policy/periods.js';

/** A site's check in one period of its schedule. */
export interface CheckJob {
  readonly siteId: number;
  readonly periodStart: string;
  readonly periodEnd: string;
}

/** The planning of one period of a check schedule. */
export interface PlanJob {
  readonly schedule: string;
  /** A time inside the period (its fire). */
  readonly at: string;
}

/** One period's planning is one job, whichever process asks for it. */
export function planJob(schedule: string, period: Period): NewJob<PlanJob> {
  return {
    id: jobId(`plan:${schedule}:${period.start.toISOString()}`),
    data: { schedule, at: period.start.toISOString() },
  };
}

/**
 * The check jobs of these sites in `period`: each at the site's stable place in the
 * period (spread over what is left of it when planned late), named by site and period
 * and keyed by site, so that a period's check is queued once and a site whose check
 * still waits from an earlier period is not queued twice. A site never checked
 * (`first`) is due within seconds: its first check is its period's check.
 */
export function checkJobs(
  sites: readonly { readonly id: number; readonly config: SiteConfig; readonly first?: boolean }[],
  period: (site: SiteConfig) => Period,
  now: Date,
): NewJob<CheckJob>[] {
  return sites.map(({ id, config, first }) => {
    const p = period(config);
    const periodStart = p.start.toISOString();
    return {
      id: jobId(`check:${id}:${periodStart}`),
      data: { siteId: id, periodStart, periodEnd: p.end.toISOString() },
      startAfter: dueAt(config.origin, p, now, first === true),
      singletonKey: String(id),
    };
  });
}

/** What planning a period did: checks queued, and the sites skipped because their check still waits. */
export interface PlanResult {
  readonly period: Period;
  readonly planned: NewJob<CheckJob>[];
  readonly skipped: readonly SiteConfig[];
}

/**
 * Plans one period of a schedule: queues each site's check (idempotent: a check already
 * queued keeps its place). A site whose check from an earlier period has not started
 * yet is skipped this period: that check, the oldest waiting, runs first, so that under
 * overload sites take turns instead of the same ones starving.
 */
export async function planPeriod(
  jobs: JobQueue,
  sites: readonly { readonly id: number; readonly config: SiteConfig }[],
  schedule: string,
  timezone: string,
  at: Date,
  now: Date,
): Promise<PlanResult> {
  const period = periodAt(schedule, timezone, at);
  const planned = checkJobs(sites, () => period, now);
  await jobs.send('check', planned);
  const queued = await jobs.existing(
    'check',
    planned.map((j) => j.id),
  );
  const byId = new Map(sites.map((s) => [s.id, s.config]));
  const skipped = planned.filter((j) => !queued.has(j.id)).map((j) => byId.get(j.data.siteId)!);
  return { period, planned: planned.filter((j) => queued.has(j.id)), skipped };
}

/** How a check job ended: its outcome, and whether it ran after its period had ended. */
export interface CheckJobResult {
  readonly outcome: CheckOutcome | null;
  readonly late: boolean;
}

/**
 * Runs one check job. A site no longer configured is left alone; any other failure
 * throws, for the engine to retry the job.
 */
export async function runCheckJob(
  deps: CheckDeps,
  sites: ReadonlyMap<number, SiteConfig>,
  job: Job<CheckJob>,
): Promise<CheckJobResult> {
  const config = sites.get(job.data.siteId);
  if (config === undefined) return { outcome: null, late: false };
  const [site] = await deps.store.loadSites([config.origin]);
  if (site === undefined) return { outcome: null, late: false };
  const late = deps.now().getTime() >= Date.parse(job.data.periodEnd);
  const { outcome } = await checkSiteAgainIfMoved(deps, config, site);
  return { outcome, late };
}
