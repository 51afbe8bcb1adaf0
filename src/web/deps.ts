import type { Config, SiteConfig } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { CheckOutcome } from '../monitor/check-site.js';
import type { ReadStore } from '../monitor/ports.js';

/** What the web app is given by main.ts (through the CLI): no driver, no listener. */
export interface WebDeps {
  readonly config: Config;
  readonly store: ReadStore;
  /** Checks a configured site now: the "Check now" button and POST /api/v1/sites/:id/check. */
  checkNow(site: SiteConfig): Promise<CheckOutcome>;
  readonly metrics: Metrics;
  readonly logger: Logger;
  now(): Date;
  /** The daemon in this process, under `robowatch start`; absent under `robowatch serve`. */
  readonly scheduler?: { lastTick(): Date | null };
}
