import { Command, CommanderError } from 'commander';
import { databaseRefusal, FatalError, oneLine, UsageError } from '../lib/errors.js';
import type { CliContext } from './context.js';
import { visibleControls } from '../policy/wording/format.js';

type Register = (program: Command, context: CliContext) => void;

/**
 * Each command's module, loaded when it runs (or when all are listed by --help): a
 * command does not pay for the others' dependencies (the database, the web server).
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  eval: async () => {
    const { registerEval } = await import('./eval.js');
    return (program, context) =>
      registerEval(program, context, (origin, allowPrivate) =>
        context.fetchRobotsTxt(origin, allowPrivate),
      );
  },
  lint: async () => {
    const { registerLint } = await import('./lint.js');
    return (program, context) => registerLint(program, context);
  },
  gate: async () => (await import('./gate.js')).registerGate,
  registry: async () => {
    const { registerRegistry } = await import('./registry.js');
    return (program, context) => registerRegistry(program, context);
  },
  sites: async () => (await import('./sites.js')).registerSites,
  users: async () => (await import('./users.js')).registerUsers,
  keys: async () => (await import('./keys.js')).registerKeys,
  export: async () => (await import('./export.js')).registerExport,
  trends: async () => (await import('./trends.js')).registerTrends,
  backfill: async () => (await import('./backfill.js')).registerBackfill,
  check: async () => (await import('./check.js')).registerCheck,
  history: async () => (await import('./history.js')).registerHistory,
  incidents: async () => (await import('./incidents.js')).registerIncidents,
  diff: async () => (await import('./diff.js')).registerDiff,
  coverage: async () => (await import('./coverage.js')).registerCoverage,
  migrate: async () => (await import('./migrate.js')).registerMigrate,
  start: async () => (await import('./start.js')).registerStart,
  serve: async () => (await import('./serve.js')).registerServe,
  digest: async () => (await import('./digest.js')).registerDigest,
  health: async () => (await import('./health.js')).registerHealth,
  config: async () => (await import('./config-check.js')).registerConfig,
  demo: async () => (await import('./demo.js')).registerDemo,
};

/** The command named by the arguments, if they name one (else help, version or a typo). */
export function commandOf(argv: readonly string[]): string | undefined {
  const first = argv[0];
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? first : undefined;
}

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
  // --version needs no command; a command loads its own; help and typos list them all.
  const isVersion = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
  const command = commandOf(argv);
  const names = isVersion ? [] : command !== undefined ? [command] : Object.keys(COMMANDS);
  for (const register of await Promise.all(names.map((name) => COMMANDS[name]!())))
    register(program, context);
  // Descriptions are written wrapped for the source; commander wraps them to the
  // terminal: unwrap them first (a blank line still separates paragraphs).
  for (const command of program.commands)
    command.description(command.description().replace(/(?<!\n)\n(?!\n)/g, ' '));
  program.addHelpText(
    'after',
    `
Configuration: --config FILE, else $ROBOWATCH_CONFIG, else config/robowatch.yaml
  (config/robowatch.example.yaml documents every key).
Database: $DATABASE_URL (postgres://user:password@host:5432/db), else an embedded
  database in the configuration's dataDir (./data).
Web UI and API: served by \`robowatch start\` (and \`serve\`) on web.listen, by default
  http://127.0.0.1:8080.

Examples:
  robowatch config check                the configuration as start and a reload would load it
  robowatch start                       run it: scheduled checks, alerts, the web UI
  robowatch check                       check every site now and print what changed
  robowatch history example.com         a site's robots.txt states, newest first
  robowatch coverage example.com        how much of its sitemaps each crawler may fetch
  robowatch eval --robots https://example.com --agent GPTBot https://example.com/blog/
  robowatch lint --strict robots.txt    exit 1 on an error in the file
  robowatch gate robots.txt --site https://example.com
                                        exit 1 if the draft breaks the site's intent
  robowatch <command> --help            a command's options`,
  );

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 2; // no command given: help went to stderr
      // Commander puts its "(Did you mean …?)" on a second line; keep it, on one line.
      const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
      io.stderr.write(`robowatch: ${visibleControls(message)}\n`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof FatalError) {
      // Its message is written for people (a query it quotes is cut already).
      // It may quote its input (a line of a list, an argument): shown, never obeyed.
      io.stderr.write(`robowatch: ${visibleControls(oneLine(error, 1_000))}\n`);
      return error.exitCode;
    }
    const refused = databaseRefusal(error);
    if (refused !== undefined) {
      io.stderr.write(`robowatch: ${visibleControls(refused)}\n`);
      return 1;
    }
    throw error;
  }
}
