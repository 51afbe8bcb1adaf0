import type { Command } from 'commander';
import { FatalError } from '../lib/errors.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';

/** `robowatch health`: exit 0 if the daemon recorded that it was alive recently (Docker's health check). */
export function registerHealth(program: Command, context: CliContext): void {
  program
    .command('health')
    .summary("check that this machine's daemon is alive")
    .option('--max-age <seconds>', 'how old the last heartbeat may be', '120')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: { maxAge: string; config?: string }) => {
      const config = await readConfig(context, options.config);
      const last = context.lastHeartbeat(config);
      const age = last === undefined ? Infinity : (context.now().getTime() - last.getTime()) / 1000;
      if (!(age <= Number(options.maxAge))) {
        throw new FatalError(
          last === undefined
            ? 'the daemon has not started'
            : `the daemon's last heartbeat is ${Math.round(age)} s old`,
        );
      }
      await write(context.io.stdout, `alive: last heartbeat ${Math.round(age)} s ago\n`);
    });
}
