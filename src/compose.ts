/**
 * The composition module: builds robowatch's use cases and services (checking, delivery,
 * digests, backfills) from the configuration and the drivers main.ts creates (the
 * platform). Commands ask it for what they run; nothing else wires. The web app, the
 * daemon, delivery's channels, backfills and accounts are wired beside it (compose-web.ts,
 * compose-daemon.ts, compose-delivery.ts, compose-backfill.ts, compose-accounts.ts), so
 * that a command that checks does not load the web server, the job engine, the
 * scheduler, the channels' renderers, the archive's client or the accounts' store.
 */
import { DEFAULT_DISCOVERY_LIMITS } from './monitor/check/discovery-limits.js';
import { CoverageThreads } from './monitor/threads/coverage-threads.js';
import type { Transporter } from 'nodemailer';
import type { RequestDispatcher } from './fetch/lazy-agent.js';
import type { Config, SiteConfig } from './config/config.js';
import { webBaseUrl } from './config/web.js';
import type { WebConfig } from './config/web.js';
import type { RobotsFetcher } from './fetch/robots-fetcher.js';
import { oneLine } from './lib/errors.js';
import type { Logger } from './lib/logger.js';
import type { Metrics } from './lib/metrics.js';
import type { CheckOutcome } from './monitor/check/site.js';
import { checkNow, checkSites, SITES_PER_FETCH } from './monitor/check/batch.js';
import type { RunSummary } from './monitor/check/batch.js';
import type { DeliveryReport } from './monitor/delivery/deliver.js';
import type { CheckDeps } from './monitor/ports.js';
import { SiteCatalog } from './monitor/sites/catalog.js';
import type { RenderContext } from './notify/render-alert.js';
import { linksFrom } from './policy/links.js';
import type { Channel, Delivery } from './policy/alerts.js';
import type { Database, DatabaseHandle, SqlExecutor } from './store/db.js';
import type { JobEngine, JobEngineOptions } from './store/jobs.js';
import { hasDueJobs } from './store/job-schema.js';
import { createCheckStore, createCoverageStore, createSiteDirectory } from './store/check-store.js';

/** Anything that answers a Request with a Response (a Hono app). */
export interface FetchApp {
  readonly fetch: (request: Request) => Response | Promise<Response>;
}

export interface Listener {
  readonly url: string;
  close(): Promise<void>;
}

/** How a command uses its database. */
export interface StoreOptions {
  readonly connections?: number;
}

/**
 * What only main.ts creates: database handles, HTTP clients, SMTP transports, listeners,
 * the logger, the clock; and this process's name in its logs.
 */
export interface Platform {
  /** This process, in its logs: host and pid. */
  readonly owner: string;
  /**
   * Opens the configuration's database. `connections`: at most this many to PostgreSQL at
   * once (10 unless given; the embedded database has one).
   */
  openStore(config: Config, options?: StoreOptions): Promise<DatabaseHandle>;
  createFetcher(config: Config): RobotsFetcher;
  /** An SMTP transport for an smtp(s):// URL. */
  createMailTransport(smtpUrl: string): Transporter;
  /**
   * The HTTP client webhooks are posted with; `guard`: one that connects to public
   * addresses only (the SSRF guard's lookup; and this machine's too, with 'loopback'), for
   * webhooks the configuration file does not list.
   */
  createDispatcher(options?: { readonly guard?: false | 'loopback' }): RequestDispatcher;
  /** Structured logs for the daemon (JSON lines on stdout). */
  createLogger(): Logger;
  /**
   * Serves an app on web.listen; resolves once listening, with its URL. A port that
   * cannot be had is fatal, with a message that says so.
   */
  listen(app: FetchApp, web: WebConfig): Promise<Listener>;
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Starts the job engine (pg-boss) on a database: its tables, its queues, its maintenance. */
  startJobEngine(executor: SqlExecutor, options: JobEngineOptions): Promise<JobEngine>;
}

/**
 * What alerts and digests are rendered with: links to the web UI (web.publicUrl, else
 * where this process serves it once it does, else web.listen) and the time zone.
 */
export class Presentation {
  #served: string | undefined;

  constructor(private readonly config: Config) {}

  /** The web UI now listens here (links point here unless web.publicUrl says otherwise). */
  served(url: string): void {
    this.#served = url;
  }

