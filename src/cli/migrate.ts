import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { readConfig, withStore } from './context.js';
import { write } from './io.js';

/** `robowatch migrate`: applies pending database migrations (every command does too). */
export function registerMigrate(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .summary('apply pending database migrations')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: { config?: string }) => {
      const config = await readConfig(context, options.config);
      await withStore(context, config, async (handle) => {
        await write(
          context.io.stdout,
          `database is up to date: ${handle.kind} at ${handle.location}\n`,
        );
      });
    });
}
