/**
 * Scale benchmark: `npm run bench:scale`. 100,000 loopback sites (each its own address
 * in 127.0.0.0/8, all served by one farm process), 20 watches × 8 agents each, on one
 * PostgreSQL:
 * - the first sweep by 1, 2 and 3 daemon processes (`robowatch start --no-web`) sharing a
 *   fresh database: every site is new, so its first check falls due within seconds and
 *   the processes drain the job queue together; time to all checked, check rate, speed-up,
 *   peak RSS per process, CPU per site, database size per site;
 * - a sweep with nothing changed (`robowatch check`, one process), as every day brings:
 *   the daily-sweep time.
 * The reference is a bare undici GET of the same 100,000 URLs at the same concurrency,
 * before and after.
 *
 * BENCH_SITES (100,000), BENCH_PROCESSES ("1,2,3"), BENCH_CONCURRENCY (16 per process),
 * BENCH_PROFILE (a directory: CPU profiles of the daemons).
 * BENCH_COMPARE=DIR (a built checkout of another commit): the daily sweep is run
 * BENCH_DAILY_REPEAT times (3; 1 unpaired) by each build on the same database, which build
 * goes first alternating, and this build's CPU per site is printed over the other's, pair
 * by pair (a change to `check` measured at 100,000 sites; the first sweeps are this
 * build's alone).
 * PostgreSQL as for the other benchmarks; a database robowatch_scale_PID is made there for the run.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostAddress } from './farm.js';
import {
  AGENTS,
  bareFetch,
  compareBuild,
  databaseCpu,
  fmt,
  queryValue,
  runRobowatch,
  scratchDir,
  spread,
  warmBareClients,
  WATCHES,
} from './process-support.js';
import type { Robowatch } from './process-support.js';
import { benchPostgres } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 100_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const PROCESSES = (process.env['BENCH_PROCESSES'] ?? '1,2,3').split(',').map(Number);
const OTHER = compareBuild();
const DAILY_REPEAT = Number(process.env['BENCH_DAILY_REPEAT'] ?? (OTHER === undefined ? 1 : 3));

const farm = fork(fileURLToPath(new URL('./farm.ts', import.meta.url)), ['0', 'hosts'], {
  execArgv: ['--import', 'tsx'],
});
const port = await new Promise<number>((resolve) =>
  farm.once('message', (m: { port: number }) => resolve(m.port)),
);
const origins = Array.from({ length: SITES }, (_, i) => `http://${hostAddress(i)}:${port}`);

// A fleet configured as large fleets are: one watch list for every site.
const config = join(scratchDir('robowatch-scale-'), 'robowatch.yaml');
writeFileSync(
  config,
  `agents: ${JSON.stringify(AGENTS)}
watch: ${JSON.stringify(WATCHES)}
fetch: {allowPrivateAddresses: true, concurrency: ${CONCURRENCY}}
# The farm's files name sitemaps on hosts that do not resolve: coverage has its own benchmark.
sitemaps: off
schedule: {check: '0 3 * * *'}
sites:
${origins.map((o) => `  - url: ${o}`).join('\n')}
`,
);

const waitUntil = async (
  what: string,
  condition: () => Promise<boolean>,
  processes: Robowatch[],
) => {
  for (;;) {
    if (await condition()) return;
    if (processes.some((p) => p.child.exitCode !== null))
      throw new Error(`a robowatch process exited while waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
};

interface Sweep {
  readonly processes: number;
  /** Seconds from start to every site checked, and from the first check to the last. */
  readonly total: number;
  readonly checking: number;
  readonly peakMb: number[];
  readonly cpuMs: number;
  readonly postgresCpuMs: number;
  readonly bytesPerSite: number;
}

