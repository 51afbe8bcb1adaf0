/**
 * Check benchmark: `npm run bench:check`. 3,000 loopback sites (BENCH_SITES), each its
 * own port, each with 20 watches × 8 agents (BENCH_AGENTS=default: the default 167),
 * checked by the real CLI (`node dist/main.js check --json`, as users run it) against
 * PostgreSQL three times, after `robowatch migrate` has made the schema (as the README
 * runs it, once per database; its CPU is shown on a line of its own): all new, nothing
 * changed, every file changed; a bare undici
 * GET of the same URLs at the same concurrency before and after is the reference.
 *
 * Judged in CPU seconds, which a shared machine does not skew as it skews the wall clock:
 * the ratio of CPU per bare GET (the client + the farm answering it) to CPU per check
 * (robowatch's process + the PostgreSQL backends serving its database + the farm), and
 * the stricter one without the farm. Each party's CPU is read from /proc: robowatch as
 * a reaped child, the farm as a live one, the backends by their process titles. The
 * whole is repeated BENCH_REPEAT times (3), each on a fresh database
 * robowatch_bench_rN_PID made on BENCH_DATABASE_URL, else TEST_DATABASE_URL, else
 * DATABASE_URL, else postgres://root@127.0.0.1:5432/postgres, and dropped after it;
 * figures are min / median / max. The same ratios against a leaner bare GET (Node's own
 * HTTP client, a connection per site: how robowatch fetches now) are printed too, and against
 * the same undici GET in a fresh process of its own (start-up and warm-up counted, as the
 * check's are; not the target's measure), and wall-clock
 * rates, peak RSS, transactions, page faults, the share of robowatch's CPU and of the bare
 * client's spent in the kernel, and the database's size and growth per site.
 * Two lines say where a check's CPU goes besides its sites: its start-up (`check --site`
 * with the same configuration, one unchanged site), and what this machine charges for a
 * first touch of fresh memory (a page fault: tens of µs in some virtual machines, where a
 * process's growth costs CPU that a bare client, which hardly grows, does not pay). Two
 * more split the changed check by stretches, told by the events it prints as each site
 * completes: its first tenth of the sites (the code cold: compiled and run unoptimised at
 * first use) against its second half (warm), and the ratio were every site checked at the
 * warm cost: how much of what is left is the cold process, how much the work per site. A
 * third gives the whole curve, the CPU a site in each tenth of the run: where the warm-up
 * ends, and whether the cost still falls after it.
 *
 * BENCH_COMPARE=DIR (a checkout of another commit, built): each repetition runs the three
 * checks with that build too, on a database of its own, the two builds in turn (which goes
 * first alternates), and prints how this build's CPU compares with it, repetition by
 * repetition. Gains smaller than the machine's drift within an hour (±15% here) show in
 * these paired ratios where two separate runs of the benchmark cannot show them.
 *
 * To look closer: BENCH_PROFILE=DIR (CPU profiles), BENCH_THREADS=1 (CPU per thread of
 * each robowatch process), BENCH_NODE_FLAGS='…' (node options for robowatch alone;
 * BENCH_COMPARE_FLAGS='…' for the BENCH_COMPARE build's, so BENCH_COMPARE=. pairs flags),
 * BENCH_KEEP=1 (the last repetition's database is kept, its URL printed), BENCH_INTENT=met
 * (every site as its owner intends: under the built-in intent each farm site is not, and
 * each new state writes its violations' report and opens or updates an incident; a run
 * with it tells what judging such a site costs).
 */
import { join } from 'node:path';
import {
  AGENTS,
  bareFetch,
  type BareKind,
  freshBareFetch,
  compareBuild,
  databaseCpu,
  farmSites,
  freshPageCost,
  liveCpu,
  measuredRun,
  median,
  queryValue,
  reapedFaults,
  WATCHES,
  spread as spreadOf,
  warmBareClients,
} from './process-support.js';
import { benchPostgres } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const REPEAT = Number(process.env['BENCH_REPEAT'] ?? 3);
const OTHER = compareBuild();
const COMPARE = OTHER?.dir;
const OTHER_MAIN = OTHER?.main;
const COMMITS =
  'SELECT xact_commit::text AS value FROM pg_stat_database WHERE datname = current_database()';

