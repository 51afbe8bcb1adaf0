import { readdirSync, readFileSync } from 'node:fs';

/** A process a test run started and left running. */
export interface Leftover {
  readonly pid: number;
  /** Its arguments after the script's path, as one line (`check --config …`). */
  readonly args: string;
}

/**
 * The processes still running `script` (the built CLI) that this test run started: every
 * process the run starts, workers and the commands and daemons the tests spawn, inherits
 * the run's TMPDIR (test/global-setup.ts), so another checkout's run, or a daemon started
 * by hand, is never taken for one. Read from /proc (Linux); elsewhere none are found.
 */
export function leftoverProcesses(runDir: string, script: string): Leftover[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: Leftover[] = [];
  for (const name of pids) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf(script);
      if (at < 0) continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (!environ.includes(`TMPDIR=${runDir}`)) continue;
      found.push({
        pid,
        args: argv
          .slice(at + 1)
          .filter((a) => a !== '')
          .join(' '),
      });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/**
 * Kills the run's leftover robowatch processes and says which they were, on stderr: a
 * test that timed out or failed before it stopped its command or daemon leaves it running
 * past the run, holding its database connections and ports into the next one (two
 * `robowatch check` processes outlived a CI run once). Returns what it killed.
 */
export function killLeftovers(
  runDir: string,
  script: string,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Leftover[] {
  const leftovers = leftoverProcesses(runDir, script);
  for (const { pid } of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
  if (leftovers.length > 0)
    say(
      `test run: ${leftovers.length} robowatch process${leftovers.length === 1 ? '' : 'es'} a test started ` +
        `still ran at the run's end, killed: ${leftovers.map((l) => `[${l.pid}] ${l.args}`).join('; ')}`,
    );
  return leftovers;
}