/** The first sweep of `n` daemons on a fresh database. */
async function firstSweep(n: number): Promise<Sweep> {
  const database = await benchPostgres('robowatch_scale');
  const migrate = runRobowatch(['migrate', '--config', config], database.url);
  if ((await migrate.exited).code !== 0) throw new Error('robowatch migrate failed');
  const backends = await databaseCpu(database.url);
  // Polled cheaply (the statistics' count of snapshots inserted, one per site in a first
  // sweep): counting a table being rewritten took 0.5 s of the server's CPU per poll.
  const inserted = async () =>
    Number(
      await queryValue(
        database.url,
        "SELECT n_tup_ins::text AS value FROM pg_stat_user_tables WHERE relname = 'snapshots'",
      ),
    );
  const checked = async () =>
    Number(
      await queryValue(
        database.url,
        'SELECT count(*)::text AS value FROM sites WHERE current_snapshot_id IS NOT NULL',
      ),
    );
  backends.start();
  const started = performance.now();
  const profile = process.env['BENCH_PROFILE']; // DIR: a CPU profile of each daemon there
  const daemons = Array.from({ length: n }, (_, i) =>
    runRobowatch(
      ['start', '--no-web', '--config', config],
      database.url,
      profile ? join(profile, `sweep-${n}-${i + 1}`) : undefined,
    ),
  );
  await waitUntil(
    'the first sweep',
    async () => (await inserted()) >= SITES && (await checked()) >= SITES,
    daemons,
  );
  const total = (performance.now() - started) / 1000;
  const postgresCpuMs = (backends.stop() * 1000) / SITES;
  const checking = Number(
    await queryValue(
      database.url,
      'SELECT extract(epoch FROM max(checked_at) - min(checked_at))::text AS value FROM checks',
    ),
  );
  for (const daemon of daemons) daemon.child.kill('SIGTERM');
  const ends = await Promise.all(daemons.map((d) => d.exited));
  const bytes = Number(
    await queryValue(database.url, 'SELECT pg_database_size(current_database())::text AS value'),
  );
  const sweep: Sweep = {
    processes: n,
    total,
    checking,
    peakMb: ends.map((e) => e.peakMb),
    cpuMs: (ends.reduce((sum, e) => sum + e.cpuSeconds, 0) * 1000) / SITES,
    postgresCpuMs,
    bytesPerSite: bytes / SITES,
  };
  if (n !== PROCESSES[PROCESSES.length - 1]) await database.drop();
  else lastDatabase = database;
  return sweep;
}
let lastDatabase: Awaited<ReturnType<typeof benchPostgres>> | undefined;

await warmBareClients(origins, CONCURRENCY, ['agent'], 5_000); // the JIT and the farm
const bareBefore = await bareFetch(origins, CONCURRENCY);
const sweeps: Sweep[] = [];
for (const n of PROCESSES) sweeps.push(await firstSweep(n));

interface Daily {
  readonly seconds: number;
  readonly peakMb: number;
  /** CPU seconds of the sweep: robowatch's process, its backends. */
  readonly cpuSeconds: number;
  readonly backendSeconds: number;
}

/** Nothing changed: the day after, on the last sweep's database, by this build or `main`. */
async function dailySweep(name: string, main?: string): Promise<Daily> {
  const backends = await databaseCpu(lastDatabase!.url);
  backends.start();
  const started = performance.now();
  const run = runRobowatch(
    ['check', '--config', config],
    lastDatabase!.url,
    process.env['BENCH_PROFILE'] ? join(process.env['BENCH_PROFILE'], name) : undefined,
    undefined,
    main,
  );
  const end = await run.exited;
  if (end.code !== 0) throw new Error(`robowatch check exited with ${end.code}`);
  return {
    seconds: (performance.now() - started) / 1000,
    peakMb: end.peakMb,
    cpuSeconds: end.cpuSeconds,
    backendSeconds: backends.stop(),
  };
}

