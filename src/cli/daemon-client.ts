/**
 * Commands beside a running daemon: the embedded database is one process's, so while a
 * daemon holds it, `history`, `diff`, `digest --print` and `check` ask that daemon over
 * its local API instead (the address and token it wrote to its data directory).
 */
import type { Config } from '../config/config.js';
import { FatalError } from '../lib/errors.js';
import type { DatabaseHandle } from '../store/db.js';
import { DatabaseError, DatabaseInUseError } from '../store/db.js';
import type { CliContext, DaemonInfo } from './context.js';

/** The running daemon's API, as the commands use it. */
export class DaemonClient {
  constructor(
    private readonly context: CliContext,
    readonly info: DaemonInfo,
  ) {}

  async get<T>(path: string): Promise<T> {
    return this.#request<T>('GET', path);
  }

  async post<T>(path: string, body?: unknown): Promise<T> {
    return this.#request<T>('POST', path, body);
  }

  async #request<T>(method: string, path: string, json?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await this.context.fetch(`${this.info.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.info.token}`,
          accept: 'application/json',
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    } catch (error) {
      throw new FatalError(
        `the daemon (process ${this.info.pid}) holds the embedded database but does not answer at ${this.info.url}: ${(error as Error).message}`,
      );
    }
    const body = (await response.json().catch(() => null)) as
      (T & { error?: { message?: string } }) | null;
    if (!response.ok)
      throw new DaemonError(
        response.status,
        body?.error?.message ?? `the daemon answered ${response.status}`,
      );
    return body as T;
  }
}

/** The daemon answered with an error: its status and one-line message. */
export class DaemonError extends FatalError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Opens the database; if a running daemon holds the embedded one, a client of that
 * daemon instead. A daemon that serves no API (`--no-web`) leaves a clear error.
 */
export async function openStoreOrDaemon(
  context: CliContext,
  config: Config,
): Promise<{ readonly handle: DatabaseHandle } | { readonly daemon: DaemonClient }> {
  try {
    return { handle: await context.openStore(config) };
  } catch (error) {
    if (error instanceof DatabaseInUseError) {
      const info = context.daemonFile.read(config);
      if (info !== undefined && info.pid === error.pid)
        return { daemon: new DaemonClient(context, info) };
      throw new FatalError(
        `${error.message} (only a daemon started with its web UI can answer this command for it; this one does not)`,
      );
    }
    if (error instanceof DatabaseError) throw new FatalError(error.message);
    throw error;
  }
}

/**
 * Runs `local` over the database, or `remote` against the daemon that holds it; closes
 * the database either way.
 */
export async function withStoreOrDaemon<T>(
  context: CliContext,
  config: Config,
  local: (handle: DatabaseHandle) => Promise<T>,
  remote: (daemon: DaemonClient) => Promise<T>,
): Promise<T> {
  const opened = await openStoreOrDaemon(context, config);
  if ('daemon' in opened) return remote(opened.daemon);
  try {
    return await local(opened.handle);
  } finally {
    await opened.handle.close();
  }
}

/** A site as the running daemon's API lists it. */
export interface DaemonSite {
  readonly id: number;
  readonly origin: string;
  readonly paused: boolean;
  readonly agents: readonly string[];
}

/** Every site the running daemon watches (all pages of /api/v1/sites). */
export async function daemonSites(daemon: DaemonClient): Promise<DaemonSite[]> {
  const sites: DaemonSite[] = [];
  let next: string | null = '/api/v1/sites?limit=500';
  while (next !== null) {
    const page: { sites: DaemonSite[]; next: string | null } = await daemon.get(next);
    sites.push(...page.sites);
    next = page.next;
  }
  return sites;
}

/** A site's id at the daemon, by origin; a usage-style error if it has never been checked. */
export async function remoteSiteId(daemon: DaemonClient, origin: string): Promise<number> {
  const site = (await daemonSites(daemon)).find((s) => s.origin === origin);
  if (site === undefined)
    throw new FatalError(
      `${origin} is not a site of the running daemon's configuration (it holds the embedded database)`,
    );
  return site.id;
}
