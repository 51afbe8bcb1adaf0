/** The test run's safety net: what a test left running is found, killed and said. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { killLeftovers, leftoverProcesses } from '../../support/leftovers.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A long-running node process whose command line names `script` with `args`, in a run's TMPDIR. */
function runner(runDir: string, script: string, args: readonly string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    ['-e', 'setInterval(() => {}, 1000)', '--', script, ...args],
    { env: { ...process.env, TMPDIR: runDir }, stdio: 'ignore' },
  );
  started.push(child);
  return child;
}

/** Waits until the child runs node with its own command line (after exec). */
async function running(child: ChildProcess, script: string): Promise<void> {
  await vi.waitFor(
    () => expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')).toContain(script),
    { timeout: 30_000, interval: 20 },
  );
}

describe.runIf(process.platform === 'linux')('leftover processes of a test run', () => {
  it("finds only this run's processes of the script, kills them and names them", async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'leftovers-run-'));
    const otherRun = mkdtempSync(join(tmpdir(), 'leftovers-other-'));
    const script = join(runDir, 'dist', 'main.js');
    const ours = runner(runDir, script, ['check', '--config', 'robowatch.yaml']);
    const anotherRun = runner(otherRun, script, ['start']);
    const anotherScript = runner(runDir, join(runDir, 'other.js'), ['serve']);
    await Promise.all([
      running(ours, script),
      running(anotherRun, script),
      running(anotherScript, join(runDir, 'other.js')),
    ]);

    expect(leftoverProcesses(runDir, script)).toEqual([
      { pid: ours.pid, args: 'check --config robowatch.yaml' },
    ]);

    const said: string[] = [];
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      ours.once('exit', (_code, signal) => resolve(signal)),
    );
    expect(killLeftovers(runDir, script, (line) => said.push(line))).toHaveLength(1);
    expect(await exited).toBe('SIGKILL');
    expect(said).toEqual([
      `test run: 1 robowatch process a test started still ran at the run's end, killed: [${ours.pid}] check --config robowatch.yaml`,
    ]);
    // The other run's process and this run's other script are left alone.
    expect(anotherRun.exitCode).toBeNull();
    expect(anotherRun.signalCode).toBeNull();
    expect(anotherScript.signalCode).toBeNull();
    expect(leftoverProcesses(runDir, script)).toEqual([]);
  });

  it('says nothing when nothing was left', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'leftovers-none-'));
    const said: string[] = [];
    expect(killLeftovers(runDir, join(runDir, 'main.js'), (line) => said.push(line))).toEqual([]);
    expect(said).toEqual([]);
  });
});
