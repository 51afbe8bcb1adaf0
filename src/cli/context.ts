import type { Config } from '../config/config.js';
import type { WebConfig } from '../config/web.js';
import { ConfigError } from '../config/config.js';
import { loadConfig } from '../config/load.js';
import type { RobotsFetcher } from '../fetch/robots-fetcher.js';
import type { Logger } from '../lib/logger.js';
import type { RenderedEmail } from '../notify/render-alert.js';
import type { Channel, Delivery } from '../policy/alerts.js';
import { FatalError } from '../lib/errors.js';
import type { CheckDeps } from '../monitor/ports.js';
import type { Database, DatabaseHandle } from '../store/db.js';
import { createCheckStore } from '../store/index.js';
import { DatabaseError } from '../store/db.js';
import type { CliIo } from './io.js';

/**
 * What commands get from main.ts: the streams, the environment, and factories for the
 * things only main.ts may create (database pools, HTTP agents), plus the clock.
 */
export interface CliContext {
  readonly io: CliIo;
  readonly version: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  openStore(config: Config): Promise<DatabaseHandle>;
  createFetcher(config: Config): RobotsFetcher;
  /** The notification channels the configuration sets up (email needs notify.email). */
  createChannels(
    config: Config,
    loadDigest: (id: number) => Promise<RenderedEmail | undefined>,
  ): Channels;
  /** Structured logs for the daemon (JSON lines on stdout). */
  createLogger(): Logger;
  /** Resolves with the first SIGTERM or SIGINT. */
  waitForSignal(): Promise<string>;
  /** Records that the daemon is alive, for `robowatch health`. */
  heartbeat(config: Config): void;
  /** When the daemon last recorded that it was alive, if ever. */
  lastHeartbeat(config: Config): Date | undefined;
  /**
   * Serves an app (the web UI) on web.listen; resolves once listening, with its URL.
   * A port that cannot be had is fatal, with a message that says so.
   */
  listen(app: FetchApp, web: WebConfig): Promise<Listener>;
  /** Identifies this process in leases: host and pid. */
  readonly owner: string;
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Anything that answers a Request with a Response (a Hono app). */
export interface FetchApp {
  readonly fetch: (request: Request) => Response | Promise<Response>;
}

export interface Listener {
  readonly url: string;
  close(): Promise<void>;
}

export interface Channels {
  readonly channels: Partial<Record<Delivery['channel'], Channel>>;
  close(): Promise<void>;
}

/** Loads the configuration (--config, ROBOWATCH_CONFIG, default); bad config is fatal. */
/** What checking a site needs, wired to this process's clock, database and fetcher. */
export function checkDepsOf(
  context: CliContext,
  config: Config,
  db: Database,
  fetcher: RobotsFetcher,
): CheckDeps {
  return {
    fetchRobots: (origin) => fetcher.fetchRobots(origin),
    store: createCheckStore(db),
    now: () => context.now(),
    sleep: (ms) => context.sleep(ms),
    confirmRetries: config.fetch.confirmRetries,
    confirmDelayMs: config.fetch.confirmDelayMs,
  };
}

export async function readConfig(context: CliContext, path: string | undefined): Promise<Config> {
  try {
    return await loadConfig({ path, cwd: context.cwd, env: context.env, version: context.version });
  } catch (error) {
    if (error instanceof ConfigError) throw new FatalError(error.message);
    throw error;
  }
}

/** Opens the database for a configuration; an unreachable database is fatal. */
export async function openStore(context: CliContext, config: Config): Promise<DatabaseHandle> {
  try {
    return await context.openStore(config);
  } catch (error) {
    if (error instanceof DatabaseError) throw new FatalError(error.message);
    throw error;
  }
}

/** Opens the store, runs `use`, and closes the store whatever happens. */
export async function withStore<T>(
  context: CliContext,
  config: Config,
  use: (store: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const handle = await openStore(context, config);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** The origin a command line names, as configurations spell origins. */
export function originOf(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
}
