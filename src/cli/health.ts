import type { Command } from 'commander';
import { FatalError, UsageError } from '../lib/errors.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';

/** `robowatch health`: exit 0 if the daemon recorded that it was alive recently (Docker's health check). */
export function registerHealth(program: Command, context: CliContext): void {
  program
    .command('health')
    .summary("check that this machine's daemon is alive")
    .description(
      "Exits 0 when this machine's daemon wrote its heartbeat (every 15 s or so while it runs) within --max-age seconds, and 1, in a line saying how old it is, when it did not: a container's health check.",
    )
    .option('--max-age <seconds>', 'how old the last heartbeat may be', '120')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: { maxAge: string; config?: string }) => {
      const maxAge = Number(options.maxAge);
      if (options.maxAge.trim() === '' || !Number.isFinite(maxAge) || maxAge <= 0)
        throw new UsageError(`--max-age must be a number of seconds, not "${options.maxAge}"`);
      const config = await readConfig(context, options.config);
      const last = context.lastHeartbeat(config);
      const age = last === undefined ? Infinity : (context.now().getTime() - last.getTime()) / 1000;
      if (!(age <= maxAge)) {
        throw new FatalError(
          last === undefined
            ? 'the daemon has not started'
            : `the daemon's last heartbeat is ${Math.round(age)} s old`,
        );
      }
      await write(context.io.stdout, `alive: last heartbeat ${Math.round(age)} s ago\n`);
    });
}
