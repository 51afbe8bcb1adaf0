/**
 * The daemon's spread sweep: `npm run bench:spread`. A daemon (`robowatch start --no-web`)
 * checks each site once a period, each at its own place in it, so that most checks run
 * alone: the cost per check a fleet pays every day. 3,000 loopback sites (BENCH_SITES,
 * each its own port, 20 watches × 8 agents), a period of two minutes (BENCH_PERIOD, in
 * minutes, 1 to 30: 25 checks a second at the defaults), on PostgreSQL. After the first
 * sweep, robowatch's CPU (the daemon's process) and its backends' (those serving the run's
 * database) are read over one whole period and divided by the checks it recorded; the
 * reference, in the same run, is `robowatch check` of the same sites with nothing
 * changed (one process, every site at once: its statements batched).
 * PostgreSQL as for the other benchmarks; a database robowatch_spread_PID is made for the run.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AGENTS,
  databaseCpu,
  liveCpu,
  queryValue,
  reapedCpu,
  runRobowatch,
  WATCHES,
} from './process-support.js';
import { benchPostgres } from './web-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const PERIOD = Number(process.env['BENCH_PERIOD'] ?? 2);
if (!Number.isInteger(PERIOD) || PERIOD < 1 || PERIOD > 30 || 60 % PERIOD !== 0)
  throw new Error(`BENCH_PERIOD: ${PERIOD} is not a whole number of minutes dividing an hour`);

const farm = fork(fileURLToPath(new URL('./farm.ts', import.meta.url)), [String(SITES)], {
  execArgv: ['--import', 'tsx'],
});
const ports = await new Promise<number[]>((resolve) =>
  farm.once('message', (m: { ports: number[] }) => resolve(m.ports)),
);
const config = join(mkdtempSync(join(tmpdir(), 'robowatch-spread-')), 'robowatch.yaml');
writeFileSync(
  config,
  `agents: ${JSON.stringify(AGENTS)}
fetch: {allowPrivateAddresses: true, concurrency: 16}
sitemaps: off
schedule: {check: '*/${PERIOD} * * * *'}
sites:
${ports.map((p) => `  - {url: 'http://127.0.0.1:${p}', watch: ${JSON.stringify(WATCHES)}}`).join('\n')}
`,
);

const bench = await benchPostgres('robowatch_spread');
const sql = async (text: string) => Number(await queryValue(bench.url, text));
const backends = await databaseCpu(bench.url);
const until = async (what: string, condition: () => Promise<boolean>, minutes: number) => {
  const deadline = Date.now() + minutes * 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`bench:spread: ${what} did not happen in time`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};
const checks = () => sql('SELECT count(*)::text AS value FROM checks');

if ((await runRobowatch(['migrate', '--config', config], bench.url).exited).code !== 0)
  throw new Error('robowatch migrate failed');
const daemon = runRobowatch(['start', '--no-web', '--config', config], bench.url);
await until(
  'the first sweep',
  async () =>
    (await sql(
      'SELECT count(*)::text AS value FROM sites WHERE current_snapshot_id IS NOT NULL',
    )) === SITES,
  10,
);
// From the start of the next period to the start of the one after.
const periodMs = PERIOD * 60_000;
const nextPeriod = () => Math.ceil((Date.now() + 1_000) / periodMs) * periodMs;
const start = nextPeriod();
await new Promise((resolve) => setTimeout(resolve, start - Date.now()));
const checksBefore = await checks();
const daemonBefore = liveCpu(daemon.child.pid!);
backends.start();
await new Promise((resolve) => setTimeout(resolve, start + periodMs - Date.now()));
const spread = {
  checks: (await checks()) - checksBefore,
  own: liveCpu(daemon.child.pid!) - daemonBefore,
  backends: backends.stop(),
};
daemon.child.kill('SIGTERM');
if ((await daemon.exited).code !== 0) throw new Error('the daemon did not stop cleanly');

// The reference: the same sites checked at once by `robowatch check` (nothing changed).
const ownBefore = reapedCpu();
backends.start();
const once = runRobowatch(['check', '--config', config], bench.url);
if ((await once.exited).code !== 0) throw new Error('robowatch check failed');
const batched = { own: reapedCpu() - ownBefore, backends: backends.stop() };
await bench.drop();
farm.kill();

const ms = (seconds: number, n: number) => ((seconds * 1000) / n).toFixed(2);
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES.toLocaleString('en-US')} sites × 20 watches × 8 agents, a check every ${PERIOD} min, PostgreSQL on this machine`,
);
console.log('| nothing changed, CPU per check | robowatch, ms | its backends, ms | checks |');
console.log('|---|--:|--:|--:|');
console.log(
  `| the daemon's spread sweep (one period) | ${ms(spread.own, spread.checks)} | ${ms(spread.backends, spread.checks)} | ${spread.checks.toLocaleString('en-US')} |`,
);
console.log(
  `| \`robowatch check\`, all at once | ${ms(batched.own, SITES)} | ${ms(batched.backends, SITES)} | ${SITES.toLocaleString('en-US')} |`,
);
process.exit(0);
