import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { expect, vi } from 'vitest';
import { ROBOWATCH } from './cli.js';
import type { FixtureServer } from './fixture-server.js';

/** A `robowatch start` child process, its JSON log lines parsed as they come. */
export interface DaemonProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly logs: Record<string, unknown>[];
  stderr: string;
  /** Resolves with the exit status (null when killed by a signal). */
  readonly exit: Promise<number | null>;
}

/** Starts `robowatch start` (or another long-running command, such as `serve`). */
export function startDaemon(
  config: string,
  env: Record<string, string | undefined>,
  command: 'start' | 'serve' = 'start',
  flags: readonly string[] = [],
): DaemonProcess {
  return startCommand([command, '--config', config, ...flags], env);
}

/** Starts a long-running robowatch command with these arguments (`demo`, …). */
export function startCommand(
  args: readonly string[],
  env: Record<string, string | undefined>,
): DaemonProcess {
  const child = spawn(process.execPath, [ROBOWATCH, ...args], {
    env: { ...process.env, ...env },
  });
  const daemon: DaemonProcess = {
    child,
    logs: [],
    stderr: '',
    exit: new Promise((resolve) => child.on('close', resolve)),
  };
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines)
      if (line.trim() !== '') daemon.logs.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (daemon.stderr += chunk));
  return daemon;
}

/** Whether the daemon logged `msg`. */
export const logged = (daemon: DaemonProcess, msg: string) =>
  daemon.logs.some((l) => l['msg'] === msg);

/**
 * The API of a daemon (or `serve`) once it listens, which this waits for: each call a
 * request with its bearer token and, given a body, that body as JSON.
 */
export async function webApi(
  daemon: DaemonProcess,
  token: string,
): Promise<(method: string, path: string, body?: unknown) => Promise<Response>> {
  await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), {
    timeout: 60_000,
    interval: 100,
  });
  const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
  return (method, path, body) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

/** How many checks the daemon logged. */
export const checksLogged = (daemon: DaemonProcess) =>
  daemon.logs.filter((l) => String(l['msg']).startsWith('checked')).length;

/**
 * Waits for a daemon asked to stop and fails unless it exits with 0. The failure carries
 * its last log lines and its stderr: where its shutdown was when it ended (a daemon that
 * exits 13 left a promise unsettled, and the lines say in which step).
 */
export async function expectCleanExit(daemon: DaemonProcess): Promise<void> {
  const code = await daemon.exit;
  if (code === 0) return;
  const last = daemon.logs.slice(-15).map((line) => JSON.stringify(line));
  throw new Error(
    `the daemon exited with ${String(code)}, not 0; its last log lines:\n${last.join('\n')}\n` +
      `its stderr: ${daemon.stderr === '' ? '(empty)' : daemon.stderr}`,
  );
}

/** How many times a site's robots.txt was asked for. */
export const robotsFetches = (site: FixtureServer) =>
  site.requests.filter((r) => r.path === '/robots.txt').length;

/**
 * A site just paused is no longer checked: while `other` is fetched three more times,
 * `paused` is fetched at most once more (a check already under way).
 */
export async function expectNoLongerChecked(
  paused: FixtureServer,
  other: FixtureServer,
): Promise<void> {
  const atPause = robotsFetches(paused);
  const otherAtPause = robotsFetches(other);
  await vi.waitFor(() => expect(robotsFetches(other)).toBeGreaterThanOrEqual(otherAtPause + 3), {
    timeout: 60_000,
    interval: 100,
  });
  expect(robotsFetches(paused)).toBeLessThanOrEqual(atPause + 1);
}
