/**
 * Check benchmark: `npm run bench:check`. 10,000 loopback sites, each with 20 watches × 8
 * agents (BENCH_AGENTS=default: the default 167), checked by the real CLI (`node dist/main.js check`, as users run it) against
 * PostgreSQL three times: all new, nothing changed, every file changed. In the same run,
 * a bare undici GET of the same 10,000 URLs at the same concurrency is the reference.
 * Prints sites/s and the ratios, the CLI's peak RSS, and database growth per unchanged
 * check.
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else
 * postgres://root@127.0.0.1:5432/postgres; a database robowatch_bench_PID is made there
 * for the run and dropped after it.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AGENTS,
  bareFetch,
  fmt,
  postgresCpu,
  queryValue,
  runRobowatch,
  WATCHES,
} from './process-support.js';
import { benchPostgres } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 10_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const bench = await benchPostgres('robowatch_bench');
const database = new URL(bench.url);
const sql = (url: URL, text: string) => queryValue(url.toString(), text);
const COMMITS =
  'SELECT xact_commit::text AS value FROM pg_stat_database WHERE datname = current_database()';

interface Run {
  /** Sites per second, wall clock, start to exit. */
  readonly rate: number;
  /** Lines printed: change events with --json. */
  readonly events: number;
  readonly peakMb: number;
  /** CPU milliseconds per site of the robowatch process, and of PostgreSQL's processes. */
  readonly cpuMs: number;
  readonly postgresCpuMs: number;
  /** Transactions committed per site. */
  readonly commits: number;
}

/** Runs `robowatch check --json` (BENCH_PROFILE=DIR: a CPU profile in DIR/NAME). */
async function runCheck(config: string, name: string): Promise<Run> {
  const started = performance.now();
  const pgBefore = pgCpu();
  const commitsBefore = Number(await sql(database, COMMITS));
  const profile = process.env['BENCH_PROFILE'];
  const run = runRobowatch(
    ['check', '--json', '--config', config],
    database.toString(),
    profile ? join(profile, name) : undefined,
  );
  const { code, peakMb, cpuSeconds } = await run.exited;
  if (code !== 0) throw new Error(`robowatch check exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;
  return {
    rate: SITES / seconds,
    events: run.lines(),
    peakMb,
    cpuMs: (cpuSeconds * 1000) / SITES,
    postgresCpuMs: ((pgCpu() - pgBefore) * 1000) / SITES,
    commits: (Number(await sql(database, COMMITS)) - commitsBefore) / SITES,
  };
}

const farm = fork(fileURLToPath(new URL('./farm.ts', import.meta.url)), [String(SITES)], {
  execArgv: ['--import', 'tsx'],
});
const ports = await new Promise<number[]>((resolve) =>
  farm.once('message', (m: { ports: number[] }) => resolve(m.ports)),
);
const setVersion = (version: number) =>
  new Promise<void>((resolve) => {
    farm.once('message', () => resolve());
    farm.send({ version });
  });
const origins = ports.map((port) => `http://127.0.0.1:${port}`);

const dir = mkdtempSync(join(tmpdir(), 'robowatch-bench-'));
const config = join(dir, 'robowatch.yaml');
writeFileSync(
  config,
  // BENCH_AGENTS=default: the default crawlers (@search, @ai, *: 167), not the 8 below.
  `${process.env['BENCH_AGENTS'] === 'default' ? '' : `agents: ${JSON.stringify(AGENTS)}`}
fetch: {allowPrivateAddresses: true, concurrency: ${CONCURRENCY}}
# The farm's files name sitemaps on hosts that do not resolve: coverage has its own benchmark.
sitemaps: off
sites:
${origins.map((o) => `  - {url: '${o}', watch: ${JSON.stringify(WATCHES)}}`).join('\n')}
`,
);

const pgCpu = await postgresCpu(database.toString());
const size = async () =>
  Number(await sql(database, 'SELECT pg_database_size(current_database())::text AS value'));

await bareFetch(origins.slice(0, 2_000), CONCURRENCY); // warm up the JIT and the farm
const empty = await size();
const bare = (await bareFetch(origins, CONCURRENCY)).rate;
const first = await runCheck(config, 'first');
const before = await size();
const second = await runCheck(config, 'second');
const growth = (await size()) - before;
await setVersion(1);
const third = await runCheck(config, 'third');
const { rate: bareAfter, cpuMs: bareCpu } = await bareFetch(origins, CONCURRENCY);

farm.kill();
await bench.drop();

const reference = (bare + bareAfter) / 2;
const ratio = (rate: number) => `${(rate / reference).toFixed(2)}× bare`;
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites × ${WATCHES.length} watches × ${process.env['BENCH_AGENTS'] === 'default' ? 'the default' : AGENTS.length} agents, ` +
    `concurrency ${CONCURRENCY}, PostgreSQL at ${database.host}`,
);
console.log('| measurement | value | target |');
console.log('|---|--:|--:|');
console.log(
  `| bare undici GET, sites/s (before and after: ${fmt(bare)}, ${fmt(bareAfter)}) | ${fmt(reference)} | |`,
);
console.log(
  `| \`robowatch check\`, first run (all new), sites/s | ${fmt(first.rate)} (${ratio(first.rate)}) | ≥ 0.5× bare |`,
);
console.log(
  `| \`robowatch check\`, second run (nothing changed), sites/s | ${fmt(second.rate)} (${ratio(second.rate)}) | ≥ 0.7× bare |`,
);
console.log(
  `| \`robowatch check\`, third run (every file changed), sites/s | ${fmt(third.rate)} (${ratio(third.rate)}); ${fmt(third.events)} change events | ≥ 0.5× bare |`,
);
const cpu = (run: Run) =>
  `${run.cpuMs.toFixed(2)} + ${run.postgresCpuMs.toFixed(2)} ms, ${run.commits.toFixed(2)} tx`;
console.log(
  `| CPU per site, robowatch + PostgreSQL, and transactions per site (first; second; third run; bare GET client ${bareCpu.toFixed(2)} ms) | ${cpu(first)}; ${cpu(second)}; ${cpu(third)} | |`,
);
console.log(
  `| peak RSS of \`robowatch check\` (first, second, third run) | ${fmt(Math.max(first.peakMb, second.peakMb, third.peakMb))} MB (${fmt(first.peakMb)}, ${fmt(second.peakMb)}, ${fmt(third.peakMb)}) | < 400 MB |`,
);
console.log(
  `| database size per site after the first run (${fmt((before - empty) / 1_048_576)} MB in all) | ${fmt((before - empty) / SITES)} B | < 10,000 B |`,
);
console.log(`| database growth per unchanged check | ${fmt(growth / SITES)} B | < 200 B |`);
