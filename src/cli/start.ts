import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { STOP_DEADLINE_MS, wireCatalog } from '../compose.js';
import { wireDaemon } from '../compose-daemon.js';
import { startWeb, wireWeb } from '../compose-web.js';
import type { Listener } from '../compose.js';
import { jobEngineOptions } from '../schedule/engine-options.js';
import { watchDatabase } from '../store/watch-database.js';
import { createMetrics } from '../lib/metrics.js';
import { FatalError, oneLine } from '../lib/errors.js';
import type { CliContext } from './context.js';
import { openStore, readConfig } from './context.js';
import { reloadOnHangup } from './reload.js';

/** `robowatch start`: the daemon. */
export function registerStart(program: Command, context: CliContext): void {
  program
    .command('start')
    .summary('run the daemon: scheduled checks, alerts, the weekly digest')
    .description(
      'Checks every configured site once per period of its schedule (spread over the period),\n' +
        'sends alerts by email and webhook, and the weekly digest, and serves the web UI and API\n' +
        'on web.listen. Several processes can share one PostgreSQL database; SIGTERM or SIGINT\n' +
        'stops it cleanly; SIGHUP reloads the configuration file. Logs are JSON lines on stdout.',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--no-web', 'do not serve the web UI and API (another process does)')
    .action((options: { config?: string; web: boolean }) => runDaemon(context, options));
}

/**
 * Runs the daemon (and, with `web`, the web UI and API) on a configuration file until a
 * signal stops it; `onListening` hears where the web UI is (robowatch demo says it).
 */
export async function runDaemon(
  context: CliContext,
  options: {
    config?: string;
    web: boolean;
    onListening?: (url: string) => void;
    /** The command it runs as, as `config check` names it (`demo` runs the daemon too). */
    command?: 'start' | 'demo';
  },
): Promise<void> {
  const config = await readConfig(context, options.config);
  const logger = context.createLogger();
  const metrics = createMetrics();
  const handle = await openStore(context, config);
  let jobs;
  try {
    jobs = await context.startJobEngine(
      watchDatabase(handle.executor, logger),
      jobEngineOptions(config, logger, context.now()),
    );
  } catch (error) {
    await handle.close();
    throw new FatalError(`cannot start the job engine on ${handle.location}: ${oneLine(error)}`);
  }
  const fetcher = context.createFetcher(config);
  const catalog = wireCatalog(context, config, handle.db);
  const { daemon, check, presentation, close } = wireDaemon(context, config, {
    handle,
    jobs,
    fetcher,
    catalog,
    logger,
    metrics,
    heartbeat: () => context.heartbeat(config),
  });
  logger.info({ database: handle.kind, owner: context.owner }, 'robowatch starting');
  let web: Listener | undefined;
  let stopReloads: (() => void) | undefined;
  // With the embedded database, this process is the only one that may open it: the
  // read-only commands ask it instead, with a token it keeps in its data directory.
  const embedded = handle.kind === 'pglite' && options.web;
  const localToken = embedded ? randomBytes(32).toString('hex') : undefined;
  try {
    stopReloads = reloadOnHangup(
      context,
      catalog,
      logger,
      options.config,
      options.command ?? 'start',
    );
    // Listen first: a port that cannot be had stops the daemon before it does any work.
    if (options.web) {
      const app = wireWeb(context, config, {
        db: handle.db,
        catalog,
        check,
        logger,
        metrics,
        scheduler: daemon,
        presentation,
        ...(localToken === undefined ? {} : { localToken }),
      });
      web = await startWeb(context, config, app, logger, handle.db);
      presentation.served(web.url);
      options.onListening?.(web.url);
      if (localToken !== undefined)
        context.daemonFile.write(config, { pid: context.pid, url: web.url, token: localToken });
    }
    await daemon.start();
    const signal = await context.waitForSignal();
    logger.info({ signal }, 'signal received');
    await web?.close();
    await daemon.stop(STOP_DEADLINE_MS);
  } finally {
    stopReloads?.();
    if (embedded) context.daemonFile.remove(config);
    await jobs.stop();
    await fetcher.close();
    await close();
    await handle.close();
    // The last line: every connection let go of (a shutdown that stalls says where, by
    // the lines before this one that it wrote).
    logger.info({}, 'robowatch stopped');
  }
}
