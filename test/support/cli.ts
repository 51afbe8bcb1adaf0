import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The built CLI, as `npm run build` leaves it (test/global-setup.ts builds it). */
export const ROBOWATCH = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `robowatch ARGS` in a child process, feeding `stdin`. */
export function runRobowatch(
  args: readonly string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return runCommand(process.execPath, [ROBOWATCH, ...args], options);
}

/** Runs a command in a child process, feeding `stdin`; its output and exit status. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A command may stop reading before its input ends (a list refused past its limit).
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * Runs `robowatch ARGS` in this process, as main.ts runs it but with the test's streams
 * and environment (the process's, with `env` over it; an undefined value removes a key):
 * the commands' own code, without a process's start-up, and the embedded database's
 * WebAssembly compiled once per test process instead of once per command. Tests of what
 * only a process shows (the bundle's loaded modules, exit on a closed pipe, two
 * processes on one data directory) run the built binary with runRobowatch.
 */
export async function runInProcess(
  args: readonly string[],
  options: {
    stdin?: string;
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    /** The command's clock (by default the real one). */
    now?: () => Date;
  } = {},
): Promise<CliResult> {
  const [{ runCli }, { nodeContext }, drivers] = await Promise.all([
    import('../../src/cli/program.js'),
    import('../../src/node-platform.js'),
    import('../../src/drivers.js'),
  ]);
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _encoding, callback) {
        append(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        callback();
      },
    });
  const { signal } = options;
  const context = nodeContext({
    io: {
      stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
      stdout: sink((text) => (stdout += text)),
      stderr: sink((text) => (stderr += text)),
    },
    version: VERSION,
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env },
    pid: process.pid,
    drivers: () => drivers,
    waitForSignal: () =>
      new Promise((resolve) => {
        if (signal === undefined) return;
        if (signal.aborted) resolve('SIGTERM');
        signal.addEventListener('abort', () => resolve('SIGTERM'), { once: true });
      }),
    onHangup: () => () => undefined,
  });
  const code = await runCli(
    args,
    options.now === undefined ? context : { ...context, now: options.now },
  );
  return { code, stdout, stderr };
}

const { version: VERSION } = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'),
) as { version: string };
