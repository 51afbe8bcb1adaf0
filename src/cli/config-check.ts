import type { Command } from 'commander';
import type { Config } from '../config/config.js';
import type { CliContext, RunningDaemon } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';
import { smtpServer } from '../monitor/views/notifications.js';
import { formatInstant } from '../policy/wording/format.js';
import { listNames } from '../policy/wording/explain-pairs.js';
import { count } from '../policy/wording/words.js';
import { restartChangedSince } from './reload.js';

/**
 * `robowatch config check`: the configuration as `start` and a reload (SIGHUP) would load
 * it, or the reason they would refuse it, in one line: run it before a reload, which a
 * file with an error leaves undone (only the daemon's log says so).
 */
export function registerConfig(program: Command, context: CliContext): void {
  program
    .command('config')
    .summary('check the configuration file before a start or a reload')
    .command('check')
    .summary('check the configuration file before a start or a reload')
    .description(
      'Loads the configuration as `robowatch start` and a reload (SIGHUP) would, its ${NAME} settings filled in from the environment, and says what it watches and whom it tells, and what a reload would apply to each robowatch start, serve or demo of this host on its data directory (the settings that wait for a restart named); exit 1 with the error, in one line, when they would refuse it. It fetches nothing and opens no database.',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (options: { config?: string }) => {
      const config = await readConfig(context, options.config);
      const daemons = context.runningFile
        .list(config)
        .map((d) => describeDaemon(config, d, context.version));
      await write(
        context.io.stdout,
        describeConfig(config) +
          (daemons.length === 0
            ? `  running: none on this host with this data directory (${config.dataDir})\n`
            : daemons.map((line) => `  running: ${line}\n`).join('')),
      );
    });
}

/** What a configuration watches and whom it tells, in a few lines; never a secret. */
function describeConfig(config: Config): string {
  const schedules = new Map<string, number>();
  for (const site of config.sites)
    schedules.set(site.schedule, (schedules.get(site.schedule) ?? 0) + 1);
  const { timezone } = config.schedule;
  const checked = [...schedules]
    .map(([expression, n]) =>
      schedules.size === 1 ? `'${expression}'` : `'${expression}' (${count(n, 'site')})`,
    )
    .join(', ');
  const { email, defaults } = config.notify;
  const alerts = [
    defaults.email.length === 0
      ? null
      : `${count(defaults.email.length, 'email address', 'email addresses')}${email === undefined ? '' : ` through ${smtpServer(email.smtp)}`}`,
    defaults.webhooks.length === 0 ? null : count(defaults.webhooks.length, 'webhook'),
  ].filter((part) => part !== null);
  const lines = [
    `${config.file}: valid; robowatch start and a reload would load it`,
    `  sites in the file: ${config.sites.length}${config.sites.length === 0 ? '' : `, checked on ${checked}, in ${timezone}`}; the digest on '${config.schedule.digest}'`,
    `  database: ${config.databaseUrl === undefined ? `embedded, in ${config.dataDir}` : `PostgreSQL at ${databaseHost(config.databaseUrl)} (DATABASE_URL)`}`,
    `  alerts: ${alerts.length === 0 ? 'nobody is told (no notify.email.to and no notify.webhooks)' : `${alerts.join(' and ')}, for every site without its own`}`,
    `  web: ${webAddress(config.web.host, config.web.port)}`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * A process of this host on the file's data directory (`start`, `serve`, `demo`), and what a
 * reload of the file would do to it: the settings it keeps until it restarts are compared
 * with those it started with (a reload applies the rest of the file).
 */
function describeDaemon(config: Config, daemon: RunningDaemon, version: string): string {
  const started = formatInstant(new Date(daemon.startedAt), config.schedule.timezone);
  const runs =
    daemon.version === version ? '' : `, running robowatch ${daemon.version} (this is ${version})`;
  const reload = `a reload (kill -HUP ${daemon.pid})`;
  const changed = restartChangedSince(daemon.restartSettings, config);
  const which = `process ${daemon.pid} (robowatch ${daemon.command}), started ${started}${runs}`;
  return changed.length === 0
    ? `${which}: ${reload} applies all of the file`
    : `${which}: ${reload} applies the file except ${listNames(changed)}, which changed since it started and ${changed.length === 1 ? 'waits' : 'wait'} for a restart`;
}

/** Where the web UI listens; port 0 is a free port the start chooses (and logs). */
function webAddress(host: string, port: number): string {
  const name = host.includes(':') ? `[${host}]` : host;
  return port === 0
    ? `http://${name}, on a free port chosen at the start (logged as web listening)`
    : `http://${name}:${port}`;
}

/** A database URL's host, port and database, without its user or password. */
function databaseHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}
