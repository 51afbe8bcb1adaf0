#!/usr/bin/env node
/**
 * Composition root: the only place that touches the process (argv, streams, exit
 * status) and wires the pieces together.
 */
import { readFileSync } from 'node:fs';
import { runCli } from './cli/program.js';

const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

// A closed pipe (`robowatch eval … | head`) is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(
  process.argv.slice(2),
  { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  version,
);
