import type { Command } from 'commander';
import { setFlagsFromString } from 'node:v8';
import { FatalError, nothingAt, UsageError } from '../lib/errors.js';
import { v8BudgetsForRun } from '../lib/v8-budgets.js';
import { checkSites, SITES_PER_FETCH } from '../monitor/check/batch.js';
import { outcomeDocument } from '../monitor/documents/outcome.js';
import type { RunSummary } from '../monitor/check/batch.js';
import { eventJson } from '../policy/changes/events.js';
import type { ChangeEvent } from '../policy/changes/events.js';
import { daemonSites, DaemonError, withStoreOrDaemon } from './daemon-client.js';
import type { DaemonClient, DaemonSite } from './daemon-client.js';
import type { CliContext } from './context.js';
import { firstOf, originsOf, readConfig } from './context.js';
import { formatStatus, visibleControls } from '../policy/wording/format.js';
import { fromRedirect } from '../policy/wording/status-words.js';
import { causeLines } from './print-causes.js';
import { describeDelivery } from './deliver.js';
import { Presentation, deliverQueued, wireCatalog, wireCheck } from '../compose.js';
import { streamWriter, write } from './io.js';

interface CheckOptions {
  config?: string;
  site?: string;
  json?: boolean;
  all?: boolean;
}

/** Lines of causes printed in one run unless --all; past it, each site says how many it has. */
const LINE_BUDGET = 300;

