import { Command, CommanderError } from 'commander';
import { FatalError, oneLine, UsageError } from '../lib/errors.js';
import { registerCheck } from './check.js';
import type { CliContext } from './context.js';
import { registerDiff } from './diff.js';
import { registerDigest } from './digest.js';
import { registerHealth } from './health.js';
import { registerEval } from './eval.js';
import { registerHistory } from './history.js';
import { registerLint } from './lint.js';
import { registerMigrate } from './migrate.js';
import { registerServe } from './serve.js';
import { registerStart } from './start.js';

/**
 * Runs the robowatch command line and returns its exit status: 0 done, 1 fatal error,
 * 2 bad input. Errors are reported as one line on stderr; defects (bugs) propagate.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const { io, version } = context;
  const program = new Command('robowatch')
    .description('Watches robots.txt files and tells you when a change blocks pages that matter.')
    .version(version, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Errors are printed below, as one line each.
      outputError: () => undefined,
    });
  registerEval(program, io);
  registerLint(program, io);
  registerCheck(program, context);
  registerHistory(program, context);
  registerDiff(program, context);
  registerMigrate(program, context);
  registerStart(program, context);
  registerServe(program, context);
  registerDigest(program, context);
  registerHealth(program, context);

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 2; // no command given: help went to stderr
      // Commander puts its "(Did you mean …?)" on a second line; keep it, on one line.
      const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
      io.stderr.write(`robowatch: ${message}\n`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof FatalError) {
      io.stderr.write(`robowatch: ${oneLine(error)}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
