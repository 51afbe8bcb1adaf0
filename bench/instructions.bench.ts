/**
 * Instructions counted: `npm run bench:instructions`, to tell two builds (or two sets of
 * node flags) apart by half a percent where CPU seconds cannot. This machine's speed drifts
 * by 10–20% within an hour, and two builds' changed checks differ by 1–3% per step of the
 * work of issue 31: `bench:alternate` needs ten pairs or more to see that, and often cannot.
 * Valgrind's callgrind counts the instructions robowatch's process executes (every thread:
 * V8's optimising compiler and collector too, run one at a time under valgrind), which
 * does not move with the machine: the same build, counted twice, agrees within 0.3%.
 *
 * One loopback farm (BENCH_SITES, 300: valgrind runs node about fifty times slower) and
 * one PostgreSQL database of its own; the sites' first states recorded by this build
 * uncounted, then BENCH_RUNS (2) changed checks of this build and of BENCH_COMPARE's (a
 * built checkout of another commit, of the same schema) in turn, each counted, the farm's
 * files changed before each; with BENCH_UNCHANGED=1 as many unchanged checks in turn after
 * them. Then each build's start-up, counted twice in turn (this, the other, the other,
 * this) and the lower kept: `check --site` of one unchanged site with the same
 * configuration, so that the work per site can be told from the work per run. Counted once,
 * the same build's two start-ups differed by 8% (1,370 against 1,264 M instructions, a full
 * collection of the heap in one and not the other: V8 decides some by the clock, which
 * valgrind slows), and that difference, spread over the sites, read as 3% a site.
 * BENCH_NODE_FLAGS sets node flags for this build's counted runs and BENCH_COMPARE_FLAGS
 * for the other's (`BENCH_COMPARE=.` pairs flags on one build). The backends' work is not
 * counted here (`bench:alternate` reads their CPU). BENCH_CALLGRIND=DIR keeps each counted
 * run's profile in DIR (callgrind.this.check.PID and so on), for `callgrind_annotate`: V8's
 * compiler, collector, parser and builtins (`Builtins_LoadIC`) by name, JavaScript as one.
 *
 * Needs valgrind (`apt-get install valgrind`). Counts are of instructions, not time: a
 * change that trades instructions for memory touched (larger batches held alive, say) can
 * count fewer and cost more; confirm a gain in CPU seconds with `bench:alternate` or
 * `bench:check`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compareBuild,
  farmSites,
  nodeFlags,
  root,
  runRobowatch,
  spread,
} from './process-support.js';
import { benchPostgres } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 300);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 2);
const OTHER = compareBuild();
const MINE = join(root, 'dist/main.js');

if (spawnSync('valgrind', ['--version']).error !== undefined) {
  console.error('bench:instructions: valgrind is not installed (apt-get install valgrind)');
  process.exit(1);
}

const { farm, origins, config, setVersion } = await farmSites(SITES, { concurrency: 16 });
const bench = await benchPostgres('robowatch_bench_instr');
// BENCH_CALLGRIND=DIR: each counted run's per-function profile kept there (callgrind_annotate).
const kept = process.env['BENCH_CALLGRIND'];
const scratch =
  kept === undefined
    ? mkdtempSync(join(tmpdir(), 'robowatch-callgrind-'))
    : (mkdirSync(kept, { recursive: true }), kept);

/**
 * `robowatch ARGS` of this build (`own`) or the other under callgrind: millions of
 * instructions, every thread. The builds are told apart by `own`, not by their paths
 * (`BENCH_COMPARE=.` names this build again, with other flags).
 */
async function counted(own: boolean, args: readonly string[]): Promise<number> {
  const main = own ? MINE : OTHER!.main;
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      // The counts are read from valgrind's summary; the per-function profile is kept
      // only where BENCH_CALLGRIND asks for it.
      `--callgrind-out-file=${join(scratch, `callgrind.${own ? 'this' : 'other'}.${args.includes('--site') ? 'start-up' : 'check'}.%p`)}`,
      // V8 writes the code it compiles into memory it then runs.
      '--smc-check=all-non-file',
      process.execPath,
      ...nodeFlags(own),
      main,
      ...args,
    ],
    { env: { ...process.env, DATABASE_URL: bench.url }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const collected = /Collected : (\d+)/.exec(stderr);
  if (code !== 0 || collected === null)
    throw new Error(
      `robowatch ${args[0]} under callgrind exited with ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`,
    );
  return Number(collected[1]) / 1e6;
}