/** `robowatch check`: checks every configured site (or one) now. */
export function registerCheck(program: Command, context: CliContext): void {
  program
    .command('check')
    .summary('check every configured site now')
    .description(
      "Fetches each configured site's robots.txt, records it, and prints what changed and why:\n" +
        'each cause, what crawlers do now, and the watched pages it changed. Exit status 0 when\n' +
        'the run completed (changes are not errors).',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--site <origin>', 'check only this configured site')
    .option('--json', 'print one JSON object per change event, and nothing else')
    .option('--all', 'print every change in full (by default long lists are cut short)')
    .action(async (options: CheckOptions) => {
      const config = await readConfig(context, options.config);
      // Without a scheme, https unless only the http site is watched.
      const wanted = options.site === undefined ? undefined : originsOf(options.site);
      // The sites it checks: every watched one that is not paused, or the one asked for.
      const choose = <T extends { origin: string; paused: boolean }>(all: readonly T[]): T[] => {
        const named =
          wanted === undefined
            ? undefined
            : firstOf(wanted, (o) => all.find((s) => s.origin === o));
        const chosen =
          wanted === undefined ? all.filter((s) => !s.paused) : named === undefined ? [] : [named];
        if (chosen.length === 0)
          throw new UsageError(
            wanted !== undefined
              ? `--site ${options.site} is not a watched site (not in ${config.file}, nor added in the web UI or API)`
              : all.length === 0
                ? `no sites to check: ${config.file} lists none and none was added in the web UI or API`
                : `no sites to check: all ${all.length} are paused`,
          );
        return chosen;
      };

      const fetcher = context.createFetcher(config);
      const out = streamWriter(context.io.stdout);
      const print = (text: string) => out.write(text);
      const { links } = new Presentation(config).context();
      const budget = { left: options.all ? Infinity : LINE_BUDGET };
      const agentsOf = new Map<string, readonly string[]>();
      const incidents = { opened: 0, worse: 0, resolved: 0 };
      const human = (report: CheckReport) => {
        countIncident(incidents, report);
        return humanLines(report, {
          agents: agentsOf.get(report.site) ?? [],
          diff:
            report.snapshotId === null
              ? links.site(report.siteId)
              : links.diff(report.siteId, report.previousId, report.snapshotId),
          all: options.all === true,
          budget,
          now: context.now(),
          incident: (id) => links.incident(id),
        });
      };
      try {
        const { summary, delivery } = await withStoreOrDaemon(
          context,
          config,
          async (handle) => {
            const catalog = wireCatalog(context, config, handle.db);
            await catalog.load();
            const sites = choose(
              catalog.entries().map((e) => ({
                origin: e.site.origin,
                paused: e.pausedAt !== null,
                site: e.site,
              })),
            ).map((s) => s.site);
            // A long run goes back to V8's own budgets (lib/v8-budgets.ts).
            for (const flag of v8BudgetsForRun(process.versions.v8, sites.length))
              setFlagsFromString(flag);
            for (const site of sites)
              agentsOf.set(
                site.origin,
                site.agents.map((a) => a.token),
              );
            const summary = await checkSites(
              wireCheck(context, config, handle.db, fetcher),
              sites,
              {
                concurrency: config.fetch.concurrency * SITES_PER_FETCH,
                onOutcome: (outcome) =>
                  print(options.json ? jsonLines(outcome.events) : human(outcomeDocument(outcome))),
              },
            );
            // The alerts this run queued (and any left over) go out now, not at the
            // daemon's next start.
            const delivery = await deliverQueued(context, config, handle);
            return { summary, delivery };
          },
          // Beside a daemon that holds the embedded database: it checks, and sends the alerts.
          async (daemon) => {
            const sites = choose(await daemonSites(daemon));
            for (const site of sites) agentsOf.set(site.origin, site.agents);
            const summary = await checkThrough(daemon, sites, (report) =>
              print(options.json ? jsonLines(report.events) : human(report)),
            );
            return { summary, delivery: { sent: 0, failed: 0 } };
          },
        );
        await out.done();
        if (!options.json) {
          await write(
            context.io.stdout,
            `${summary.checked} site${summary.checked === 1 ? '' : 's'} checked: ${summary.baseline} baseline, ` +
              `${summary.changed} changed (${summary.causes} change${summary.causes === 1 ? '' : 's'}), ` +
              `${summary.unchanged} unchanged${incidentsSaid(incidents)}\n` +
              (delivery.sent > 0 ? `${describeDelivery(delivery).sent}\n` : ''),
          );
        }
        const undelivered = describeDelivery(delivery).failed;
        if (undelivered !== undefined)
          await write(context.io.stderr, `robowatch: ${undelivered}\n`);
        if (summary.failures.length > 0) {
          const [first] = summary.failures;
          throw new FatalError(
            `${summary.failures.length} site${summary.failures.length === 1 ? '' : 's'} could not be checked; ${first!.site}: ${first!.reason}`,
          );
        }
      } finally {
        await fetcher.close();
      }
    });
}

function jsonLines(events: readonly ChangeEvent[]): string {
  return events.length === 0 ? '' : `${events.map(eventJson).join('\n')}\n`;
}

/** A check as the command prints it: the daemon's API answers the same document. */
type CheckReport = ReturnType<typeof outcomeDocument>;

/**
 * Checks sites through the running daemon: all in one request, at its concurrency, each
 * report printed as its check completes. A daemon of an earlier version, without that
 * request, checks them one after another.
 */
async function checkThrough(
  daemon: DaemonClient,
  sites: readonly DaemonSite[],
  onReport: (report: CheckReport) => void,
): Promise<RunSummary> {
  let summary: RunSummary | undefined;
  try {
    await daemon.postLines(CHECKS, { sites: sites.map((s) => s.id) }, (line) => {
      const last = line as { summary?: RunSummary; error?: { message?: string } };
      if (last.error !== undefined)
        throw new FatalError(
          `the daemon (process ${daemon.info.pid}) stopped the checks: ${last.error.message ?? 'no reason given'}`,
        );
      if (last.summary !== undefined) summary = last.summary;
      else onReport(line as CheckReport);
    });
  } catch (error) {
    // A daemon without the request answers as for any path it does not serve.
    if (error instanceof DaemonError && error.status === 404 && error.message === nothingAt(CHECKS))
      return checkOneByOne(daemon, sites, onReport);
    throw error;
  }
  if (summary === undefined)
    throw new FatalError(
      `the daemon (process ${daemon.info.pid}) ended its answer before the run's summary: some sites may not have been checked`,
    );
  return summary;
}

const CHECKS = '/api/v1/checks';

/** Checks sites through the running daemon, one after another; failures are counted. */
async function checkOneByOne(
  daemon: DaemonClient,
  sites: readonly DaemonSite[],
  onReport: (report: CheckReport) => void,
): Promise<RunSummary> {
  const counts = { checked: 0, baseline: 0, changed: 0, unchanged: 0, events: 0, causes: 0 };
  const failures: { site: string; reason: string }[] = [];
  for (const site of sites) {
    try {
      const report = await daemon.post<CheckReport>(`/api/v1/sites/${site.id}/check`);
      onReport(report);
      if (report.kind === 'refused') {
        failures.push({ site: site.origin, reason: report.refused?.message ?? 'not checked' });
        continue;
      }
      counts.checked++;
      counts[report.kind]++;
      counts.events += report.events.length;
      counts.causes += report.causes.length;
    } catch (error) {
      if (!(error instanceof DaemonError)) throw error;
      failures.push({ site: site.origin, reason: error.message });
    }
  }
  return { ...counts, failures };
}

function humanLines(
  outcome: CheckReport,
  options: {
    readonly agents: readonly string[];
    readonly diff: string;
    readonly all: boolean;
    readonly budget: { left: number };
    readonly now: Date;
    readonly incident: (id: number) => string;
  },
): string {
  if (outcome.kind === 'refused')
    // Not a state of the site: no status, no verdicts; what robowatch did not do, and why.
    return [
      `${outcome.site}  NOT CHECKED  ${outcome.refused?.message ?? 'robowatch could not check this site'}`,
      ...intentLines(outcome, options.incident),
    ]
      .map((line) => `${line}\n`)
      .join('');
  const status = formatStatus(outcome.status) + fromRedirect(outcome.redirect ?? null);
  const blip = outcome.transient === null ? '' : ` (a ${outcome.transient} recovered on retry)`;
  let head: string;
  if (outcome.kind === 'baseline') {
    const verdicts = outcome.verdicts ?? { watched: 0, disallowed: 0 };
    head = `baseline   ${status}; ${verdicts.disallowed} of ${verdicts.watched} watched page × crawler pairs disallowed`;
  } else if (outcome.kind === 'changed') {
    const n = outcome.causes.length;
    head = `CHANGED    ${status}; ${n} change${n === 1 ? '' : 's'}`;
  } else {
    head = `unchanged  ${status}`;
  }
  const first = `${outcome.site}  ${head}${blip}  [snapshot ${outcome.snapshotId}]\n`;
  // A baseline has no causes: what is wrong with its file is said by its findings.
  const findings =
    outcome.kind === 'baseline'
      ? outcome.findings.map((f) => `    robots.txt line ${f.line}: ${f.message}`)
      : [];
  const causes = causeLines(
    outcome.causes,
    { agents: options.agents, at: options.now },
    { all: options.all, indent: '    ', more: `--all lists them; or see ${options.diff}` },
  );
  const intent = intentLines(outcome, options.incident);
  const details = [...findings, ...causes, ...intent];
  if (details.length > options.budget.left) {
    // Past the run's budget: the changes are cut, never what became of the incident.
    const n = outcome.causes.length;
    return [
      first,
      `    (${n} change${n === 1 ? '' : 's'} not shown: this run printed enough; --all shows everything, or see ${options.diff})\n`,
      ...intent.slice(0, 1).map((line) => `${line}\n`),
    ].join('');
  }
  options.budget.left -= details.length;
  return first + details.map((line) => `${line}\n`).join('');
}

/** How many of a run's sites opened, worsened or resolved an incident. */
interface IncidentCounts {
  opened: number;
  worse: number;
  resolved: number;
}

function countIncident(counts: IncidentCounts, report: CheckReport): void {
  // A daemon of an earlier release does not say.
  const step = (report.intent ?? null)?.incident?.step;
  if (step === 'opened' || step === 'reopened') counts.opened++;
  else if (step === 'worse') counts.worse++;
  else if (step === 'resolved') counts.resolved++;
}

function incidentsSaid(counts: IncidentCounts): string {
  const parts = [
    ...(counts.opened > 0 ? [`${counts.opened} opened`] : []),
    ...(counts.worse > 0 ? [`${counts.worse} worse`] : []),
    ...(counts.resolved > 0 ? [`${counts.resolved} resolved`] : []),
  ];
  return parts.length === 0 ? '' : `; incidents: ${parts.join(', ')}`;
}

/** Reasons printed under a site that is not as intended (its incident's page has them all). */
const REASONS_SHOWN = 3;

/** What a site not as intended is said to be, and what became of its incident, by step. */
const STEP_WORDS = {
  opened: { said: 'Not as intended', done: 'opened' },
  reopened: { said: 'Not as intended again', done: 'reopened' },
  worse: { said: 'Not as intended', done: 'got worse' },
  changed: { said: 'Still not as intended', done: 'stays open' },
  resolved: { said: 'Not as intended', done: 'stays open' },
  none: { said: 'Still not as intended', done: 'stays open' },
} as const;

/**
 * What the check found against the site's intent, when it judged it: not as intended (the
 * first cells that differ and why) or as intended again, and what became of its incident.
 * Nothing when it is as intended and was before, or when the check did not judge it.
 */
function intentLines(outcome: CheckReport, incidentLink: (id: number) => string): string[] {
  const intent = outcome.intent ?? null;
  if (intent === null) return [];
  const { incident } = intent;
  const where = incident === null || incident.id === null ? '' : `: ${incidentLink(incident.id)}`;
  if (intent.state === 'as-intended')
    return incident?.step === 'resolved' && incident.id !== null
      ? [`    As intended again: incident #${incident.id} resolved${where}`]
      : [];
  const { lead } = intent;
  const words = STEP_WORDS[incident?.step ?? 'none'];
  const said =
    intent.state === 'cannot-check'
      ? `Not judged against the intent: ${lead}`
      : `${words.said}: ${lead}`;
  const done =
    incident === null || incident.id === null
      ? 'Its incident stays open.'
      : `Incident #${incident.id} ${words.done}${where}`;
  // A refused check says why on its own line: what became of the incident is left to say.
  if (outcome.kind === 'refused') return incident === null ? [] : [`    ${done}`];
  const reasons = intent.state === 'cannot-check' ? [] : intent.causes;
  return [
    `    ${visibleControls(`${said}. ${done}`)}`,
    ...reasons.slice(0, REASONS_SHOWN).map((r) => `      why: ${visibleControls(r)}`),
    ...(reasons.length > REASONS_SHOWN
      ? [`      and ${reasons.length - REASONS_SHOWN} more reasons`]
      : []),
  ];
}