const dailies: Daily[] = [];
const otherDailies: Daily[] = [];
for (let i = 0; i < DAILY_REPEAT; i++) {
  // Which build goes first alternates: each sweep adds a check row a site, and the later
  // sweep of a pair finds the tables a little larger.
  const thisFirst = i % 2 === 0;
  if (thisFirst) dailies.push(await dailySweep(`unchanged-${i + 1}`));
  if (OTHER !== undefined) otherDailies.push(await dailySweep(`other-${i + 1}`, OTHER.main));
  if (!thisFirst) dailies.push(await dailySweep(`unchanged-${i + 1}`));
}
const bareAfter = await bareFetch(origins, CONCURRENCY);
await lastDatabase!.drop();
farm.kill();

const reference = (bareBefore.rate + bareAfter.rate) / 2;
const ratio = (rate: number) => `${(rate / reference).toFixed(2)}× bare`;
const one = sweeps.find((s) => s.processes === 1) ?? sweeps[0]!;
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${fmt(SITES)} sites × ${WATCHES.length} watches × ${AGENTS.length} agents, ` +
    `concurrency ${CONCURRENCY} per process, one PostgreSQL on this machine`,
);
console.log('| measurement | value | target |');
console.log('|---|--:|--:|');
console.log(
  `| bare undici GET, sites/s (before and after: ${fmt(bareBefore.rate)}, ${fmt(bareAfter.rate)}) | ${fmt(reference)} | |`,
);
for (const sweep of sweeps) {
  const rate = SITES / sweep.checking;
  console.log(
    `| first sweep, ${sweep.processes} process${sweep.processes > 1 ? 'es' : ''}: all checked after | ${fmt(sweep.total)} s; ${fmt(rate)} sites/s while checking (${ratio(rate)}), speed-up ${(one.checking / sweep.checking).toFixed(2)}× | ≥ 0.5× bare |`,
  );
  console.log(
    `| … peak RSS per process; CPU per site, robowatch + PostgreSQL; database per site | ${sweep.peakMb.map((mb) => `${fmt(mb)} MB`).join(', ')}; ${sweep.cpuMs.toFixed(2)} + ${sweep.postgresCpuMs.toFixed(2)} ms; ${fmt(sweep.bytesPerSite)} B | < 400 MB; ; < 10,000 B |`,
  );
}
const perSite = (seconds: number) => ((seconds * 1000) / SITES).toFixed(2);
for (const [i, daily] of dailies.entries()) {
  const rate = SITES / daily.seconds;
  console.log(
    `| nothing changed, \`robowatch check\`, 1 process: the daily sweep${DAILY_REPEAT > 1 ? ` (${i + 1} of ${DAILY_REPEAT})` : ''} | ${fmt(daily.seconds)} s, ${fmt(rate)} sites/s (${ratio(rate)}); peak RSS ${fmt(daily.peakMb)} MB; CPU ${perSite(daily.cpuSeconds)} + ${perSite(daily.backendSeconds)} ms per site (robowatch + its backends), ${fmt(daily.cpuSeconds + daily.backendSeconds)} CPU s for the sweep | ≥ 0.7× bare |`,
  );
}
if (OTHER !== undefined) {
  for (const [i, daily] of otherDailies.entries())
    console.log(
      `| … the same, by ${OTHER.dir} (${i + 1} of ${DAILY_REPEAT}) | ${fmt(daily.seconds)} s; peak RSS ${fmt(daily.peakMb)} MB; CPU ${perSite(daily.cpuSeconds)} + ${perSite(daily.backendSeconds)} ms per site | |`,
    );
  const pairs = (of: (d: Daily) => number) =>
    spread(
      dailies.map((d, i) => of(d) / of(otherDailies[i]!)),
      2,
    );
  console.log(
    `\nThis build ÷ ${OTHER.dir}, the daily sweep, paired (min / median / max of ${DAILY_REPEAT}): CPU per site, robowatch ${pairs((d) => d.cpuSeconds)}; robowatch + its backends ${pairs((d) => d.cpuSeconds + d.backendSeconds)}; peak RSS ${pairs((d) => d.peakMb)}`,
  );
}