  context(): RenderContext {
    return {
      links: linksFrom(webBaseUrl(this.config.web, this.#served)),
      timeZone: this.config.schedule.timezone,
    };
  }
}

/** The notification channels of a configuration, and how to let go of their connections. */
export interface Channels {
  readonly channels: Partial<Record<Delivery['channel'], Channel>>;
  close(): Promise<void>;
}

/** How long a stopping daemon waits for its in-flight checks and deliveries. */
export const STOP_DEADLINE_MS = 30_000;

/**
 * What checking a site needs, wired to this process's clock, database and fetcher. The
 * fetch settings are the start's; the flap window and the coverage thresholds are read
 * from `current` at each check, so that a reload of the file applies them.
 */
export function wireCheck(
  platform: Platform,
  config: Config,
  db: Database,
  fetcher: RobotsFetcher,
  current: () => Config = () => config,
): CheckDeps {
  return {
    fetchRobots: (origin) => fetcher.fetchRobots(origin),
    store: createCheckStore(db),
    now: () => platform.now(),
    sleep: (ms) => platform.sleep(ms),
    confirmRetries: config.fetch.confirmRetries,
    confirmDelayMs: config.fetch.confirmDelayMs,
    get flapWindowMs() {
      return current().notify.flapWindowMs;
    },
    coverage: {
      fetchDocument: (request) => fetcher.fetchDocument(request),
      store: createCoverageStore(db),
      now: () => platform.now(),
      limits: {
        ...DEFAULT_DISCOVERY_LIMITS,
        maxUrls: config.fetch.sitemapMaxUrls,
        timeoutMs: config.fetch.sitemapTimeoutMs,
      },
      get thresholds() {
        return current().notify.coverage;
      },
      computer: new CoverageThreads(),
    },
  };
}

/**
 * Sends the notifications due now, for the one-shot commands (`check`, `digest --send`):
 * their delivery jobs, worked through the job engine as the daemon works them. A failure
 * stays queued with its backoff, for the daemon or the next command to retry. A command
 * whose run queued none loads neither the channels nor the job engine.
 */
export async function deliverQueued(
  platform: Platform,
  config: Config,
  handle: DatabaseHandle,
): Promise<DeliveryReport> {
  if (!(await hasDueJobs(handle.executor, 'deliver', platform.now())))
    return { sent: 0, failed: 0 };
  const { sendDueDeliveries } = await import('./compose-delivery.js');
  return sendDueDeliveries(platform, config, handle);
}

/** Reports a check to the metrics: its access, how long it took, the events it found. */
export function observeCheck(metrics: Metrics, outcome: CheckOutcome): void {
  metrics.observeCheck({
    access: outcome.kind === 'refused' ? 'refused' : outcome.status.access,
    durationMs: outcome.durationMs,
    eventTypes: outcome.events.map((e) => e.type),
  });
}

/**
 * Checks many configured sites now, in this process, at `robowatch check`'s concurrency
 * (POST /api/v1/checks: the command beside a running daemon), each measured; `deliver`
 * wakes the delivery of the alerts a change queued.
 */
export function checkManyWith(
  check: CheckDeps,
  /** fetch.concurrency as the process started with it (fetch applies at the next start). */
  concurrency: number,
  metrics: Metrics,
  logger: Logger,
  deliver: () => void,
) {
  return (
    sites: readonly SiteConfig[],
    onOutcome: (outcome: CheckOutcome) => void,
    signal: AbortSignal,
  ): Promise<RunSummary> =>
    checkSites(check, sites, {
      concurrency: concurrency * SITES_PER_FETCH,
      signal,
      onOutcome: (outcome) => {
        observeCheck(metrics, outcome);
        // As the daemon's own checks: a change's alerts, or a refusal's, are queued.
        if (outcome.events.length > 0 || outcome.refused?.began === true) deliver();
        onOutcome(outcome);
      },
      onFailure: (site, error) => logger.error({ site, error: oneLine(error) }, 'not checked'),
    });
}

/** Checks one configured site now, for the web's "Check now", measured and logged. */
export function checkNowWith(check: CheckDeps, metrics: Metrics, logger: Logger) {
  return async (site: SiteConfig): Promise<CheckOutcome> => {
    const outcome = await checkNow(check, site);
    observeCheck(metrics, outcome);
    logger.info(
      { site: site.origin, snapshot: outcome.snapshotId },
      `checked from the web: ${outcome.kind}`,
    );
    return outcome;
  };
}

/** The watched sites: the configuration file's and those added in the UI or API. */
export function wireCatalog(platform: Platform, config: Config, db: Database): SiteCatalog {
  return new SiteCatalog(createSiteDirectory(db), config, () => platform.now());
}
