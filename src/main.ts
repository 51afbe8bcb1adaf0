#!/usr/bin/env node
/**
 * Composition root: the only place that touches the process (argv, env, streams, exit
 * status) and creates pools, HTTP agents and timers, handing them to the commands.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from './cli/program.js';
import { createRobotsFetcher } from './fetch/robots-fetcher.js';
import { openDatabase } from './store/db.js';

const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

// A closed pipe (`robowatch eval … | head`) is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  io: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  version,
  cwd: process.cwd(),
  env: process.env,
  openStore: (config) => openDatabase({ url: config.databaseUrl, dataDir: config.dataDir }),
  createFetcher: (config) => createRobotsFetcher(config.fetch),
  now: () => new Date(),
  sleep: (ms) => sleep(ms),
});
