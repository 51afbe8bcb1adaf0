/**
 * Acknowledging an incident, wherever a person does it (the incident's page, the API,
 * `robowatch incidents ack`): the note and who checked, the incident written with the
 * alerts its first acknowledgment queues (PagerDuty acknowledges its incident too), the
 * audit log told.
 */
import type { SiteConfig } from '../config/config.js';
import { unstorableText } from '../config/text.js';
import type { Logger } from '../lib/logger.js';
import type { Actor, AuditInput } from './records-accounts.js';
import { recordedIncidentAlerts } from './delivery/reminders.js';
import type { ReadStore } from './ports.js';
import type { IncidentHead, IncidentRecord } from './records.js';

/** The longest note and name an acknowledgment keeps. */
export const ACK_LIMITS = { note: 2000, by: 100 } as const;

/** An acknowledgment refused: no such incident (`missing`), or a note or name it cannot keep. */
export class AckRefused extends Error {
  constructor(
    readonly why: 'invalid' | 'missing',
    message: string,
  ) {
    super(message);
    this.name = 'AckRefused';
  }
}

export interface AckDeps {
  readonly store: Pick<ReadStore, 'acknowledgeIncident'>;
  /** The watched site of that id, as it runs now (its alert channels); undefined: none. */
  siteOf(siteId: number): SiteConfig | undefined;
  /** Records the change in the audit log (absent: no log is kept). */
  audit?(actor: Actor, entry: AuditInput): Promise<void>;
  /** Where the acknowledgment is logged (absent: a command says it itself). */
  readonly logger?: Logger;
  now(): Date;
}

/**
 * Acknowledges incident `id` with a note (a later acknowledgment replaces the note and
 * keeps the first time). Who is signed in acknowledges; a token or a command on this
 * machine may say on whose behalf (`by`).
 */
export async function acknowledgeIncident(
  deps: AckDeps,
  actor: Actor,
  id: number,
  ack: { readonly note: string; readonly by?: string | undefined },
): Promise<IncidentRecord> {
  const done = await write(deps, actor, id, ack, false);
  if (done === undefined) throw new AckRefused('missing', `there is no incident ${id}`);
  return done.incident;
}

/**
 * The acknowledgment written, logged and audited; with `waitingOnly`, only while the
 * incident is open and no one has acknowledged it (`written` says whether it was).
 */
async function write(
  deps: AckDeps,
  actor: Actor,
  id: number,
  ack: { readonly note: string; readonly by?: string | undefined },
  waitingOnly: boolean,
): Promise<{ incident: IncidentRecord; written: boolean } | undefined> {
  const { note, given } = kept(ack);
  const by = actor.userId === null ? (given ?? actor.name) : actor.name;
  const at = deps.now();
  const done = await deps.store.acknowledgeIncident(
    id,
    { by, note, at },
    (found) =>
      recordedIncidentAlerts(deps.siteOf(found.siteId), found, 'acknowledged', at, { by, note }),
    { waitingOnly },
  );
  if (done === undefined || !done.written) return done;
  const { incident } = done;
  deps.logger?.info({ incident: id, site: incident.origin, by }, 'incident acknowledged');
  await deps.audit?.(actor, {
    action: 'incident.ack',
    siteId: incident.siteId,
    target: `incident #${id} (${incident.origin})`,
    after: { by, note },
  });
  return done;
}

/** How many open incidents one read takes. */
const OPEN_PAGE = 500;

/**
 * The open incidents no one has acknowledged yet (of these sites, when given: a person
 * limited to some), the oldest first, and how many others are open (acknowledged already).
 */
export async function openIncidents(
  store: Pick<ReadStore, 'listIncidentHeads'>,
  scope: { readonly siteIds?: readonly number[] } = {},
): Promise<{ waiting: IncidentHead[]; skipped: number }> {
  const open: IncidentHead[] = [];
  let page: IncidentHead[];
  do {
    const before = open.at(-1)?.id;
    page = await store.listIncidentHeads({
      ...scope,
      state: 'open',
      limit: OPEN_PAGE,
      ...(before === undefined ? {} : { before }),
    });
    open.push(...page);
  } while (page.length === OPEN_PAGE);
  const waiting = open.filter((i) => i.acknowledgedAt === null).reverse();
  return { waiting, skipped: open.length - waiting.length };
}

/**
 * Acknowledges with one note every open incident no one has acknowledged yet (of these
 * sites, when given), the oldest first, as when one change reached many sites at once;
 * those acknowledged already keep their notes (`skipped` counts them).
 */
export async function acknowledgeOpen(
  deps: AckDeps & {
    readonly store: Pick<ReadStore, 'acknowledgeIncident' | 'listIncidentHeads'>;
  },
  actor: Actor,
  ack: { readonly note: string; readonly by?: string | undefined },
  scope: { readonly siteIds?: readonly number[] } = {},
): Promise<{ acked: IncidentRecord[]; skipped: number }> {
  kept(ack);
  const { waiting, skipped } = await openIncidents(deps.store, scope);
  const done = await acknowledgeEach(deps, actor, waiting, ack, { waitingOnly: true });
  return { acked: done.acked, skipped: skipped + done.taken };
}

/**
 * Acknowledges these incidents with one note, in turn: each its own transaction and its
 * own line in the audit log. One gone since it was read (its site deleted) is left out.
 * With `waitingOnly` (the open ones no one had acknowledged when they were read), so is
 * one resolved since, and one someone acknowledged since keeps their note (`taken` counts
 * those).
 */
export async function acknowledgeEach(
  deps: AckDeps,
  actor: Actor,
  incidents: readonly { readonly id: number }[],
  ack: { readonly note: string; readonly by?: string | undefined },
  options: { readonly waitingOnly?: boolean } = {},
): Promise<{ acked: IncidentRecord[]; taken: number }> {
  const acked: IncidentRecord[] = [];
  let taken = 0;
  for (const { id } of incidents) {
    const done = await write(deps, actor, id, ack, options.waitingOnly === true);
    if (done?.written === true) acked.push(done.incident);
    else if (done?.incident.state === 'open') taken++;
  }
  return { acked, taken };
}

/**
 * What an acknowledgment's note or name cannot be kept for, in a line ("note: must be at
 * most 2,000 characters"), or undefined: one check before several are acknowledged.
 */
export function ackProblem(ack: {
  readonly note: string;
  readonly by?: string | undefined;
}): string | undefined {
  try {
    kept(ack);
    return undefined;
  } catch (error) {
    if (error instanceof AckRefused) return error.message;
    throw error;
  }
}

/** The note and the name given, as kept; refused when they cannot be. */
function kept(ack: { readonly note: string; readonly by?: string | undefined }): {
  note: string;
  given: string | undefined;
} {
  const note = checked('note', ack.note, ACK_LIMITS.note);
  const given = ack.by === undefined ? undefined : checked('by', ack.by, ACK_LIMITS.by);
  if (note === undefined)
    throw new AckRefused('invalid', 'note: must say what is being done about it');
  return { note, given };
}

/** The text trimmed (undefined when nothing is left); refused when too long or unstorable. */
function checked(name: string, value: string, max: number): string | undefined {
  const text = value.trim();
  if (text.length > max)
    throw new AckRefused(
      'invalid',
      `${name}: must be at most ${max.toLocaleString('en')} characters`,
    );
  // Stored and sent as typed, so text PostgreSQL refuses is the sender's to mend.
  const problem = unstorableText(text);
  if (problem !== undefined) throw new AckRefused('invalid', `${name}: ${problem}`);
  return text === '' ? undefined : text;
}