/** CPU milliseconds per site (or per GET) of each party. */
interface Cpu {
  /** robowatch's process, or the bare client. */
  readonly own: number;
  /** The PostgreSQL backends serving this run's database (0 for the bare GET). */
  readonly backends: number;
  /** The loopback farm answering. */
  readonly farm: number;
}

interface Run {
  /** Sites per second, wall clock, start to exit. */
  readonly rate: number;
  /** Lines printed: change events with --json. */
  readonly events: number;
  readonly peakMb: number;
  readonly cpu: Cpu;
  /** The share of robowatch's CPU spent outside its main thread (V8's and libuv's helpers). */
  readonly helpers: number;
  /** The share of robowatch's CPU spent in the kernel (system time: system calls, page faults). */
  readonly kernel: number;
  /** Transactions committed per site. */
  readonly commits: number;
  /** Minor page faults per site: robowatch's, its backends'. */
  readonly faults: { readonly own: number; readonly backends: number };
  /**
   * robowatch's CPU ms a site in stretches of the run, told by the lines it printed (a
   * changed check prints each site's events as it completes; undefined for a run that
   * prints nothing): the first tenth of the sites (its code cold: parsed, compiled, run
   * unoptimised) and the second half (warm).
   */
  readonly stretches:
    | { readonly cold: number; readonly warm: number; readonly tenths: readonly number[] }
    | undefined;
}

/**
 * CPU ms a site between the points where `from` and `to` (fractions of all its lines)
 * had been printed, from a run's polled progress.
 */
function stretches(
  progress: readonly (readonly [number, number])[],
  lines: number,
): Run['stretches'] {
  if (lines < SITES) return undefined;
  const perSite = lines / SITES;
  const between = (from: number, to: number) => {
    const a = progress.find(([n]) => n >= from * lines);
    const b = progress.find(([n]) => n >= to * lines);
    if (a === undefined || b === undefined || b[0] === a[0]) return Number.NaN;
    return ((b[1] - a[1]) * 1000) / ((b[0] - a[0]) / perSite);
  };
  // From the first site's lines: before them lies the start-up, shown on a line of its own.
  return {
    cold: between(1 / SITES, 0.1),
    warm: between(0.5, 0.95),
    // Each tenth of the run, the last one ending at 99% (the final lines come at exit).
    tenths: Array.from({ length: 10 }, (_, i) =>
      between(i === 0 ? 1 / SITES : i / 10, i === 9 ? 0.99 : (i + 1) / 10),
    ),
  };
}

const { farm, origins, config, setVersion } = await farmSites(SITES, {
  concurrency: CONCURRENCY,
  defaultAgents: process.env['BENCH_AGENTS'] === 'default',
  intentMet: process.env['BENCH_INTENT'] === 'met',
});
const farmCpu = () => liveCpu(farm.pid!);

/** The bare GET of every site: sites/s and CPU per GET, the client's and the farm's. */
async function bare(kind: BareKind): Promise<{ rate: number; cpu: Cpu; kernel: number }> {
  const before = farmCpu();
  const { rate, cpuMs, kernel } = await bareFetch(origins, CONCURRENCY, kind);
  return {
    rate,
    cpu: { own: cpuMs, backends: 0, farm: ((farmCpu() - before) * 1000) / SITES },
    kernel,
  };
}

