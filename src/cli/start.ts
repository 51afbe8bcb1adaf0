import type { Command } from 'commander';
import { Daemon } from '../schedule/daemon.js';
import { renderDigest } from '../notify/render-digest.js';
import { createDaemonStore } from '../store/index.js';
import { oneLine } from '../lib/errors.js';
import { redactUrl } from '../lib/redact.js';
import type { Delivery } from '../policy/alerts.js';
import { createMetrics } from '../lib/metrics.js';
import type { CliContext, Listener } from './context.js';
import { checkDepsOf, openStore, readConfig } from './context.js';
import { observeCheck, startWeb } from './web.js';

/** Where a notification goes, as the logs show it (a webhook's path may be its secret). */
const destination = (d: Delivery) =>
  d.channel === 'webhook' ? redactUrl(d.destination) : d.destination;

/** How long a stopping daemon waits for its in-flight checks and deliveries. */
const STOP_DEADLINE_MS = 30_000;

/** `robowatch start`: the daemon. */
export function registerStart(program: Command, context: CliContext): void {
  program
    .command('start')
    .summary('run the daemon: scheduled checks, alerts, the weekly digest')
    .description(
      'Checks every configured site once per period of its schedule (spread over the period),\n' +
        'sends alerts by email and webhook, and the weekly digest, and serves the web UI and API\n' +
        'on web.listen. Several processes can share one PostgreSQL database; SIGTERM or SIGINT\n' +
        'stops it cleanly. Logs are JSON lines on stdout.',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--no-web', 'do not serve the web UI and API (another process does)')
    .action(async (options: { config?: string; web: boolean }) => {
      const config = await readConfig(context, options.config);
      const logger = context.createLogger();
      const metrics = createMetrics();
      const handle = await openStore(context, config);
      const store = createDaemonStore(handle.db, context.owner, config.schedule.leaseMs);
      const notifiers = context.createChannels(config, (id) => store.digests.loadDigest(id));
      const fetcher = context.createFetcher(config);
      const now = () => context.now();
      const check = checkDepsOf(context, config, handle.db, fetcher);
      const daemon = new Daemon({
        config,
        check,
        runs: store.runs,
        leases: store.leases,
        fires: store.cron,
        deliver: {
          ...store.outbox,
          channels: notifiers.channels,
          now,
          retry: config.notify.retry,
          onSent: (d) =>
            logger.info(
              { delivery: d.key, channel: d.channel, to: destination(d) },
              'notification sent',
            ),
          onFailed: (d, error, retryAt) =>
            logger.warn(
              {
                delivery: d.key,
                channel: d.channel,
                to: destination(d),
                error: oneLine(error),
                retryAt,
              },
              'notification failed; retried later',
            ),
        },
        digests: { ...store.digests, renderDigest, now },
        logger,
        sleep: (ms, signal) => context.sleep(ms, signal),
        heartbeat: () => context.heartbeat(config),
        onChecked: (outcome) => observeCheck(metrics, outcome),
      });
      logger.info({ database: handle.kind, owner: context.owner }, 'robowatch starting');
      let web: Listener | undefined;
      try {
        await daemon.start();
        if (options.web)
          web = await startWeb(context, config, {
            db: handle.db,
            check,
            logger,
            metrics,
            scheduler: daemon,
          });
        const signal = await context.waitForSignal();
        logger.info({ signal }, 'signal received');
        await web?.close();
        await daemon.stop(STOP_DEADLINE_MS);
      } finally {
        await fetcher.close();
        await notifiers.close();
        await handle.close();
      }
    });
}
