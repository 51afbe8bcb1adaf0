import type { Config } from '../config/config.js';
import { oneLine } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { longestPeriodMs } from '../policy/periods.js';
import { isConnectionError } from '../store/db.js';
import type { JobEngineOptions } from '../store/jobs.js';

/** The job engine's settings for a configuration (its errors logged when there is a logger). */
export function jobEngineOptions(
  config: Config,
  logger: Logger | undefined,
  now: Date,
): JobEngineOptions {
  const { leaseMs, retentionDays, timezone } = config.schedule;
  // A finished job's id keeps its work from being queued again while it is remembered:
  // twice the longest check period, so that a period is planned and checked once. (A
  // digest is recorded once per recipient and period, whatever its job.)
  const longest = Math.max(...checkSchedules(config).map((e) => longestPeriodMs(e, timezone, now)));
  return {
    leaseSeconds: Math.ceil(leaseMs / 1000),
    retentionDays,
    keepFinishedSeconds: Math.max(60, Math.ceil((2 * longest) / 1000)),
    maintenanceSeconds: Math.min(60, Math.max(1, Math.floor(leaseMs / 2000))),
    onError: (error) => {
      if (!isConnectionError(error))
        logger?.error({ component: 'pg-boss', error: oneLine(error) }, 'job engine error');
    },
  };
}

/** The distinct check schedules of a configuration: the default and each site's own. */
export function checkSchedules(config: Config): string[] {
  return [...new Set([config.schedule.check, ...config.sites.map((s) => s.schedule)])];
}
