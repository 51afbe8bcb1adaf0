import type { Config } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { CheckOutcome } from '../monitor/check-site.js';
import { checkSites } from '../monitor/check-sites.js';
import type { CheckDeps } from '../monitor/ports.js';
import type { Database } from '../store/db.js';
import { createWebStore } from '../store/index.js';
import { createApp } from '../web/app.js';
import type { CliContext, Listener } from './context.js';

/** Reports a check to the metrics: its access, how long it took, the events it found. */
export function observeCheck(metrics: Metrics, outcome: CheckOutcome): void {
  metrics.observeCheck({
    access: outcome.status.access,
    durationMs: outcome.durationMs,
    eventTypes: outcome.events.map((e) => e.type),
  });
}

/** Starts the web UI and API on web.listen, for `serve` and `start`. */
export async function startWeb(
  context: CliContext,
  config: Config,
  parts: {
    readonly db: Database;
    readonly check: CheckDeps;
    readonly logger: Logger;
    readonly metrics: Metrics;
    readonly scheduler?: { lastTick(): Date | null };
  },
): Promise<Listener> {
  const app = createApp({
    config,
    store: createWebStore(parts.db),
    checkNow: async (site) => {
      let outcome: CheckOutcome | undefined;
      const summary = await checkSites(parts.check, [site], {
        concurrency: 1,
        onOutcome: (o) => (outcome = o),
      });
      const failure = summary.failures[0];
      if (failure !== undefined || outcome === undefined)
        throw new Error(`${site.origin} could not be checked: ${failure?.reason ?? 'no outcome'}`);
      observeCheck(parts.metrics, outcome);
      parts.logger.info(
        { site: site.origin, snapshot: outcome.snapshotId },
        `checked from the web: ${outcome.kind}`,
      );
      return outcome;
    },
    metrics: parts.metrics,
    logger: parts.logger,
    now: () => context.now(),
    ...(parts.scheduler === undefined ? {} : { scheduler: parts.scheduler }),
  });
  const listener = await context.listen(app, config.web);
  parts.logger.info(
    { url: listener.url, token: config.web.token === undefined ? 'none (read-only)' : 'required' },
    'web listening',
  );
  return listener;
}
