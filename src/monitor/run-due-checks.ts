import type { SiteConfig } from '../config/config.js';
import { oneLine } from '../lib/errors.js';
import type { CheckDeps, RunStore } from './ports.js';
import type { PlannedRun } from './records.js';
import { checkSiteAgainIfMoved } from './check-sites.js';
import type { CheckOutcome } from './check-site.js';
import { dueAt, periodAt } from './periods.js';

/**
 * Plans each site's run in the period of its schedule that `now` falls in (idempotent).
 * Sites never checked (`baseline`) are due within a minute, whatever their schedule; a
 * run already planned later for one of them is brought forward. Returns the plan.
 */
export async function planChecks(
  runs: RunStore,
  sites: readonly {
    readonly id: number;
    readonly config: SiteConfig;
    readonly baseline?: boolean;
  }[],
  timezone: string,
  now: Date,
): Promise<PlannedRun[]> {
  const plan = sites.map(({ id, config, baseline }) => {
    const period = periodAt(config.schedule, timezone, now);
    return {
      siteId: id,
      periodStart: period.start,
      periodEnd: period.end,
      dueAt: dueAt(config.origin, period, now, baseline === true),
    };
  });
  await runs.plan(plan, now);
  return plan;
}

/** After an internal failure, the run is due again this much later: 1, 2, 4… minutes, at most an hour. */
export function internalRetryDelay(attempts: number): number {
  return Math.min(60_000 * 2 ** attempts, 3_600_000);
}

export interface DueOptions {
  /** Runs leased at once. */
  readonly limit: number;
  readonly onOutcome?: (outcome: CheckOutcome) => void;
  readonly onFailure?: (site: string, error: unknown, retryAt: Date) => void;
}

/**
 * Leases the runs due now and checks their sites; a run whose check failed for an
 * internal reason (the store, a defect) is due again later in its period. Returns how
 * many runs it leased.
 */
export async function runDueChecks(
  deps: CheckDeps,
  runs: RunStore,
  sites: ReadonlyMap<number, SiteConfig>,
  options: DueOptions,
): Promise<number> {
  const leased = await runs.lease(deps.now(), options.limit);
  if (leased.length === 0) return 0;
  const configs = leased
    .map((run) => sites.get(run.siteId))
    .filter((c): c is SiteConfig => c !== undefined);
  const stored = new Map(
    (await deps.store.loadSites(configs.map((c) => c.origin))).map((s) => [s.origin, s]),
  );
  await Promise.all(
    leased.map(async (run) => {
      const config = sites.get(run.siteId);
      const site = config === undefined ? undefined : stored.get(config.origin);
      if (config === undefined || site === undefined) {
        await runs.finish(run, deps.now()); // no longer configured
        return;
      }
      try {
        const { outcome } = await checkSiteAgainIfMoved(deps, config, site);
        await runs.finish(run, deps.now());
        options.onOutcome?.(outcome);
      } catch (error) {
        const retryAt = new Date(deps.now().getTime() + internalRetryDelay(run.attempts));
        await runs.retry(run, oneLine(error), retryAt);
        options.onFailure?.(config.origin, error, retryAt);
      }
    }),
  );
  return leased.length;
}