/** The three checks by one build (`main`; this one's by default), on a database of its own. */
async function checks(n: number, main?: string) {
  const bench = await benchPostgres(`robowatch_bench_r${n}${main === undefined ? '' : 'b'}`);
  const database = bench.url;
  const sql = (text: string) => queryValue(database, text);
  const backends = await databaseCpu(database);
  const size = async () =>
    Number(await sql('SELECT pg_database_size(current_database())::text AS value'));

  /** Runs `robowatch check --json` (BENCH_PROFILE=DIR: a CPU profile in DIR/NAME). */
  async function runCheck(name: string): Promise<Run> {
    const commitsBefore = Number(await sql(COMMITS));
    const profile = process.env['BENCH_PROFILE'];
    const started = performance.now();
    const faultsBefore = reapedFaults();
    const farmBefore = farmCpu();
    const run = await measuredRun(['check', '--json', '--config', config], database, backends, {
      profileDir: profile
        ? join(profile, `${name}-${n}${main === undefined ? '' : 'b'}`)
        : undefined,
      main,
    });
    const { peakMb, cpuSeconds, mainThreadSeconds } = run;
    const seconds = (performance.now() - started) / 1000;
    const perSite = (s: number) => (s * 1000) / SITES;
    return {
      rate: SITES / seconds,
      events: run.lines,
      peakMb,
      helpers: cpuSeconds > 0 ? 1 - mainThreadSeconds / cpuSeconds : 0,
      kernel: run.kernel,
      cpu: {
        own: perSite(run.own),
        backends: perSite(run.backends),
        farm: perSite(farmCpu() - farmBefore),
      },
      commits: (Number(await sql(COMMITS)) - commitsBefore) / SITES,
      faults: { own: (reapedFaults() - faultsBefore) / SITES, backends: backends.faults() / SITES },
      stretches: stretches(run.progress, run.lines),
    };
  }

  /**
   * What a check costs before and around its sites: `check --site` with the same
   * configuration (read whole, the catalog loaded whole) and one unchanged site. CPU s of
   * robowatch and its backends.
   */
  async function startUp(): Promise<{ own: number; backends: number }> {
    const run = await measuredRun(
      ['check', '--json', '--site', origins[0]!, '--config', config],
      database,
      backends,
      { main },
    );
    return { own: run.own, backends: run.backends };
  }

  // The schema is made first, as the README's `robowatch migrate` makes it once per
  // database: the first check measures checking new sites, not creating the tables.
  const migrate = await measuredRun(['migrate', '--config', config], database, backends, { main });
  const schema = { own: migrate.own, backends: migrate.backends };
  await setVersion(0);
  const empty = await size();
  const first = await runCheck('first');
  const before = await size();
  const second = await runCheck('second');
  const afterSecond = await size();
  const growth = (afterSecond - before) / SITES;
  const oneSite = await startUp();
  await setVersion(1);
  const third = await runCheck('third');
  const changedGrowth = ((await size()) - afterSecond) / SITES;
  // BENCH_KEEP=1: the last repetition's database stays, to be looked into.
  if (process.env['BENCH_KEEP'] && n === REPEAT) console.log(`kept ${bench.url}`);
  else await bench.drop();
  return {
    schema,
    runs: { first, second, third },
    oneSite,
    bytesPerSite: (before - empty) / SITES,
    growth,
    changedGrowth,
  };
}

/** One repetition: the checks (and the other build's, in turn) between two bare fetches. */
async function repetition(n: number) {
  const pageCost = freshPageCost();
  const bareBefore = await bare('agent');
  const leanBefore = await bare('node');
  let own: Awaited<ReturnType<typeof checks>>;
  let other: Awaited<ReturnType<typeof checks>> | undefined;
  if (OTHER_MAIN !== undefined && n % 2 === 0) {
    other = await checks(n, OTHER_MAIN);
    own = await checks(n);
  } else {
    own = await checks(n);
    if (OTHER_MAIN !== undefined) other = await checks(n, OTHER_MAIN);
  }
  const bareAfter = await bare('agent');
  const leanAfter = await bare('node');
  const farmBefore = farmCpu();
  const freshGet = await freshBareFetch(origins, CONCURRENCY);
  const fresh: Cpu = {
    own: freshGet.cpuMs,
    backends: 0,
    farm: ((farmCpu() - farmBefore) * 1000) / SITES,
  };
  const mean = (a: Cpu, b: Cpu): Cpu => ({
    own: (a.own + b.own) / 2,
    backends: 0,
    farm: (a.farm + b.farm) / 2,
  });
  return {
    bareRate: (bareBefore.rate + bareAfter.rate) / 2,
    reference: mean(bareBefore.cpu, bareAfter.cpu),
    referenceKernel: (bareBefore.kernel + bareAfter.kernel) / 2,
    lean: mean(leanBefore.cpu, leanAfter.cpu),
    fresh,
    pageCost,
    ...own,
    other,
  };
}

// Warm up the JIT (both clients) and the farm.
await warmBareClients(origins, CONCURRENCY, ['agent', 'node']);
const results: Awaited<ReturnType<typeof repetition>>[] = [];
for (let n = 1; n <= REPEAT; n++) {
  results.push(await repetition(n));
  console.error(`repetition ${n} of ${REPEAT} done`);
}
farm.kill();

