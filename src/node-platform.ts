/**
 * The commands' context on Node: the drivers (database, fetcher, SMTP, webhooks' HTTP
 * client, logger, job engine, web server), the daemon's files and the clock, built around
 * the streams, environment and signals it is given. main.ts gives it the process's; the
 * tests give it their own and run commands in their process (test/support/cli.ts).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import type Nodemailer from 'nodemailer';
import type { CliContext, DaemonInfo, RunningDaemon } from './cli/context.js';
import type { Config } from './config/config.js';
import type * as Drivers from './drivers.js';
import { FatalError } from './lib/errors.js';
import { isRunning } from './lib/process.js';

const require = createRequire(import.meta.url);

/** What the process (or a test) gives: its streams, environment, id and signals. */
export interface NodeContextOptions extends Pick<
  CliContext,
  'io' | 'version' | 'build' | 'cwd' | 'env' | 'pid' | 'waitForSignal' | 'onHangup'
> {
  /**
   * The drivers' modules; throws for a command started without them (main.ts loads them
   * only for the commands that use a database, the network or a logger).
   */
  readonly drivers: () => typeof Drivers;
}

/** Where a daemon on the embedded database says how its commands reach it. */
const daemonFile = (config: Config) => join(config.dataDir, 'daemon.json');

/** Per host, so that replicas sharing a data volume do not vouch for each other. */
const heartbeatFile = (config: Config) => join(config.dataDir, `heartbeat-${hostname()}`);

/**
 * What each process of this host that takes reloads records at its start, one file per
 * process: replicas sharing a data volume, or several processes of one host on PostgreSQL,
 * have their own.
 */
const runningPrefix = () => `running-${hostname()}-`;
const runningFile = (config: Config, pid: number) =>
  join(config.dataDir, `${runningPrefix()}${pid}.json`);

/** The records of this host's processes in the data directory, whether they run or not. */
function runningRecords(config: Config): { path: string; record: RunningDaemon | undefined }[] {
  let names: string[];
  try {
    names = readdirSync(config.dataDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(runningPrefix()) && name.endsWith('.json'))
    .map((name) => join(config.dataDir, name))
    .map((path) => ({ path, record: readRunning(path) }));
}

/** A process's record, or undefined for a file that is not one (of another version, cut short). */
function readRunning(path: string): RunningDaemon | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, command, version, startedAt, restartSettings } = value as Record<string, unknown>;
  if (
    typeof pid !== 'number' ||
    (command !== 'start' && command !== 'serve' && command !== 'demo') ||
    !Number.isInteger(pid) ||
    pid <= 0 ||
    typeof version !== 'string' ||
    typeof startedAt !== 'string' ||
    Number.isNaN(Date.parse(startedAt)) ||
    typeof restartSettings !== 'object' ||
    restartSettings === null
  )
    return undefined;
  const settings = Object.entries(restartSettings).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return { pid, command, version, startedAt, restartSettings: Object.fromEntries(settings) };
}

