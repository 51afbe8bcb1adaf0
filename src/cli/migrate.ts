import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { readConfig, withStore } from './context.js';
import { write } from './io.js';
import type { DatabaseHandle } from '../store/db.js';

/** `robowatch migrate`: applies pending database migrations (every command does too). */
export function registerMigrate(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .summary('apply pending database migrations')
    .description(
      'Applies the pending migrations of the database robowatch uses (DATABASE_URL, else the embedded one under dataDir) and says which, then exits. Every command applies them when it opens the database; run this before starting the daemons of a new release, so that none of them waits on another.',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: { config?: string }) => {
      const config = await readConfig(context, options.config);
      await withStore(context, config, async (handle) => {
        await write(context.io.stdout, `${migrationSummary(handle)}\n`);
      });
    });
}

/** What opening the database did: the migrations it applied, or that none was pending. */
export function migrationSummary(handle: Pick<DatabaseHandle, 'kind' | 'location' | 'applied'>) {
  const applied = handle.applied ?? [];
  const where = `${handle.kind} at ${handle.location}`;
  if (applied.length === 0) return `database is up to date: ${where}`;
  const which =
    applied.length === 1 ? applied[0]! : `${applied[0]!} to ${applied[applied.length - 1]!}`;
  return `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${which}): ${where} is up to date`;
}
