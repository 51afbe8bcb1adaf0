import type { Config } from '../config/config.js';
import { withRegistry } from '../config/config.js';
import { loadConfig } from '../config/load.js';
import { oneLine } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { SiteCatalog } from '../monitor/sites/catalog.js';
import { smtpServer } from '../monitor/views/notifications.js';
import type { CliContext } from './context.js';

/** Settings a running process keeps until it restarts (the rest apply at a reload). */
const RESTART_SETTINGS: readonly [string, (c: Config) => unknown][] = [
  ['dataDir', (c) => c.dataDir],
  ['DATABASE_URL', (c) => c.databaseUrl],
  ['fetch', (c) => c.fetch],
  ['schedule.timezone', (c) => c.schedule.timezone],
  ['schedule.leaseMs', (c) => c.schedule.leaseMs],
  ['schedule.retentionDays', (c) => c.schedule.retentionDays],
  ['web', (c) => c.web],
  // The Internet Archive's client and its pace are made once, at the start.
  ['archive', (c) => c.archive],
];

/**
 * What a reload does to email, for the log: the mail server or sender it now sends with
 * (info), or none any more (a warning: email waits and is retried until the file names
 * one). Undefined when notify.email's server and sender did not change.
 */
export function mailChange(
  before: Config,
  after: Config,
): { readonly level: 'info' | 'warn'; readonly message: string } | undefined {
  const [was, now] = [before.notify.email, after.notify.email];
  if (was?.smtp === now?.smtp && was?.from === now?.from) return undefined;
  if (now === undefined)
    return {
      level: 'warn',
      message:
        'notify.email removed: email alerts and digests wait and are retried until the file names a mail server again',
    };
  return {
    level: 'info',
    message: `email now goes through ${smtpServer(now.smtp)}, from ${now.from}`,
  };
}

/** The settings that differ between two configurations and need a restart to apply. */
export function restartNeededFor(before: Config, after: Config): string[] {
  return RESTART_SETTINGS.filter(
    ([, pick]) => JSON.stringify(pick(before)) !== JSON.stringify(pick(after)),
  ).map(([name]) => name);
}

/**
 * On SIGHUP, reads the configuration file again and applies its sites, their settings,
 * the top-level ones they fall back on and the schedules, without stopping work under
 * way. A file that does not load is refused with its one-line error and the running
 * configuration stays. Returns what stops listening.
 */
export function reloadOnHangup(
  context: CliContext,
  catalog: SiteCatalog,
  logger: Logger,
  path: string | undefined,
): () => void {
  let reloading: Promise<void> = Promise.resolve();
  const reload = async () => {
    let next: Config;
    try {
      next = await loadConfig({
        path,
        cwd: context.cwd,
        env: context.env,
        version: context.version,
        build: context.build,
      });
    } catch (error) {
      logger.error(
        { file: catalog.file.file, error: oneLine(error) },
        'configuration not reloaded: the file has an error; the running configuration stays',
      );
      return;
    }
    // The AI crawler registry in use stays in use until one is fetched from registry.url
    // (the daemon's upkeep fetches a new URL at once): a URL that fails keeps it. Without
    // a URL the shipped copy is used, which needs no fetch.
    if (next.registry.url !== null)
      try {
        next = withRegistry(next, catalog.file.registry.active);
      } catch (error) {
        logger.error(
          { file: next.file, error: oneLine(error) },
          'configuration not reloaded: it does not hold with the AI crawler registry in use; the running configuration stays',
        );
        return;
      }
    const restart = restartNeededFor(catalog.file, next);
    const mail = mailChange(catalog.file, next);
    try {
      const summary = await catalog.reload(next);
      logger.info(
        {
          file: next.file,
          sites: summary.sites,
          added: summary.added.length,
          removed: summary.removed.length,
          ...(summary.added.length + summary.removed.length <= 50
            ? { addedSites: summary.added, removedSites: summary.removed }
            : {}),
        },
        'configuration reloaded',
      );
      for (const problem of catalog.problems()) logger.warn({}, problem);
      if (mail !== undefined) logger[mail.level]({}, mail.message);
    } catch (error) {
      logger.error(
        { error: oneLine(error) },
        'configuration not reloaded: the database did not answer; the running configuration stays',
      );
      return;
    }
    if (restart.length > 0)
      logger.warn(
        { settings: restart },
        `changed settings that apply at the next start: ${restart.join(', ')}`,
      );
  };
  return context.onHangup(() => {
    logger.info({}, 'SIGHUP received: reloading the configuration');
    reloading = reloading.then(reload);
  });
}
