import type { Command } from 'commander';
import { Presentation, wireCatalog, wireCheck } from '../compose.js';
import { startWeb, wireWeb } from '../compose-web.js';
import { createMetrics } from '../lib/metrics.js';
import type { CliContext } from './context.js';
import { openStore, readConfig } from './context.js';
import { reloadOnHangup } from './reload.js';

/** `robowatch serve`: the web UI and API alone, without the daemon. */
export function registerServe(program: Command, context: CliContext): void {
  program
    .command('serve')
    .summary('serve the web UI and JSON API only (no scheduled checks)')
    .description(
      'Serves the history of every site on web.listen (default 127.0.0.1:8080): pages, the\n' +
        'JSON API under /api/v1, /healthz and /metrics. `robowatch start` serves them too;\n' +
        'this runs them alone, e.g. beside daemons started with --no-web. SIGHUP reloads the\n' +
        'configuration file.',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: { config?: string }) => {
      const config = await readConfig(context, options.config);
      const logger = context.createLogger();
      const handle = await openStore(context, config);
      const fetcher = context.createFetcher(config);
      const catalog = wireCatalog(context, config, handle.db);
      const stopReloads = reloadOnHangup(context, catalog, logger, options.config, 'serve');
      try {
        await catalog.load();
        // Links in what it renders (digest previews, alerts as sent) point where it listens.
        const presentation = new Presentation(config);
        const app = wireWeb(context, config, {
          presentation,
          db: handle.db,
          catalog,
          check: wireCheck(context, config, handle.db, fetcher, () => catalog.config),
          logger,
          metrics: createMetrics(),
        });
        const listener = await startWeb(context, config, app, logger, handle.db);
        presentation.served(listener.url);
        const signal = await context.waitForSignal();
        logger.info({ signal }, 'signal received');
        await listener.close();
        logger.info({}, 'web stopped');
      } finally {
        stopReloads();
        await fetcher.close();
        await handle.close();
      }
    });
}
