import type { Config, FetchConfig } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import { loadConfig } from '../config/load.js';
import { FatalError } from '../lib/errors.js';
import type { Platform, StoreOptions } from '../compose.js';
import type { DatabaseHandle } from '../store/db.js';
import { DatabaseError } from '../store/db.js';
import type { CliIo } from './io.js';
import type { FetchResult } from '../policy/fetch-result.js';

/**
 * What commands get from main.ts: the streams, the environment, the platform (the
 * drivers only main.ts may create, and the clock) and the process's signals.
 */
export interface CliContext extends Platform {
  readonly io: CliIo;
  readonly version: string;
  /** The bundled build's name (config/load.ts), if this is one. */
  readonly build?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** This process's id (the daemon names itself by it in its data directory). */
  readonly pid: number;
  /** Resolves with the first SIGTERM or SIGINT. */
  waitForSignal(): Promise<string>;
  /** Calls `listener` on each SIGHUP (the configuration reload); returns what stops it. */
  onHangup(listener: () => void): () => void;
  /** Records that the daemon is alive, for `robowatch health`. */
  heartbeat(config: Config): void;
  /** When the daemon last recorded that it was alive, if ever. */
  lastHeartbeat(config: Config): Date | undefined;
  /**
   * The running daemon's address and local token, in a file of the data directory only
   * its owner can read: how commands reach a daemon that holds the embedded database.
   */
  readonly daemonFile: {
    write(config: Config, info: DaemonInfo): void;
    read(config: Config): DaemonInfo | undefined;
    remove(config: Config): void;
  };
  /**
   * What each process of this host that takes reloads (`start`, `serve`) records in its
   * data directory at its start (its version, when, the restart settings' fingerprints),
   * for `config check` to say what a reload of a file would apply; `list` skips a record
   * whose process no longer runs.
   */
  readonly runningFile: {
    write(config: Config, record: RunningDaemon): void;
    list(config: Config): RunningDaemon[];
    remove(config: Config): void;
  };
  /**
   * One site's live robots.txt, fetched as robowatch checks (its limits, its SSRF guard
   * unless `allowPrivateAddresses`), without a configuration: `eval --robots URL`.
   */
  fetchRobotsTxt(
    origin: string,
    allowPrivateAddresses: FetchConfig['allowPrivateAddresses'],
  ): Promise<FetchResult>;
  /** HTTP requests to the running daemon's API (the global fetch). */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

/** Where a running daemon serves its API, and the token its own commands use. */
export interface DaemonInfo {
  readonly pid: number;
  readonly url: string;
  readonly token: string;
}

/**
 * A daemon (or `serve`) of this host as it recorded itself at its start
 * (CliContext.runningFile).
 */
export interface RunningDaemon {
  readonly pid: number;
  /** The command it runs: each reloads its configuration on SIGHUP. */
  readonly command: 'start' | 'serve' | 'demo';
  readonly version: string;
  /** ISO 8601. */
  readonly startedAt: string;
  /** restartFingerprints of the configuration it started with. */
  readonly restartSettings: Readonly<Record<string, string>>;
}

/** Loads the configuration (--config, ROBOWATCH_CONFIG, default); bad config is fatal. */
export async function readConfig(context: CliContext, path: string | undefined): Promise<Config> {
  try {
    return await loadConfig({
      path,
      cwd: context.cwd,
      env: context.env,
      version: context.version,
      build: context.build,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new FatalError(error.message);
    throw error;
  }
}

/**
 * How a command that runs and exits uses PostgreSQL: one connection, its statements in
 * turn. The pool of ten a daemon or web process keeps is for requests that come at once;
 * a command's reads that overlapped (a history, a digest's recipients) opened a second
 * connection and more, which a role allowed few (a managed database's, a pooler's) was
 * refused ("too many connections for role"). A check's reads and writes take turns on it
 * in larger batches, and PostgreSQL runs one backend for it instead of two: a changed
 * check of 3,000 sites, its backends a sixth to a fifth less CPU (docs/performance.md,
 * fifty-third round). The embedded database has one connection anyway.
 */
export const ONE_CONNECTION: StoreOptions = Object.freeze({ connections: 1 });

/**
 * Opens the database for a configuration (`store`: ONE_CONNECTION for a command that runs
 * and exits; the pool of ten for a daemon or web process); an unreachable database is fatal.
 */
export async function openStore(
  context: CliContext,
  config: Config,
  store?: StoreOptions,
): Promise<DatabaseHandle> {
  try {
    return await context.openStore(config, store);
  } catch (error) {
    if (error instanceof DatabaseError) throw new FatalError(error.message);
    throw error;
  }
}

/** Opens the store (one connection), runs `use`, and closes the store whatever happens. */
export async function withStore<T>(
  context: CliContext,
  config: Config,
  use: (store: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const handle = await openStore(context, config, ONE_CONNECTION);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/**
 * The origin a command line names, as configurations spell origins: "example.com" is
 * https://example.com (as people type it), "http://…" stays http.
 */
export function originOf(value: string): string | undefined {
  return originsOf(value)[0];
}

/**
 * The origins a command line may name, most likely first: as written, or, without a
 * scheme, https then http ("example.com" is https://example.com unless only
 * http://example.com is watched). None: not a site origin.
 */
export function originsOf(value: string): string[] {
  const text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const origin = webOrigin(text);
    return origin === undefined ? [] : [origin];
  }
  const secure = webOrigin(`https://${text}`);
  const plain = webOrigin(`http://${text}`);
  return secure === undefined || plain === undefined ? [] : [secure, plain];
}

function webOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
}

/** What `known` finds for the first of `origins` (originsOf's, most likely first) it knows. */
export function firstOf<T>(
  origins: readonly string[],
  known: (origin: string) => T | undefined,
): T | undefined {
  for (const origin of origins) {
    const found = known(origin);
    if (found !== undefined) return found;
  }
  return undefined;
}
