import type { Command } from 'commander';
import { FatalError, UsageError } from '../lib/errors.js';
import { cameBack, incidentExtent } from '../policy/incidents.js';
import { listNames } from '../policy/wording/explain-pairs.js';
import { count } from '../policy/wording/words.js';
import { formatTime, siteLabel, visibleControls } from '../policy/wording/format.js';
import type { IncidentAnswer } from '../monitor/reads.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';
import { requireSite, withReads } from './reads.js';
import { alignColumns } from './table.js';
import { registerAck } from './incidents-ack.js';

const STATES = ['open', 'resolved'] as const;

/** `robowatch incidents [ORIGIN]`: the incidents, newest first, as the incidents page lists them. */
export function registerIncidents(program: Command, context: CliContext): void {
  const command = program
    .command('incidents')
    .summary('list the incidents: each time a site was not as its owner intends')
    .description(
      'Lists the incidents, the newest first: each opened when a check found a site not as its owner intends (a watched page blocked for a crawler meant to crawl it, or robots.txt unreadable) and resolved when a check found it as intended again; with how long it lasted, who acknowledged it and what crawlers cannot do while it is open. Beside a daemon that holds the embedded database, it asks the daemon.',
    )
    .argument('[origin]', "only this site's, e.g. https://example.com")
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--state <state>', `only those ${STATES.join(' or ')}`)
    .option('--limit <n>', 'at most this many (1 to 500)', '100')
    .option('--before <id>', 'only those older than this incident (the next page of a list)')
    .option('--json', 'print one JSON object per incident, as the API gives it')
    .option(
      '--exit-code',
      'exit 1 when one of those listed is open, as a monitoring check or a cron job reads it',
    )
    .action(
      async (
        value: string | undefined,
        options: {
          config?: string;
          state?: string;
          limit: string;
          before?: string;
          json?: boolean;
          exitCode?: boolean;
        },
      ) => {
        const state = options.state;
        if (state !== undefined && !(STATES as readonly string[]).includes(state))
          throw new UsageError(`--state must be open or resolved, not "${visibleControls(state)}"`);
        const limit = Number(options.limit);
        if (!/^\d+$/.test(options.limit) || limit < 1 || limit > 500)
          throw new UsageError(
            `--limit must be a whole number from 1 to 500, not "${visibleControls(options.limit)}"`,
          );
        const before = options.before;
        if (before !== undefined && (!/^\d{1,15}$/.test(before) || Number(before) < 1))
          throw new UsageError(
            `--before must be an incident's id, a positive whole number, not "${visibleControls(before)}"`,
          );
        const config = await readConfig(context, options.config);
        const { incidents, before: older } = await withReads(context, config, async (reads) => {
          const siteId = value === undefined ? undefined : (await requireSite(reads, value)).id;
          return reads.incidents({
            ...(siteId === undefined ? {} : { siteId }),
            ...(state === undefined ? {} : { state: state as (typeof STATES)[number] }),
            ...(before === undefined ? {} : { before: Number(before) }),
            limit,
          });
        });
        const out = options.json
          ? incidents.map((incident) => JSON.stringify(incident))
          : incidents.length === 0
            ? [none(state, value)]
            : formatTable(incidents);
        // A list cut at its limit says how to read on (JSON lines stay one document each).
        if (!options.json && older !== null)
          out.push(
            `(more incidents are older than these ${limit}: the next ones with --before ${older}; --state or a site narrows the list)`,
          );
        await write(context.io.stdout, out.join('\n') + '\n');
        const open = incidents.filter((incident) => incident.state === 'open');
        if (options.exitCode && open.length > 0) throw new FatalError(stillOpen(open));
      },
    );
  registerAck(command, context);
}

/** The open incidents, in one line: how many, and of which sites (a few by name). */
function stillOpen(open: readonly IncidentAnswer[]): string {
  const sites = [...new Set(open.map((i) => visibleControls(siteLabel(i.origin, i.name))))];
  const named =
    sites.length <= 3 ? sites : [...sites.slice(0, 2), `${sites.length - 2} more sites`];
  return `${count(open.length, 'incident')} open: ${listNames(named)} ${sites.length === 1 ? 'is' : 'are'} not as intended`;
}

/** What an empty list means, in words. */
function none(state: string | undefined, origin: string | undefined): string {
  const where = origin === undefined ? '' : ` for ${visibleControls(origin)}`;
  return state === 'open'
    ? `no open incidents${where}: every site is as intended, as far as its last check saw`
    : `no ${state === 'resolved' ? 'resolved ' : ''}incidents${where}`;
}

function formatTable(incidents: readonly IncidentAnswer[]): string[] {
  const header = ['ID', 'STATE', 'SITE', 'OPENED', 'LASTED', 'ACKNOWLEDGED', 'WHAT'];
  return alignColumns([
    header,
    ...incidents.map((incident) => [
      String(incident.id),
      incident.state === 'open' ? 'open' : 'resolved',
      visibleControls(siteLabel(incident.origin, incident.name)),
      formatTime(new Date(incident.openedAt)),
      incident.duration + (incident.state === 'open' ? ' so far' : ''),
      incident.acknowledgedAt === null
        ? '-'
        : visibleControls(
            `by ${incident.acknowledgedBy ?? 'someone'}${incident.note === null ? '' : `: ${incident.note}`}`,
          ),
      visibleControls(what(incident)),
    ]),
  ]);
}

/**
 * The incident in a phrase: what crawlers cannot do while it is open (as its alerts lead);
 * once resolved, why the file could not be read, or how far from the intent it was at worst
 * (as the incidents page says it).
 */
function what(incident: IncidentAnswer): string {
  const text =
    incident.lead ??
    (incident.siteState === 'cannot-check'
      ? (incident.causes[0] ?? 'robots.txt could not be read')
      : incidentExtent(incident));
  return incident.reopened > 0 ? `${text} (${cameBack(incident.reopened)})` : text;
}
