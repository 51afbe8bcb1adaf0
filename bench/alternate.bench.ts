/**
 * Alternated checks: `npm run bench:alternate`, to tell two builds apart by a few percent.
 * bench:check makes a farm and a database afresh for each repetition, and the machine
 * drifts by ±15% within an hour; two builds' changed checks differ by 3–5% per step of
 * the work of issue 31. Here one loopback farm (3,000 sites, BENCH_SITES) and one
 * PostgreSQL database are kept for the whole run: the sites' first states are recorded
 * once (by this build, after `robowatch migrate`), then BENCH_RUNS (6) changed checks by
 * this build and by BENCH_COMPARE's (a checkout of another commit, built, of the same
 * schema) in turn, the farm's files changed before each, which goes first alternating;
 * with BENCH_UNCHANGED=1, as many unchanged checks in turn after them. Printed: the CPU
 * of robowatch's process (a reaped child's, exact) and of the backends serving the
 * database, per site, min / median / max, and this build's over the other's, run by run.
 * Without BENCH_COMPARE, this build's runs alone (a baseline's spread). BENCH_PG_LOG=FILE
 * (the PostgreSQL server's log file, readable here): the backends' CPU of this build's
 * changed checks by statement and phase besides (statement-cpu.ts; the logging costs the
 * backends a little of its own).
 */
import {
  AGENTS,
  compareBuild,
  databaseCpu,
  farmSites,
  measuredRun,
  runRobowatch,
  spread as spreadOf,
  WATCHES,
} from './process-support.js';
import { benchPostgres } from './web-support.js';
import { printStatements, statementLog } from './statement-cpu.js';
import type { StatementLog, StatementTable } from './statement-cpu.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 6);
const OTHER = compareBuild();

const { farm, origins, config, setVersion } = await farmSites(SITES, { concurrency: 16 });
let version = 0;
const changeFiles = () => setVersion((version = 1 - version));

const bench = await benchPostgres('robowatch_bench_alt');
const backends = await databaseCpu(bench.url);
// BENCH_PG_LOG=FILE: the server's log, to tell the backends' CPU by statement (statement-cpu.ts).
const PG_LOG = process.env['BENCH_PG_LOG'];
let statements: StatementLog | undefined;
/** This build's changed checks' statements, one table per check. */
const statementRuns: StatementTable[] = [];

/** One check by a build (this one's unless `main`): CPU ms per site, robowatch's and its backends'. */
async function check(main?: string): Promise<{ own: number; backends: number }> {
  const from = statements?.mark();
  const run = await measuredRun(['check', '--json', '--config', config], bench.url, backends, {
    main,
  });
  if (statements && from !== undefined && main === undefined)
    statementRuns.push(statements.read(from, statements.mark()));
  return { own: (run.own * 1000) / SITES, backends: (run.backends * 1000) / SITES };
}

/**
 * The other build's first command, uncounted: it validates the configuration and keeps the
 * validated form under its own name (tree-cache.ts), which this build did in the first
 * check. Counted, that first run cost the other build 20% more than its next.
 */
async function warmOther(origin: string): Promise<void> {
  const run = runRobowatch(
    ['check', '--json', '--site', origin, '--config', config],
    bench.url,
    undefined,
    undefined,
    OTHER!.main,
  );
  if ((await run.exited).code !== 0)
    throw new Error('robowatch check --site (the other build) failed');
}

interface Pair {
  readonly own: { own: number; backends: number };
  readonly other?: { own: number; backends: number };
}

/** RUNS checks of each build in turn; `change` before each check when the files are to change. */
async function alternate(change: boolean): Promise<Pair[]> {
  const pairs: Pair[] = [];
  for (let n = 0; n < RUNS; n++) {
    const one = async (main?: string) => {
      if (change) await changeFiles();
      return check(main);
    };
    if (OTHER === undefined) {
      pairs.push({ own: await one() });
    } else if (n % 2 === 0) {
      const own = await one();
      pairs.push({ own, other: await one(OTHER.main) });
    } else {
      const other = await one(OTHER.main);
      pairs.push({ own: await one(), other });
    }
    console.error(`${change ? 'changed' : 'unchanged'} run ${n + 1} of ${RUNS} done`);
  }
  return pairs;
}

try {
  const migrate = runRobowatch(['migrate', '--config', config], bench.url);
  if ((await migrate.exited).code !== 0) throw new Error('robowatch migrate failed');
  await check(); // every site's first state
  if (OTHER !== undefined) await warmOther(origins[0]!);
  if (PG_LOG !== undefined) statements = await statementLog(bench.url, PG_LOG);
  const changed = await alternate(true);
  const unchanged = process.env['BENCH_UNCHANGED'] ? await alternate(false) : [];

  const spread = (values: number[], digits = 3) => spreadOf(values, digits);
  console.log(
    `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites × ${WATCHES.length} watches × ${AGENTS.length} agents, ` +
      `${RUNS} runs of each build in turn (min / median / max)${OTHER === undefined ? '' : `; the other build: ${OTHER.dir}`}`,
  );
  console.log(
    '| check | this build: robowatch, ms a site | its backends | the other build: robowatch | its backends | this ÷ the other, robowatch | robowatch + backends |',
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  for (const [label, pairs] of [
    ['all changed', changed],
    ['unchanged', unchanged],
  ] as const) {
    if (pairs.length === 0) continue;
    const of = (pick: (p: Pair) => number) => spread(pairs.map(pick));
    const other = pairs[0]!.other !== undefined;
    console.log(
      `| ${label} | ${of((p) => p.own.own)} | ${of((p) => p.own.backends)} | ` +
        (other
          ? `${of((p) => p.other!.own)} | ${of((p) => p.other!.backends)} | ` +
            `${spread(pairs.map((p) => p.own.own / p.other!.own))} | ` +
            `${spread(pairs.map((p) => (p.own.own + p.own.backends) / (p.other!.own + p.other!.backends)))} |`
          : '| | | |'),
    );
  }
  if (statementRuns.length > 0)
    printStatements(statementRuns.slice(0, RUNS), {
      title: "this build's changed checks",
      unit: 'a site',
      units: SITES,
    });
} finally {
  farm.kill();
  if (process.env['BENCH_KEEP']) console.log(`kept ${bench.url}`);
  else await bench.drop();
}
