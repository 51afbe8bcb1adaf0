import type { Command } from 'commander';
import { wireAccounts } from '../compose-accounts.js';
import { deliverQueued, wireCatalog } from '../compose.js';
import { UsageError } from '../lib/errors.js';
import {
  ACK_LIMITS,
  AckRefused,
  ackProblem,
  acknowledgeEach,
  openIncidents,
} from '../monitor/acknowledge.js';
import type { DeliveryReport } from '../monitor/delivery/deliver.js';
import type { IncidentAnswer } from '../monitor/reads.js';
import { listNames } from '../policy/wording/explain-pairs.js';
import { formatTime, siteLabel, visibleControls } from '../policy/wording/format.js';
import { count } from '../policy/wording/words.js';
import { createWebStore } from '../store/index.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { DaemonError, withStoreOrDaemon } from './daemon-client.js';
import { describeDelivery } from './deliver.js';
import { write } from './io.js';
import { cliActor, loginName } from './users.js';

/** The listing's options, which say nothing to an acknowledgment. */
const LIST_ONLY = ['state', 'limit', 'exitCode'] as const;

/**
 * `robowatch incidents ack ID... --note TEXT`: incidents acknowledged from a terminal, as
 * their pages and the API acknowledge them; `--open`: every open one no one has yet.
 */
export function registerAck(incidents: Command, context: CliContext): void {
  incidents
    .command('ack')
    .summary('acknowledge incidents: say they are in hand, and what is being done')
    .description(
      'Acknowledges the incidents named by their ids (or, with --open, every open incident no one has acknowledged yet) with a note, as an incident’s page does: everyone who reads an incident sees who has it in hand and what is being done, reminders (notify.remind) stop, and PagerDuty acknowledges its incident (the other channels are not told). Acknowledged again, the note is replaced and the first time kept. An id with no incident refuses them all, before any is acknowledged. Beside a daemon that holds the embedded database, it asks the daemon.',
    )
    .argument('[ids...]', "the incidents' numbers, as robowatch incidents lists them")
    .requiredOption(
      '--note <text>',
      `what is being done about it (up to ${ACK_LIMITS.note.toLocaleString('en')} characters)`,
    )
    .option('--open', 'every open incident no one has acknowledged yet (their notes kept)')
    .option('--by <name>', 'who has it in hand (default: your login name, $USER or $LOGNAME)')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--json', 'print one JSON object per incident, as the API gives it')
    .addHelpText(
      'after',
      `
Examples:
  robowatch incidents --state open
  robowatch incidents ack 12 --note "the deploy that blocked /products is being rolled back"
  robowatch incidents ack --open --note "CDN rule pushed to every site; rollback under way"`,
    )
    .action(async function (this: Command, values: string[]) {
      // The listing's options are parsed before the subcommand is known: one given here
      // is refused, not ignored; --config and --json are taken wherever they stand.
      for (const name of LIST_ONLY)
        if (incidents.getOptionValueSource(name) === 'cli')
          throw new UsageError(
            `incidents ack takes no --${name === 'exitCode' ? 'exit-code' : name}: it is for listing incidents`,
          );
      const options = this.optsWithGlobals<{
        note: string;
        open?: boolean;
        by?: string;
        config?: string;
        json?: boolean;
      }>();
      const ids = incidentIds(values, options.open === true);
      if (options.by !== undefined && options.by.trim() === '')
        throw new UsageError('--by must name who has it in hand, not be empty');
      const by = options.by ?? loginName(context);
      const ack = { note: options.note, ...(by === undefined ? {} : { by }) };
      // Refused before any incident is looked up, as it would be for each.
      const problem = ackProblem(ack);
      if (problem !== undefined) throw new UsageError(problem);
      const config = await readConfig(context, options.config);
      const { acked, skipped, sent } = await withStoreOrDaemon<Acknowledged>(
        context,
        config,
        async (handle) => {
          const store = createWebStore(handle.db);
          const { found, skipped } =
            ids === 'open'
              ? await openIncidents(store).then((o) => ({ found: o.waiting, skipped: o.skipped }))
              : { found: await existing(ids, (id) => store.getIncident(id)), skipped: 0 };
          // Only their sites' settings are resolved (their channels), not every site's.
          const catalog = wireCatalog(context, config, handle.db);
          await catalog.load({ readOnly: true, origins: new Set(found.map((i) => i.origin)) });
          const accounts = wireAccounts(context, handle.db);
          const { incidentDocument } = await import('../monitor/documents/intent.js');
          const done = await refusedAsUsage(() =>
            acknowledgeEach(
              {
                store,
                siteOf: (siteId) => catalog.get(siteId)?.site,
                audit: (actor, entry) => accounts.audit(actor, entry),
                now: () => context.now(),
              },
              cliActor(context),
              found,
              ack,
              { waitingOnly: ids === 'open' },
            ),
          );
          const acked = done.acked.map((record) =>
            incidentDocument(record, context.now(), catalog.get(record.siteId)?.site.name ?? null),
          );
          // PagerDuty hears of them now, not at the daemon's next delivery.
          const sent =
            acked.length === 0 ? undefined : await deliverQueued(context, config, handle);
          return { acked, skipped: skipped + done.taken, sent };
        },
        // Beside a daemon that holds the embedded database: it acknowledges, and sends.
        async (daemon) => {
          const { IncidentDocument, AckOpenDocument } =
            await import('../monitor/documents/intent.js');
          // Who, as this command says it without the daemon: the daemon would name its own
          // token ("robowatch") where no login name is set.
          const asked = { ...ack, by: ack.by ?? cliActor(context).name };
          if (ids === 'open') {
            const answer = await refusedAsUsage(() =>
              daemon.post<unknown>('/api/v1/incidents/ack-open', asked),
            );
            const done = AckOpenDocument.parse(answer);
            return { acked: done.incidents, skipped: done.skipped, sent: undefined };
          }
          const found = await existing(ids, async (id) => {
            try {
              return await daemon.get(`/api/v1/incidents/${id}`, IncidentDocument);
            } catch (error) {
              if (error instanceof DaemonError && error.status === 404) return undefined;
              throw error;
            }
          });
          const acked: IncidentAnswer[] = [];
          for (const { id } of found) {
            const answer = await refusedAsUsage(() =>
              daemon.post<unknown>(`/api/v1/incidents/${id}/ack`, asked),
            );
            acked.push(IncidentDocument.parse(answer));
          }
          return { acked, skipped: 0, sent: undefined };
        },
      );
      const report = sent === undefined ? undefined : describeDelivery(sent);
      const lines = options.json
        ? acked.map((incident) => JSON.stringify(incident))
        : [
            ...(acked.length === 0 ? ['no open incident waits for an acknowledgment'] : []),
            ...acked.map(acknowledged),
            ...(skipped === 0
              ? []
              : [
                  `${count(skipped, 'open incident')} ${skipped === 1 ? 'was' : 'were'} acknowledged already: ${skipped === 1 ? 'its note' : 'their notes'} kept (acknowledge ${skipped === 1 ? 'it' : 'them'} by id to replace ${skipped === 1 ? 'it' : 'them'})`,
                ]),
            ...(sent !== undefined && sent.sent > 0 ? [report!.sent] : []),
          ];
      await write(context.io.stdout, lines.length === 0 ? '' : `${lines.join('\n')}\n`);
      if (report?.failed !== undefined)
        await write(context.io.stderr, `robowatch: ${report.failed}\n`);
    });
}