const total = (cpu: Cpu) => cpu.own + cpu.backends + cpu.farm;
/** CPU per bare GET (client + farm) over CPU per check (robowatch + backends + farm). */
const ratio = (reference: Cpu, cpu: Cpu) => total(reference) / total(cpu);
/** The stricter one: the bare client alone over robowatch and its backends. */
const strict = (reference: Cpu, cpu: Cpu) => reference.own / (cpu.own + cpu.backends);
const spread = (values: number[], digits = 2) => spreadOf(values, digits);
const kinds = ['first', 'second', 'third'] as const;
const of = <T>(pick: (r: (typeof results)[number]) => T) => results.map(pick);

console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites × ${WATCHES.length} watches × ${process.env['BENCH_AGENTS'] === 'default' ? 'the default' : AGENTS.length} agents, ` +
    `concurrency ${CONCURRENCY}, ${REPEAT} repetitions (min / median / max)` +
    (process.env['BENCH_INTENT'] === 'met'
      ? ', every site as its owner intends (BENCH_INTENT=met)'
      : ', every site not as its owner intends (the built-in intent)'),
);
console.log('| measurement | first check (all new) | unchanged | all changed | target |');
console.log('|---|--:|--:|--:|--:|');
const row = (label: string, cell: (kind: (typeof kinds)[number]) => string, target = '') =>
  console.log(`| ${label} | ${kinds.map(cell).join(' | ')} | ${target} |`);
row(
  'CPU ratio: bare GET (client + farm) ÷ check (robowatch + its backends + farm)',
  (k) => spread(of((r) => ratio(r.reference, r.runs[k].cpu))),
  '≥ 0.5 / 0.7 / 0.5',
);
row('CPU ratio without the farm: client ÷ (robowatch + backends)', (k) =>
  spread(of((r) => strict(r.reference, r.runs[k].cpu))),
);
row(
  "CPU ratio against the lean bare GET (Node's http client, a connection per site): with the farm",
  (k) => spread(of((r) => ratio(r.lean, r.runs[k].cpu))),
);
row('… and without the farm', (k) => spread(of((r) => strict(r.lean, r.runs[k].cpu))));
row(
  "CPU ratio against the same bare GET in a fresh process of its own (its start-up and warm-up counted, as the check's are; not the target's measure): with the farm",
  (k) => spread(of((r) => ratio(r.fresh, r.runs[k].cpu))),
);
row('CPU per site, robowatch, ms', (k) => spread(of((r) => r.runs[k].cpu.own)));
row('… beyond its start-up (less `check --site` ÷ sites, below), ms', (k) =>
  spread(of((r) => r.runs[k].cpu.own - (r.oneSite.own * 1000) / SITES)),
);
// Where a check's cost per site falls as its code warms: the changed check prints each
// site's events as it completes, so its progress tells a cold stretch from a warm one.
console.log(
  `| … the changed check by stretches (its printed events): the first tenth of the sites, the second half, ms a site | | | ${spread(
    of((r) => r.runs.third.stretches?.cold ?? Number.NaN),
  )}; ${spread(of((r) => r.runs.third.stretches?.warm ?? Number.NaN))} | |`,
);
// The whole curve: where the warm-up ends, told tenth by tenth (medians of the repetitions).
console.log(
  `| … the changed check tenth by tenth, ms a site (medians) | | | ${Array.from(
    { length: 10 },
    (_, i) => median(of((r) => r.runs.third.stretches?.tenths[i] ?? Number.NaN)).toFixed(2),
  ).join(' · ')} | |`,
);
console.log(
  `| … CPU ratio were every site checked at the second half's cost (no start-up, no warm-up: not the target's measure) | | | ${spread(
    of((r) =>
      ratio(r.reference, {
        ...r.runs.third.cpu,
        own: r.runs.third.stretches?.warm ?? Number.NaN,
      }),
    ),
  )} | |`,
);
row("… of which robowatch's helper threads (GC, optimising compiler, thread pool), %", (k) =>
  spread(
    of((r) => r.runs[k].helpers * 100),
    0,
  ),
);
// The kernel's share tells machines apart: where system calls and first touches of memory
// are dear (a virtual machine), a check, which grows and talks to its database, pays more.
row("… of which in the kernel (robowatch's system time), %", (k) =>
  spread(
    of((r) => r.runs[k].kernel * 100),
    0,
  ),
);
row('CPU per site, its PostgreSQL backends, ms', (k) => spread(of((r) => r.runs[k].cpu.backends)));
row('CPU per site, the farm, ms', (k) => spread(of((r) => r.runs[k].cpu.farm)));
row('transactions per site', (k) => spread(of((r) => r.runs[k].commits)));
row(
  'minor page faults per site: robowatch, its backends',
  (k) =>
    `${spread(
      of((r) => r.runs[k].faults.own),
      1,
    )}; ${spread(
      of((r) => r.runs[k].faults.backends),
      1,
    )}`,
);
row('wall clock: sites/s ÷ bare GET sites/s', (k) =>
  spread(of((r) => r.runs[k].rate / r.bareRate)),
);
row(
  'peak RSS, MB',
  (k) =>
    spread(
      of((r) => r.runs[k].peakMb),
      0,
    ),
  '< 400',
);
console.log(
  `| bare GET per site (an Agent with pipelining 0): client ${spread(of((r) => r.reference.own))} ms (${spread(
    of((r) => r.referenceKernel * 100),
    0,
  )} % in the kernel), farm ${spread(of((r) => r.reference.farm))} ms; lean (Node's http client): client ${spread(of((r) => r.lean.own))} ms, farm ${spread(of((r) => r.lean.farm))} ms; the Agent in a fresh process: client ${spread(of((r) => r.fresh.own))} ms, farm ${spread(of((r) => r.fresh.farm))} ms; agent ${spread(
    of((r) => r.bareRate),
    0,
  )} sites/s | | | | |`,
);
console.log(
  `| start-up: \`check --site\` (one unchanged site, the same configuration), CPU s: robowatch ${spread(
    of((r) => r.oneSite.own),
  )}, backends ${spread(of((r) => r.oneSite.backends))}; this machine: a first touch of a fresh 4 KB page, ${spread(
    of((r) => r.pageCost),
    1,
  )} µs of CPU | | | | |`,
);
console.log(
  `| change events printed by the changed check | | | ${spread(
    of((r) => r.runs.third.events),
    0,
  )} | |`,
);
console.log(
  `| making the schema first (robowatch migrate, once per database), CPU s: robowatch ${spread(
    of((r) => r.schema.own),
  )}, backends ${spread(of((r) => r.schema.backends))} | | | | |`,
);
console.log(
  `| database per site after the first check, B | ${spread(
    of((r) => r.bytesPerSite),
    0,
  )} | | | < 10,000 |`,
);
console.log(
  `| database growth per check, B | | ${spread(
    of((r) => r.growth),
    0,
  )} | ${spread(
    of((r) => r.changedGrowth),
    0,
  )} | < 200 unchanged |`,
);

if (OTHER_MAIN !== undefined) {
  const paired = (pick: (run: Run) => number) => (k: (typeof kinds)[number]) =>
    spread(of((r) => pick(r.runs[k]) / pick(r.other!.runs[k])));
  console.log(`\nThis build against BENCH_COMPARE (${COMPARE}), paired by repetition:`);
  console.log('| this build ÷ the other | first check | unchanged | all changed |');
  console.log('|---|--:|--:|--:|');
  const line = (label: string, cell: (k: (typeof kinds)[number]) => string) =>
    console.log(`| ${label} | ${kinds.map(cell).join(' | ')} |`);
  line(
    'CPU per site, robowatch',
    paired((run) => run.cpu.own),
  );
  line(
    'CPU per site, its backends',
    paired((run) => run.cpu.backends),
  );
  line(
    'CPU per site, robowatch + backends',
    paired((run) => run.cpu.own + run.cpu.backends),
  );
  line('the other build: CPU per site, robowatch, ms', (k) =>
    spread(of((r) => r.other!.runs[k].cpu.own)),
  );
  line('the other build: CPU per site, its backends, ms', (k) =>
    spread(of((r) => r.other!.runs[k].cpu.backends)),
  );
}