export function nodeContext(options: NodeContextOptions): CliContext {
  const { io, version, drivers: need } = options;
  let lastBeat = 0;
  return {
    io,
    version,
    build: options.build,
    cwd: options.cwd,
    env: options.env,
    owner: `${hostname()}:${options.pid}`,
    pid: options.pid,
    openStore: (config, store) =>
      need().openDatabase({
        url: config.databaseUrl,
        dataDir: config.dataDir,
        poolSize: store?.connections,
      }),
    createFetcher: (config) => need().createRobotsFetcher(config.fetch),
    // nodemailer is CommonJS: required (synchronously) when a command first sends email.
    createMailTransport: (smtpUrl) =>
      (need(), require('nodemailer') as typeof Nodemailer).createTransport({
        url: smtpUrl,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 60_000,
      }),
    // Webhooks are minutes apart: a kept-alive connection saves nothing, and one the
    // receiver is just closing makes a delivery fail (ECONNRESET). One connection each.
    createDispatcher: (options) =>
      need().lazyAgent({
        connectTimeout: 15_000,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
        pipelining: 0,
        ...(options?.guard === undefined
          ? {}
          : { connect: { lookup: need().guardedLookup(options.guard) } }),
      }),
    createLogger: () => need().createLogger(io.stdout),
    startJobEngine: async (executor, engineOptions) => {
      need();
      const { JobEngine } = await import('./store/jobs.js');
      return JobEngine.start(executor, engineOptions);
    },
    waitForSignal: options.waitForSignal,
    onHangup: options.onHangup,
    heartbeat: (config) => {
      const now = Date.now();
      if (now - lastBeat < 10_000) return;
      lastBeat = now;
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(heartbeatFile(config), new Date(now).toISOString());
    },
    daemonFile: {
      write: (config, info) => {
        mkdirSync(config.dataDir, { recursive: true });
        writeFileSync(daemonFile(config), JSON.stringify(info), { mode: 0o600 });
      },
      read: (config) => {
        try {
          return JSON.parse(readFileSync(daemonFile(config), 'utf8')) as DaemonInfo;
        } catch {
          return undefined;
        }
      },
      remove: (config) => rmSync(daemonFile(config), { force: true }),
    },
    runningFile: {
      write: (config, record) => {
        mkdirSync(config.dataDir, { recursive: true });
        // Those of processes gone without removing theirs (killed) are not left to pile up.
        for (const { path, record: other } of runningRecords(config))
          if (other !== undefined && !isRunning(other.pid)) rmSync(path, { force: true });
        writeFileSync(runningFile(config, record.pid), JSON.stringify(record), { mode: 0o600 });
      },
      list: (config) =>
        runningRecords(config)
          .flatMap(({ record }) => (record !== undefined && isRunning(record.pid) ? [record] : []))
          .sort((a, b) => a.pid - b.pid),
      remove: (config) => rmSync(runningFile(config, options.pid), { force: true }),
    },
    fetch: (url, init) => fetch(url, init),
    fetchRobotsTxt: async (origin, allowPrivateAddresses) => {
      // Loaded only here: eval starts without the network stack otherwise.
      const { createRobotsFetcher } = await import('./fetch/robots-fetcher.js');
      const fetcher = createRobotsFetcher({
        userAgent: `robowatch/${version} (+https://github.com/robowatch/robowatch)`,
        timeoutMs: 30_000,
        allowPrivateAddresses,
      });
      try {
        return await fetcher.fetchRobots(origin);
      } finally {
        await fetcher.close();
      }
    },
    lastHeartbeat: (config) => {
      try {
        return statSync(heartbeatFile(config)).mtime;
      } catch {
        return undefined;
      }
    },
    listen: async (app, web) => {
      need();
      const { serve } = await import('@hono/node-server');
      return new Promise((resolve, reject) => {
        const server = serve({ fetch: app.fetch, hostname: web.host, port: web.port });
        server.once('error', (error: NodeJS.ErrnoException) => {
          const where = `${web.host}:${web.port}`;
          reject(
            new FatalError(
              error.code === 'EADDRINUSE'
                ? `cannot listen on ${where}: another process has that port (set web.listen, or --no-web)`
                : `cannot listen on ${where}: ${error.message}`,
            ),
          );
        });
        server.once('listening', () => {
          const address = server.address() as AddressInfo;
          const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({
            url: `http://${host}:${address.port}`,
            close: () =>
              new Promise<void>((done) => {
                server.close(() => done());
                (server as { closeAllConnections?: () => void }).closeAllConnections?.();
              }),
          });
        });
      });
    },
    now: () => new Date(),
    sleep: (ms, signal) =>
      sleep(ms, undefined, signal ? { signal } : {}).catch((error: unknown) => {
        if ((error as Error).name !== 'AbortError') throw error;
      }),
  };
}
