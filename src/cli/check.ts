import type { Command } from 'commander';
import { FatalError, UsageError } from '../lib/errors.js';
import { checkSites } from '../monitor/check-sites.js';
import type { CheckOutcome } from '../monitor/check-site.js';
import type { CliContext } from './context.js';
import { originOf, readConfig, withStore } from './context.js';
import { formatEvent, formatStatus } from '../policy/format.js';
import { describeDelivery } from './deliver.js';
import { deliverQueued, wireCheck } from '../compose.js';
import { write } from './io.js';

interface CheckOptions {
  config?: string;
  site?: string;
  json?: boolean;
}

/** `robowatch check`: checks every configured site (or one) now. */
export function registerCheck(program: Command, context: CliContext): void {
  program
    .command('check')
    .summary('check every configured site now')
    .description(
      "Fetches each configured site's robots.txt, records it, and prints what changed for\n" +
        'which crawler. Exit status 0 when the run completed (changes are not errors).',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--site <origin>', 'check only this configured site')
    .option('--json', 'print one JSON object per change event, and nothing else')
    .action(async (options: CheckOptions) => {
      const config = await readConfig(context, options.config);
      let sites = config.sites;
      if (options.site !== undefined) {
        const origin = originOf(options.site);
        sites = sites.filter((s) => s.origin === origin);
        if (sites.length === 0)
          throw new UsageError(`--site ${options.site} is not a site in ${config.file}`);
      }
      if (sites.length === 0) throw new UsageError(`${config.file} lists no sites`);

      const fetcher = context.createFetcher(config);
      const lines: Promise<void>[] = [];
      const print = (text: string) => lines.push(write(context.io.stdout, text));
      try {
        const { summary, delivery } = await withStore(context, config, async (handle) => {
          const summary = await checkSites(wireCheck(context, config, handle.db, fetcher), sites, {
            concurrency: config.fetch.concurrency,
            onOutcome: (outcome) => print(options.json ? jsonLines(outcome) : humanLines(outcome)),
          });
          // The alerts this run queued (and any left over) go out now, not at the
          // daemon's next start.
          const delivery = await deliverQueued(context, config, handle.db);
          return { summary, delivery };
        });
        await Promise.all(lines);
        if (!options.json) {
          await write(
            context.io.stdout,
            `${summary.checked} site${summary.checked === 1 ? '' : 's'} checked: ${summary.baseline} baseline, ` +
              `${summary.changed} changed (${summary.events} change event${summary.events === 1 ? '' : 's'}), ` +
              `${summary.unchanged} unchanged\n` +
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

function jsonLines(outcome: CheckOutcome): string {
  return outcome.events.map((event) => JSON.stringify(event) + '\n').join('');
}

function humanLines(outcome: CheckOutcome): string {
  const status = formatStatus(outcome.status);
  const blip = outcome.transient === null ? '' : ` (a ${outcome.transient} recovered on retry)`;
  let head: string;
  if (outcome.kind === 'baseline') {
    const verdicts = outcome.verdicts ?? [];
    const disallowed = verdicts.filter((v) => !v.allowed).length;
    head = `baseline   ${status}; ${disallowed} of ${verdicts.length} watched URL × crawler pairs disallowed`;
  } else if (outcome.kind === 'changed') {
    head = `CHANGED    ${status}; ${outcome.events.length} change event${outcome.events.length === 1 ? '' : 's'}`;
  } else {
    head = `unchanged  ${status}`;
  }
  const details = [
    ...outcome.findings.map((f) => `robots.txt line ${f.line}: ${f.message}`),
    ...outcome.events.flatMap(formatEvent),
  ].map((line) => `    ${line}\n`);
  return `${outcome.site}  ${head}${blip}  [snapshot ${outcome.snapshotId}]\n${details.join('')}`;
}
