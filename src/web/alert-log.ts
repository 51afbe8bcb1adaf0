/**
 * The alert log as the API and the pages read it: entries with their subjects rendered,
 * and, for one entry, exactly what each delivery sent.
 */
import { HTTPException } from 'hono/http-exception';
import type { AlertLogEntry, AlertLogQuery } from '../monitor/records.js';
import type { RenderedDelivery } from '../monitor/documents/index.js';
import type { WebDeps } from './deps.js';

export interface LogEntry {
  readonly entry: AlertLogEntry;
  readonly subject: string;
}

/** A subject without rendering (a process that cannot render: tests' apps). */
function plainSubject(entry: AlertLogEntry): string {
  const { payload } = entry;
  if (payload.kind === 'digest') return entry.digestSubject ?? `digest ${payload.digestId}`;
  if (payload.kind === 'incident')
    return `${payload.site}: incident #${payload.incident.id} ${payload.incident.transition}`;
  return `${payload.site}: ${payload.kind}`;
}

async function subjectOf(deps: WebDeps, entry: AlertLogEntry): Promise<string> {
  if (entry.payload.kind === 'digest' && entry.digestSubject !== null) return entry.digestSubject;
  const first = entry.deliveries[0]!;
  if (deps.renderDelivery === undefined) return plainSubject(entry);
  return (await deps.renderDelivery(first, entry.createdAt)).subject;
}

/** Entries of the log, newest first, with their subjects. */
export async function readAlertLog(deps: WebDeps, query: AlertLogQuery): Promise<LogEntry[]> {
  const entries = await deps.store.listAlertLog(query);
  return Promise.all(
    entries.map(async (entry) => ({ entry, subject: await subjectOf(deps, entry) })),
  );
}

/**
 * One entry, with what each of its deliveries sent; 404 when there is none, or when it
 * is about a site (or, a digest, about every site) the person may not see.
 */
export async function readAlert(
  deps: WebDeps,
  id: number,
  sees: (siteId: number | null) => Promise<boolean>,
): Promise<LogEntry & { contents: Map<number, RenderedDelivery> }> {
  const [entry] = await deps.store.listAlertLog({ id, limit: 1 });
  if (entry === undefined || !(await sees(entry.siteId)))
    throw new HTTPException(404, { message: `there is no alert ${id}` });
  const contents = new Map<number, RenderedDelivery>();
  if (deps.renderDelivery !== undefined)
    for (const d of entry.deliveries)
      contents.set(d.id, await deps.renderDelivery(d, entry.createdAt));
  return { entry, subject: await subjectOf(deps, entry), contents };
}

/** `?channel=` and `?state=` as the log reads them, or a 400 naming what is wrong. */
export function logFilters(channel: string | undefined, state: string | undefined) {
  if (channel !== undefined && channel !== '' && channel !== 'email' && channel !== 'webhook')
    throw new HTTPException(400, {
      message: `channel must be email or webhook, not "${channel.slice(0, 40)}"`,
    });
  if (
    state !== undefined &&
    state !== '' &&
    state !== 'queued' &&
    state !== 'sent' &&
    state !== 'failed'
  )
    throw new HTTPException(400, {
      message: `state must be queued, sent or failed, not "${state.slice(0, 40)}"`,
    });
  return {
    ...(channel === undefined || channel === '' ? {} : { channel }),
    ...(state === undefined || state === '' ? {} : { state }),
  } as Pick<AlertLogQuery, 'channel' | 'state'>;
}
