#!/usr/bin/env node
/**
 * Composition root: the only place that touches the process (argv, env, streams, signals,
 * exit status); it hands them to node-platform.ts, which creates the pools, transports,
 * HTTP agents and timers the commands use.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { commandOf, runCli } from './cli/program.js';
import { fileProblem } from './cli/output.js';
import type * as Drivers from './drivers.js';
import { startHeapGovernor } from './lib/heap-governor.js';
import { v8Budgets } from './lib/v8-budgets.js';
import { fromRoot } from './lib/package-root.js';
import { nodeContext } from './node-platform.js';

/**
 * This build's name, set by scripts/bundle.ts (a hash of its sources); undefined when run
 * as compiled file by file. A large configuration's validated form is kept under it.
 */
declare const __ROBOWATCH_BUILD__: string | undefined;
const build = typeof __ROBOWATCH_BUILD__ === 'string' ? __ROBOWATCH_BUILD__ : undefined;

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

process.exitCode = await runCli(
  argv,
  nodeContext({
    io: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    version,
    build,
    cwd: process.cwd(),
    env: process.env,
    pid: process.pid,
    drivers: need,
    waitForSignal: () =>
      new Promise((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
      }),
    onHangup: (listener) => {
      process.on('SIGHUP', listener);
      return () => process.off('SIGHUP', listener);
    },
  }),
);
