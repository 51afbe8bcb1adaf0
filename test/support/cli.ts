import { spawn } from 'node:child_process';
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
