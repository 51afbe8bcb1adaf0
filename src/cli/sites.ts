import type { Command } from 'commander';
import { ImportRefused, importSites } from '../monitor/sites/import.js';
import { activeManagedOrigins, importManagedSites } from '../store/sites.js';
import { UsageError } from '../lib/errors.js';
import type { CliContext } from './context.js';
import { readConfig, withStore } from './context.js';
import { collect, MAX_INPUT_BYTES, readTextInput, write } from './io.js';
import { visibleControls } from '../policy/wording/format.js';
import { grouped } from '../policy/wording/words.js';
import { registerSitesList } from './sites-list.js';

interface ImportFlags {
  config?: string;
  tag?: string[];
  watch?: string[];
  agents?: string;
  dryRun?: boolean;
}

/** One line of a site list: an origin, a name, tags and up to 1,000 watched paths. */
const MAX_LINE_BYTES = 256 * 1024;

const count = (n: number, what: string) => `${grouped(n)} ${what}${n === 1 ? '' : 's'}`;

/** `robowatch sites import FILE`: a list of sites, added in one go. */
export function registerSites(program: Command, context: CliContext): void {
  const sites = program
    .command('sites')
    .summary('list the watched sites and where each stands; add many at once')
    .description(
      'Lists the watched sites and where each stands (sites list); adds the sites of a list (for research: a ranked list of 100,000 domains).',
    );
  registerSitesList(sites, context);
  sites
    .command('import')
    .summary('add every site of a list (Tranco CSV or one origin per line)')
    .description(
      'Adds the sites of FILE as sites added in the web UI or API are: a ranked list ("rank,domain" lines, as Tranco publishes) keeps each rank, or one origin per line (optionally "origin,name,tags,watches"). Every line is checked first: a malformed or repeated line refuses the whole list, each named by its line number, and nothing is written. Sites already watched are left as they are; removed ones come back with their history. A running daemon checks the new sites within seconds (with the embedded database, stop it first: one process at a time opens it).',
    )
    .argument('<file>', 'the list ("-" reads standard input)')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--tag <tag>', 'a tag for every imported site (repeatable)', collect)
    .option(
      '--watch <path>',
      'a watched path for sites whose line names none (repeatable; default: the top-level watch, else /)',
      collect,
    )
    .option(
      '--agents <list>',
      'their crawlers, comma-separated (default: the top-level agents): @search,@ai,*',
    )
    .option('--dry-run', 'check the list, write nothing')
    .addHelpText(
      'after',
      `
Examples:
  robowatch sites import --tag tranco top-1m.csv
  robowatch sites import --agents '@ai-training,*' --dry-run origins.txt`,
    )
    .action(async (file: string, flags: ImportFlags) => {
      const config = await readConfig(context, flags.config);
      const text = await readTextInput(file, 'site list', context, {
        maxBytes: MAX_INPUT_BYTES,
        maxLineBytes: MAX_LINE_BYTES,
      });
      const agents = flags.agents
        ?.split(',')
        .map((a) => a.trim())
        .filter((a) => a !== '');
      const progress = context.io.stderr as NodeJS.WritableStream & { isTTY?: boolean };
      const outcome = await withStore(context, config, async (handle) => {
        try {
          return await importSites(
            {
              activeOrigins: () => activeManagedOrigins(handle.db),
              importSites: (rows, onProgress) => importManagedSites(handle.db, rows, onProgress),
            },
            config,
            text,
            {
              tags: flags.tag ?? [],
              ...(flags.watch === undefined ? {} : { watch: flags.watch }),
              ...(agents === undefined ? {} : { agents }),
              dryRun: flags.dryRun === true,
              onProgress: (written, total) => {
                if (progress.isTTY === true)
                  progress.write(`\rimporting: ${grouped(written)} of ${grouped(total)} sites`);
              },
            },
          );
        } catch (error) {
          if (!(error instanceof ImportRefused)) throw error;
          // Every problem on its own line, then the one-line error.
          await write(context.io.stdout, `${error.problems.map(visibleControls).join('\n')}\n`);
          throw new UsageError(`${file}: ${error.message}`);
        }
      });
      if (progress.isTTY === true) progress.write('\n');
      const verb = flags.dryRun === true ? 'would add' : 'added';
      await write(
        context.io.stdout,
        `${file}: ${count(outcome.lines, 'site')}; ${verb} ${grouped(outcome.added)}, ${grouped(outcome.alreadyWatched)} already watched\n`,
      );
    });
}