interface Acknowledged {
  readonly acked: readonly IncidentAnswer[];
  /** Open incidents --open left as they were: acknowledged already. */
  readonly skipped: number;
  readonly sent: DeliveryReport | undefined;
}

/** The incidents' ids as given (each once), or 'open'; a usage error for anything else. */
function incidentIds(values: readonly string[], open: boolean): readonly number[] | 'open' {
  if (open && values.length > 0)
    throw new UsageError(
      `give the incidents' ids or --open, not both (--open acknowledges every open incident no one has yet)`,
    );
  if (open) return 'open';
  if (values.length === 0)
    throw new UsageError(
      'name the incidents to acknowledge: their ids (robowatch incidents lists them), or --open for every open one no one has acknowledged yet',
    );
  for (const value of values)
    if (!/^\d{1,15}$/.test(value) || Number(value) < 1)
      throw new UsageError(
        `the incident's id must be a positive whole number (robowatch incidents lists them), not "${visibleControls(value)}"`,
      );
  return [...new Set(values.map(Number))];
}

/**
 * The incidents of the ids given, every one found; else a usage error naming those that are
 * not, before any is acknowledged.
 */
async function existing<I>(
  ids: readonly number[],
  one: (id: number) => Promise<I | undefined>,
): Promise<I[]> {
  // One at a time: a daemon is asked in turn, not all at once.
  const found: (I | undefined)[] = [];
  for (const id of ids) found.push(await one(id));
  const missing = ids.filter((_, i) => found[i] === undefined);
  if (missing.length > 0)
    throw new UsageError(
      `there ${missing.length === 1 ? 'is no incident' : 'are no incidents'} ${listNames(missing.map(String))}${ids.length > 1 ? ': none was acknowledged' : ''}`,
    );
  return found as I[];
}

/** An acknowledgment refused (no such incident, a note it cannot keep), as a usage error. */
async function refusedAsUsage<T>(act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (error) {
    if (error instanceof AckRefused) throw new UsageError(error.message);
    if (error instanceof DaemonError && (error.status === 400 || error.status === 404))
      throw new UsageError(error.message);
    throw error;
  }
}

/** The incident as acknowledged, in a line: whose, since when, and the note. */
function acknowledged(incident: IncidentAnswer): string {
  const site = visibleControls(siteLabel(incident.origin, incident.name));
  const when =
    incident.state === 'open'
      ? `open since ${formatTime(new Date(incident.openedAt))} (${incident.duration} so far)`
      : `resolved ${formatTime(new Date(incident.resolvedAt!))}, after ${incident.duration}`;
  return `incident ${incident.id} on ${site}, ${when}: acknowledged by ${visibleControls(incident.acknowledgedBy ?? 'someone')} at ${formatTime(new Date(incident.acknowledgedAt!))}: ${visibleControls(incident.note ?? '')}`;
}
