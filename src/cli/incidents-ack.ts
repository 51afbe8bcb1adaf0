import type { Command } from 'commander';
import { wireAccounts } from '../compose-accounts.js';
import { deliverQueued, wireCatalog } from '../compose.js';
import { UsageError } from '../lib/errors.js';
import { ACK_LIMITS, AckRefused, acknowledgeIncident } from '../monitor/acknowledge.js';
import type { DeliveryReport } from '../monitor/delivery/deliver.js';
import type { IncidentAnswer } from '../monitor/reads.js';
import { formatTime, siteLabel, visibleControls } from '../policy/wording/format.js';
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
 * `robowatch incidents ack ID --note TEXT`: an incident acknowledged from a terminal, as
 * its page and the API acknowledge it.
 */
export function registerAck(incidents: Command, context: CliContext): void {
  incidents
    .command('ack')
    .summary('acknowledge an incident: say it is in hand, and what is being done')
    .description(
      'Acknowledges incident ID with a note, as its page does: everyone who reads the incident sees who has it in hand and what is being done, reminders (notify.remind) stop, and PagerDuty acknowledges its incident (the other channels are not told). Acknowledged again, the note is replaced and the first time kept. Beside a daemon that holds the embedded database, it asks the daemon.',
    )
    .argument('<id>', "the incident's number, as robowatch incidents lists it")
    .requiredOption(
      '--note <text>',
      `what is being done about it (up to ${ACK_LIMITS.note.toLocaleString('en')} characters)`,
    )
    .option('--by <name>', 'who has it in hand (default: your login name, $USER or $LOGNAME)')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--json', 'print the incident as the API gives it')
    .addHelpText(
      'after',
      `
Example:
  robowatch incidents --state open
  robowatch incidents ack 12 --note "the deploy that blocked /products is being rolled back"`,
    )
    .action(async function (this: Command, value: string) {
      // The listing's options are parsed before the subcommand is known: one given here
      // is refused, not ignored; --config and --json are taken wherever they stand.
      for (const name of LIST_ONLY)
        if (incidents.getOptionValueSource(name) === 'cli')
          throw new UsageError(
            `incidents ack takes no --${name === 'exitCode' ? 'exit-code' : name}: it is for listing incidents`,
          );
      const options = this.optsWithGlobals<{
        note: string;
        by?: string;
        config?: string;
        json?: boolean;
      }>();
      if (!/^\d{1,15}$/.test(value) || Number(value) < 1)
        throw new UsageError(
          `the incident's id must be a positive whole number (robowatch incidents lists them), not "${visibleControls(value)}"`,
        );
      const id = Number(value);
      if (options.by !== undefined && options.by.trim() === '')
        throw new UsageError('--by must name who has it in hand, not be empty');
      const by = options.by ?? loginName(context);
      const ack = { note: options.note, ...(by === undefined ? {} : { by }) };
      const config = await readConfig(context, options.config);
      const { incident, sent } = await withStoreOrDaemon<{
        incident: IncidentAnswer;
        sent: DeliveryReport | undefined;
      }>(
        context,
        config,
        async (handle) => {
          const store = createWebStore(handle.db);
          // Only its site's settings are resolved (its channels), not every site's.
          const found = await store.getIncident(id);
          const catalog = wireCatalog(context, config, handle.db);
          await catalog.load({
            readOnly: true,
            origins: new Set(found === undefined ? [] : [found.origin]),
          });
          const accounts = wireAccounts(context, handle.db);
          const { incidentDocument } = await import('../monitor/documents/intent.js');
          const record = await refusedAsUsage(() =>
            acknowledgeIncident(
              {
                store,
                siteOf: (siteId) => catalog.get(siteId)?.site,
                audit: (actor, entry) => accounts.audit(actor, entry),
                now: () => context.now(),
              },
              cliActor(context),
              id,
              ack,
            ),
          );
          // PagerDuty hears of it now, not at the daemon's next delivery.
          const delivery = await deliverQueued(context, config, handle);
          const name = catalog.get(record.siteId)?.site.name ?? null;
          return { incident: incidentDocument(record, context.now(), name), sent: delivery };
        },
        // Beside a daemon that holds the embedded database: it acknowledges, and sends.
        async (daemon) => {
          const { IncidentDocument } = await import('../monitor/documents/intent.js');
          const answer = await refusedAsUsage(() =>
            daemon.post<unknown>(`/api/v1/incidents/${id}/ack`, ack),
          );
          return { incident: IncidentDocument.parse(answer), sent: undefined };
        },
      );
      const report = sent === undefined ? undefined : describeDelivery(sent);
      await write(
        context.io.stdout,
        options.json === true
          ? `${JSON.stringify(incident)}\n`
          : `${acknowledged(incident)}\n${sent !== undefined && sent.sent > 0 ? `${report!.sent}\n` : ''}`,
      );
      if (report?.failed !== undefined)
        await write(context.io.stderr, `robowatch: ${report.failed}\n`);
    });
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
