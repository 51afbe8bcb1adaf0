#!/usr/bin/env node
/**
 * Composition root: the only place that touches the process (argv, env, streams, signals,
 * exit status) and creates pools, transports, HTTP agents and timers, handing them to the
 * commands.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { commandOf, runCli } from './cli/program.js';
import { fileProblem } from './cli/output.js';
import type { DaemonInfo } from './cli/context.js';
import type * as Drivers from './drivers.js';
import type Nodemailer from 'nodemailer';
import type { Config } from './config/config.js';
import { FatalError } from './lib/errors.js';
import { startHeapGovernor } from './lib/heap-governor.js';
import { v8Budgets } from './lib/v8-budgets.js';
import { fromRoot } from './lib/package-root.js';

/**
 * This build's name, set by scripts/bundle.ts (a hash of its sources); undefined when run
 * as compiled file by file. A large configuration's validated form is kept under it.
 */
declare const __ROBOWATCH_BUILD__: string | undefined;
const build = typeof __ROBOWATCH_BUILD__ === 'string' ? __ROBOWATCH_BUILD__ : undefined;

const require = createRequire(import.meta.url);
const { version } = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as {
  version: string;
};

// A closed pipe (`robowatch eval … | head`) is the reader's choice, not an error. Any
// other failure to write (a full disk) is one line, unless the command says it itself.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  if (process.stdout.listenerCount('error') > 1) return;
  process.stderr.write(`robowatch: cannot write standard output: ${fileProblem(error)}\n`);
  process.exit(1);
});

/** Where a daemon on the embedded database says how its commands reach it. */
const daemonFile = (config: Config) => join(config.dataDir, 'daemon.json');

/** Per host, so that replicas sharing a data volume do not vouch for each other. */
const heartbeatFile = (config: Config) => join(config.dataDir, `heartbeat-${hostname()}`);
let lastBeat = 0;

/** Commands that need no database, network or logger start without loading them. */
const LIGHT = new Set(['eval', 'lint', undefined]);
const argv = process.argv.slice(2);
const drivers = LIGHT.has(commandOf(argv)) ? undefined : await import('./drivers.js');

// Set after the drivers' modules loaded Node's own (setBudgets).
setBudgets();
// Commands that may check or serve many sites keep their heap near what they use.
if (drivers !== undefined) startHeapGovernor();

/**
 * V8's budgets, set once the drivers (the fetcher, pg, pino) have loaded Node's own modules. A
 * V8 flag changed at run time changes the hash V8 checks Node's code cache against: each
 * of Node's modules loaded after it is compiled from its source and its cache made again
 * (net, http, zlib, worker threads…: a two-site check counted 1,543 M instructions
 * instead of 1,516 M, by callgrind). Loaded first, they come from the cache.
 */
function setBudgets(): void {
  for (const flag of v8Budgets(process.versions.v8)) setFlagsFromString(flag);
}
function need(): typeof Drivers {
  if (drivers === undefined) throw new Error('this command was started without its drivers');
  return drivers;
}

process.exitCode = await runCli(argv, {
  io: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  version,
  build,
  cwd: process.cwd(),
  env: process.env,
  owner: `${hostname()}:${process.pid}`,
  pid: process.pid,
  openStore: (config) => need().openDatabase({ url: config.databaseUrl, dataDir: config.dataDir }),
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
  createDispatcher: () =>
    need().lazyAgent({
      connectTimeout: 15_000,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
      pipelining: 0,
    }),
  createLogger: () => need().createLogger(process.stdout),
  startJobEngine: async (executor, options) => {
    need();
    const { JobEngine } = await import('./store/jobs.js');
    return JobEngine.start(executor, options);
  },
  waitForSignal: () =>
    new Promise((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    }),
  onHangup: (listener) => {
    process.on('SIGHUP', listener);
    return () => process.off('SIGHUP', listener);
  },
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
});
