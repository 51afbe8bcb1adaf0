import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import { TREND_BY } from '../monitor/views/trends.js';
import type { TrendBy } from '../monitor/views/trends.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';
import { withReads } from './reads.js';

const BY = TREND_BY;

interface TrendFlags {
  config?: string;
  by: string;
  json?: boolean;
  weighted?: boolean;
  since?: string;
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`.padStart(6);

/** `robowatch trends`: per crawler, operator or purpose, month by month. */
export function registerTrends(program: Command, context: CliContext): void {
  program
    .command('trends')
    .summary('per month, the share of sites blocking each crawler, operator or purpose')
    .description(
      'Over the recorded history of every watched site: per month (each site with its state\n' +
        'at the end of the month), the share of the sites that watch a crawler whose robots.txt\n' +
        'blocks it from every watched page (or cannot be read: Google crawls nothing), from some,\n' +
        'from none, or that have no robots.txt. By crawler, by operator of the AI crawler\n' +
        'registry (@operator:…), or by purpose (@ai-training, …); --weighted counts each site by\n' +
        'its rank (1 / log2(1 + rank); sites without a rank left out).',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--by <what>', BY.join(', '), 'agent')
    .option('--since <month>', 'from this month on (YYYY-MM)')
    .option('--weighted', 'weigh sites by their rank (robowatch sites import keeps it)')
    .option(
      '--json',
      'print JSON: [{group, label, points: [{month, sites, full, partly, none, noRobotsTxt}]}]',
    )
    .action(async (flags: TrendFlags) => {
      if (!(BY as readonly string[]).includes(flags.by))
        throw new UsageError(`--by: "${flags.by}" is not one of ${BY.join(', ')}`);
      if (flags.since !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(flags.since))
        throw new UsageError(`--since: "${flags.since}" is not a month (YYYY-MM)`);
      const config = await readConfig(context, flags.config);
      const trends = await withReads(context, config, (reads) =>
        reads.trends({
          by: flags.by as TrendBy,
          weighted: flags.weighted === true,
          ...(flags.since === undefined ? {} : { from: new Date(`${flags.since}-01T00:00:00Z`) }),
        }),
      );
      if (flags.json) {
        await write(context.io.stdout, `${JSON.stringify(trends, null, 2)}\n`);
        return;
      }
      const lines: string[] = [];
      for (const trend of trends) {
        lines.push(trend.label);
        for (const p of trend.points)
          if (p.sites > 0)
            lines.push(
              `  ${p.month}  ${(flags.weighted ? p.sites.toFixed(1) : String(p.sites)).padStart(7)} ${p.sites === 1 && !flags.weighted ? 'site ' : 'sites'}  blocked ${percent(p.full)}  partly ${percent(p.partly)}  not ${percent(p.none)}  no robots.txt ${percent(p.noRobotsTxt)}`,
            );
      }
      if (lines.length === 0) lines.push('No recorded history yet: no site has been checked.');
      await write(context.io.stdout, `${lines.join('\n')}\n`);
    });
}
