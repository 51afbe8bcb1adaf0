/**
 * Commands beside a running daemon: the embedded database is one process's, so while a
 * daemon holds it, `history`, `diff`, `digest --print` and `check` ask that daemon over
 * its local API instead (the address and token it wrote to its data directory).
 */
import type { z } from 'zod';
import type { Config } from '../config/config.js';
import { FatalError } from '../lib/errors.js';
import type { SiteListDocument, SnapshotDocument } from '../monitor/documents/index.js';
import type { HistoryReads, Missing } from '../monitor/reads.js';
import type { SnapshotSummary, StoredChange } from '../monitor/records.js';
import type { ChangeCause } from '../policy/changes/cause-model.js';
import type { ChangeEvent } from '../policy/changes/events.js';
import { durationText } from '../policy/wording/format.js';
import type { DatabaseHandle } from '../store/db.js';
import { DatabaseError, DatabaseInUseError } from '../store/db.js';
import { ONE_CONNECTION } from './context.js';
import type { CliContext, DaemonInfo } from './context.js';
import type { StoreOptions } from '../compose.js';

/**
 * The API's documents, read with their schemas: loaded with the first answer read (zod
 * and the documents' schemas are compiled and built at every start otherwise, and a
 * command beside no daemon reads none).
 */
const documents = () => import('../monitor/documents/index.js');

/** The running daemon's API, as the commands use it. */
export class DaemonClient {
  constructor(
    private readonly context: CliContext,
    readonly info: DaemonInfo,
  ) {}

