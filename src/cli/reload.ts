import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import { withRegistry } from '../config/config.js';
import { loadConfig } from '../config/load.js';
import { oneLine } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { SiteCatalog } from '../monitor/sites/catalog.js';
import { smtpServer } from '../monitor/views/notifications.js';
import type { CliContext, RunningDaemon } from './context.js';

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

/**
 * Each setting a running process keeps until it restarts, by name, as a SHA-256 of its
 * value: what the daemon records at its start (`config check` compares a file with it)
 * without the value itself, which may hold a password.
 */
export function restartFingerprints(config: Config): Record<string, string> {
  return Object.fromEntries(
    RESTART_SETTINGS.map(([name, pick]) => [
      name,
      createHash('sha256')
        .update(JSON.stringify(pick(config) ?? null))
        .digest('hex'),
    ]),
  );
}

/**
 * The settings of `config` that differ from those a process started with (its
 * restartFingerprints) and so need a restart to apply; one it did not record (a daemon of
 * an earlier version) is counted as changed.
 */
export function restartChangedSince(
  started: Readonly<Record<string, string>>,
  config: Config,
): string[] {
  const now = restartFingerprints(config);
  return RESTART_SETTINGS.map(([name]) => name).filter((name) => started[name] !== now[name]);
}

/** The settings that differ between two configurations and need a restart to apply. */
export function restartNeededFor(before: Config, after: Config): string[] {
  return restartChangedSince(restartFingerprints(before), after);
}

/**
 * On SIGHUP, reads the configuration file again and applies its sites, their settings,
 * the top-level ones they fall back on and the schedules, without stopping work under
 * way. A file that does not load is refused with its one-line error and the running
 * configuration stays. The process is recorded in its data directory meanwhile, for
 * `config check` to say what a reload of a file would apply. Returns what stops
 * listening (and removes the record).
 */
export function reloadOnHangup(
  context: CliContext,
  catalog: SiteCatalog,
  logger: Logger,
  path: string | undefined,
  command: RunningDaemon['command'],
): () => void {
  const started = catalog.file;
  recordProcess(context, started, logger, command);
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
  const stop = context.onHangup(() => {
    logger.info({}, 'SIGHUP received: reloading the configuration');
    reloading = reloading.then(reload);
  });
  return () => {
    stop();
    context.runningFile.remove(started);
  };
}

/**
 * Records in the data directory that this process runs and takes reloads, since when and
 * with which restart settings (their fingerprints). A data directory that cannot be
 * written costs only that.
 */
function recordProcess(
  context: CliContext,
  config: Config,
  logger: Logger,
  command: RunningDaemon['command'],
): void {
  try {
    context.runningFile.write(config, {
      pid: context.pid,
      command,
      version: context.version,
      startedAt: context.now().toISOString(),
      restartSettings: restartFingerprints(config),
    });
  } catch (error) {
    logger.warn(
      { dataDir: config.dataDir, error: oneLine(error) },
      'cannot record this process in its data directory: robowatch config check will not see it',
    );
  }
}