let version = 0;
const check = ['check', '--json', '--config', config];

/** RUNS counted checks of each build in turn (which goes first alternating). */
async function alternate(change: boolean): Promise<{ mine: number[]; other: number[] }> {
  const runs = { mine: [] as number[], other: [] as number[] };
  for (let n = 0; n < RUNS; n++) {
    const order = OTHER === undefined ? [true] : n % 2 === 0 ? [true, false] : [false, true];
    for (const own of order) {
      if (change) await setVersion((version = 1 - version));
      (own ? runs.mine : runs.other).push(await counted(own, check));
    }
    console.error(`${change ? 'changed' : 'unchanged'} run ${n + 1} of ${RUNS} done`);
  }
  return runs;
}

try {
  for (const args of [['migrate', '--config', config], check]) {
    const run = runRobowatch(args, bench.url);
    if ((await run.exited).code !== 0) throw new Error(`robowatch ${args[0]} failed`);
  }
  // The other build's first command validates the configuration and keeps the validated
  // form under its own name (tree-cache.ts), as this build's first check did: uncounted
  // here, it had made the other build's first counted check 20% dearer than its next.
  if (OTHER !== undefined) {
    const args = ['check', '--json', '--site', origins[0]!, '--config', config];
    const run = runRobowatch(args, bench.url, undefined, undefined, OTHER.main);
    if ((await run.exited).code !== 0) throw new Error('robowatch check (the other build) failed');
  }
  const changed = await alternate(true);
  const unchanged = process.env['BENCH_UNCHANGED'] ? await alternate(false) : undefined;
  const startUp = ['check', '--json', '--site', origins[0]!, '--config', config];
  const starts = { mine: [] as number[], other: [] as number[] };
  for (const own of OTHER === undefined ? [true, true] : [true, false, false, true])
    (own ? starts.mine : starts.other).push(await counted(own, startUp));
  const mineStart = Math.min(...starts.mine);
  const otherStart = OTHER === undefined ? undefined : Math.min(...starts.other);

  const perSite = (runs: readonly number[], start: number) => runs.map((m) => (m - start) / SITES);
  console.log(
    `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites, ` +
      `${RUNS} counted checks of each build in turn (min / median / max)` +
      (OTHER === undefined ? '' : `; the other build: ${OTHER.dir}`),
  );
  console.log(
    '| check | this build, M instructions | … a site beyond its start-up | the other build | … a site beyond its start-up | this ÷ the other, a site |',
  );
  console.log('|---|--:|--:|--:|--:|--:|');
  for (const [label, runs] of [
    ['all changed', changed],
    ['unchanged', unchanged],
  ] as const) {
    if (runs === undefined) continue;
    const mine = perSite(runs.mine, mineStart);
    const other = otherStart === undefined ? [] : perSite(runs.other, otherStart);
    console.log(
      `| ${label} | ${spread(runs.mine, 0)} | ${spread(mine, 2)} | ` +
        (other.length === 0
          ? '| | |'
          : `${spread(runs.other, 0)} | ${spread(other, 2)} | ${spread(
              mine.map((m, i) => m / other[i]!),
              3,
            )} |`),
    );
  }
  console.log(
    `| start-up (\`check --site\`, one unchanged site; the lower of two) | ${spread(starts.mine, 0)} | | ` +
      `${otherStart === undefined ? '' : spread(starts.other, 0)} | | ` +
      `${otherStart === undefined ? '' : (mineStart / otherStart).toFixed(3)} |`,
  );
} finally {
  farm.kill();
  if (kept === undefined) rmSync(scratch, { recursive: true, force: true });
  if (process.env['BENCH_KEEP']) console.log(`kept ${bench.url}`);
  else await bench.drop();
}