  /** A document of the daemon's API, read with its schema (a daemon of another version may differ). */
  async get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
    const body = await this.#request<unknown>('GET', path);
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new FatalError(
      `the daemon (process ${this.info.pid}) answered ${path.split('?')[0]} with a document this robowatch does not read (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}): is it another version?`,
    );
  }

  async post<T>(path: string, body?: unknown): Promise<T> {
    const response = await this.#send('POST', path, body);
    return (await this.#json(response)) as T;
  }

  /**
   * POSTs `body` and hands each line of the newline-delimited JSON answer, parsed, to
   * `onLine` as it arrives; an error answer throws as post's do.
   */
  async postLines(path: string, body: unknown, onLine: (value: unknown) => void): Promise<void> {
    const response = await this.#send('POST', path, body, 'application/x-ndjson');
    if (!response.ok || response.body === null) {
      await this.#json(response);
      return;
    }
    const decoder = new TextDecoder();
    let rest = '';
    const take = (text: string) => {
      rest += text;
      let end: number;
      while ((end = rest.indexOf('\n')) !== -1) {
        const line = rest.slice(0, end);
        rest = rest.slice(end + 1);
        if (line.trim() !== '') onLine(this.#parsed(path, line));
      }
    };
    const reader = response.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new FatalError(
          `the daemon (process ${this.info.pid}) broke off its answer to ${path}: ${(error as Error).message}`,
        );
      }
      if (chunk.done) break;
      take(decoder.decode(chunk.value as Uint8Array, { stream: true }));
    }
    take(`${decoder.decode()}\n`);
  }

  #parsed(path: string, line: string): unknown {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw new FatalError(
        `the daemon (process ${this.info.pid}) answered ${path} with a line that is not JSON: ${line.slice(0, 80)}`,
      );
    }
  }

  async #request<T>(method: string, path: string, json?: unknown): Promise<T> {
    return (await this.#json(await this.#send(method, path, json))) as T;
  }

  async #send(
    method: string,
    path: string,
    json: unknown,
    accept = 'application/json',
  ): Promise<Response> {
    try {
      return await this.context.fetch(`${this.info.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.info.token}`,
          accept,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    } catch (error) {
      throw new FatalError(
        `the daemon (process ${this.info.pid}) holds the embedded database but does not answer at ${this.info.url}: ${(error as Error).message}`,
      );
    }
  }

  /** An answer's JSON document; an error answer as a DaemonError with its one line. */
  async #json(response: Response): Promise<unknown> {
    const body = (await response.json().catch(() => null)) as {
      error?: { message?: string };
    } | null;
    if (!response.ok)
      throw new DaemonError(
        response.status,
        body?.error?.message ?? `the daemon answered ${response.status}`,
      );
    return body;
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
 * Opens the database (one connection: ONE_CONNECTION); if a running daemon holds the
 * embedded one, a client of that daemon instead. A daemon that serves no API (`--no-web`)
 * leaves a clear error.
 */
export async function openStoreOrDaemon(
  context: CliContext,
  config: Config,
  store: StoreOptions = ONE_CONNECTION,
): Promise<{ readonly handle: DatabaseHandle } | { readonly daemon: DaemonClient }> {
  try {
    return { handle: await context.openStore(config, store) };
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
  store: StoreOptions = ONE_CONNECTION,
): Promise<T> {
  const opened = await openStoreOrDaemon(context, config, store);
  if ('daemon' in opened) return remote(opened.daemon);
  try {
    return await local(opened.handle);
  } finally {
    await opened.handle.close();
  }
}

/** A site as the running daemon's API lists it. */
export type DaemonSite = z.output<typeof SiteListDocument>['sites'][number];

/**
 * Every site the running daemon watches (all pages of /api/v1/sites); those with a tag,
 * or in a state, when asked.
 */
export async function daemonSites(
  daemon: DaemonClient,
  only: { readonly tag?: string; readonly state?: string } = {},
): Promise<DaemonSite[]> {
  const sites: DaemonSite[] = [];
  const params = new URLSearchParams({ limit: '500' });
  for (const [key, value] of Object.entries(only)) if (value !== undefined) params.set(key, value);
  let next: string | null = `/api/v1/sites?${params.toString()}`;
  while (next !== null) {
    const { SiteListDocument } = await documents();
    const page: z.output<typeof SiteListDocument> = await daemon.get(next, SiteListDocument);
    sites.push(...page.sites);
    next = page.next;
  }
  return sites;
}

/** A snapshot as the API gives it, back as a summary (its instants as dates). */
export function fromDocument(s: SnapshotDocument): SnapshotSummary {
  return {
    ...s,
    firstSeen: new Date(s.firstSeen),
    lastSeen: new Date(s.lastSeen),
    cut: null,
  };
}

/** The history as the running daemon answers it: the same questions, over its API. */
export function daemonReads(daemon: DaemonClient): HistoryReads {
  // What the daemon's history does not hold is a 404 with the line that says so.
  const orMissing = async <T>(request: Promise<T>): Promise<T | Missing> => {
    try {
      return await request;
    } catch (error) {
      if (error instanceof DaemonError && error.status === 404) return { missing: error.message };
      throw error;
    }
  };
  const query = (values: Record<string, string | number | undefined>) => {
    const defined = Object.entries(values).flatMap(([k, v]): [string, string][] =>
      v === undefined ? [] : [[k, String(v)]],
    );
    return defined.length === 0 ? '' : `?${new URLSearchParams(defined).toString()}`;
  };
  return {
    site: async (origin) => {
      const site = (await daemonSites(daemon)).find((s) => s.origin === origin);
      return site === undefined
        ? undefined
        : {
            id: site.id,
            origin: site.origin,
            watching: { agents: site.agents, profile: site.profile },
          };
    },
    incidents: async ({ siteId, state, before, limit }) => {
      const { IncidentListDocument } = await documents();
      const page: z.output<typeof IncidentListDocument> = await daemon.get(
        `/api/v1/incidents${query({ site: siteId, state, before, limit })}`,
        IncidentListDocument,
      );
      return {
        incidents: page.incidents,
        before: page.next === null ? null : (page.incidents.at(-1)?.id ?? null),
      };
    },
    sites: async (only) => ({ sites: await daemonSites(daemon, only), unchecked: [] }),
    snapshots: async (siteId) => {
      const rows: SnapshotSummary[] = [];
      let next: string | null = `/api/v1/sites/${siteId}/snapshots?limit=500`;
      while (next !== null) {
        const { SnapshotListDocument } = await documents();
        const page: z.output<typeof SnapshotListDocument> = await daemon.get(
          next,
          SnapshotListDocument,
        );
        rows.push(...page.snapshots.map(fromDocument));
        next = page.next;
      }
      return rows;
    },
    changes: async (siteId) => {
      const rows: StoredChange[] = [];
      let next: string | null = `/api/v1/sites/${siteId}/changes?limit=500`;
      while (next !== null) {
        const { ChangesDocument } = await documents();
        const page: z.output<typeof ChangesDocument> = await daemon.get(next, ChangesDocument);
        for (const change of page.changes)
          rows.push({
            snapshotId: change.snapshotId,
            previousId: change.previousId,
            at: new Date(change.at),
            source: change.archived === true ? 'archive' : 'live',
            // The causes as policy/ made them (the API explains older states too).
            causes: change.causes as readonly ChangeCause[],
            events: [],
          });
        next = page.next;
      }
      return rows;
    },
    diff: async (site, pair) => {
      const { DiffDocument } = await documents();
      const answer = await orMissing(
        daemon.get(`/api/v1/sites/${site.id}/diff${query({ ...pair })}`, DiffDocument),
      );
      if ('missing' in answer)
        return { missing: answer.missing.replace(/^nothing to compare: /, '') };
      const { patchLines } = await import('../monitor/views/diff.js');
      return {
        from: fromDocument(answer.from),
        to: fromDocument(answer.to),
        // The events and causes as policy/ made them: their schemas name each variant's fields.
        events: answer.events as readonly ChangeEvent[],
        causes: answer.causes as readonly ChangeCause[],
        patch: patchLines(answer.patch),
        coverage: answer.coverage ?? undefined,
      };
    },
    coverage: async (site, snapshot) => {
      const { CoverageDocument } = await documents();
      return orMissing(
        daemon.get(`/api/v1/sites/${site.id}/coverage${query({ snapshot })}`, CoverageDocument),
      );
    },
    previewDigests: async (sinceMs, recipient) =>
      (
        await daemon.get(
          `/api/v1/digests/preview${query({ since: durationText(sinceMs), to: recipient })}`,
          (await documents()).DigestPreviewDocument,
        )
      ).digests,
    trends: async (options) =>
      (
        await daemon.get(
          `/api/v1/trends${query({
            by: options.by,
            weighted: options.weighted ? 1 : undefined,
            since: options.from?.toISOString().slice(0, 7),
          })}`,
          (await documents()).TrendsDocument,
        )
      ).trends,
  };
}
