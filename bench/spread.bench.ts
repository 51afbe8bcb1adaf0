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
 *
 * BENCH_PERIODS (1): periods measured, one after another, each on its own line.
 * BENCH_COMPARE=DIR (a built checkout of another commit): that build's daemon runs beside
 * this one's, at the same time, on a database of its own, checking the same sites; each
 * period then prints both and this ÷ that. Paired so, the machine's drift moves both
 * alike (one build paired with itself: within 4%), where two runs an hour apart cannot
 * compare builds.
 * BENCH_PG_LOG=FILE (the PostgreSQL server's log file, readable here): this build's
 * backends' CPU by statement and phase per check, each period (statement-cpu.ts; the
 * logging costs the backends a little of its own).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AGENTS,
  compareBuild,
  liveCpu,
  queryValue,
  reapedCpu,
  runRobowatch,
  startDaemon,
  startFarm,
  WATCHES,
} from './process-support.js';
import { printStatements, statementLog } from './statement-cpu.js';
import type { StatementLog, StatementTable } from './statement-cpu.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const PERIOD = Number(process.env['BENCH_PERIOD'] ?? 2);
const PERIODS = Number(process.env['BENCH_PERIODS'] ?? 1);
const OTHER = compareBuild();
const COMPARE = OTHER?.dir;
const OTHER_MAIN = OTHER?.main;
if (!Number.isInteger(PERIOD) || PERIOD < 1 || PERIOD > 30 || 60 % PERIOD !== 0)
  throw new Error(`BENCH_PERIOD: ${PERIOD} is not a whole number of minutes dividing an hour`);

const { farm, ports } = await startFarm(SITES);
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

// BENCH_PG_LOG=FILE: the server's log, to tell this build's backends' CPU by statement.
const PG_LOG = process.env['BENCH_PG_LOG'];
let statements: StatementLog | undefined;
const statementPeriods: StatementTable[] = [];

/** A daemon of one build (`main`; this one's by default) on a database of its own. */
async function daemonOf(name: string, main?: string) {
  const daemon = await startDaemon(config, name, main, async (url) => {
    if (main === undefined && PG_LOG !== undefined) statements = await statementLog(url, PG_LOG);
  });
  const sql = async (text: string) => Number(await queryValue(daemon.bench.url, text));
  return { ...daemon, sql, checks: () => sql('SELECT count(*)::text AS value FROM checks') };
}

const until = async (what: string, condition: () => Promise<boolean>, minutes: number) => {
  const deadline = Date.now() + minutes * 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`bench:spread: ${what} did not happen in time`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

const daemons = [await daemonOf('robowatch_spread')];
if (OTHER_MAIN !== undefined) daemons.push(await daemonOf('robowatch_spread_b', OTHER_MAIN));
for (const d of daemons)
  await until(
    'the first sweep',
    async () =>
      (await d.sql(
        'SELECT count(*)::text AS value FROM sites WHERE current_snapshot_id IS NOT NULL',
      )) === SITES,
    10,
  );

/** CPU per check over one period of each daemon: ms of robowatch and of its backends. */
interface Spread {
  readonly checks: number;
  readonly own: number;
  readonly backends: number;
}
const periodMs = PERIOD * 60_000;
const spreads: Spread[][] = [];
for (let p = 0; p < PERIODS; p++) {
  // From the start of the next period to the start of the one after.
  const start = Math.ceil((Date.now() + 1_000) / periodMs) * periodMs;
  await new Promise((resolve) => setTimeout(resolve, start - Date.now()));
  const before = await Promise.all(
    daemons.map(async (d) => ({ checks: await d.checks(), own: liveCpu(d.daemon.child.pid!) })),
  );
  for (const d of daemons) d.backends.start();
  const logFrom = statements?.mark();
  await new Promise((resolve) => setTimeout(resolve, start + periodMs - Date.now()));
  if (statements && logFrom !== undefined)
    statementPeriods.push(statements.read(logFrom, statements.mark()));
  spreads.push(
    await Promise.all(
      daemons.map(async (d, i) => {
        const backends = d.backends.stop();
        const checks = (await d.checks()) - before[i]!.checks;
        const own = liveCpu(d.daemon.child.pid!) - before[i]!.own;
        return { checks, own: (own * 1000) / checks, backends: (backends * 1000) / checks };
      }),
    ),
  );
}
for (const d of daemons) {
  d.daemon.child.kill('SIGTERM');
  if ((await d.daemon.exited).code !== 0) throw new Error('the daemon did not stop cleanly');
}

// The reference: the same sites checked at once by `robowatch check` (nothing changed).
const [ours] = daemons;
const ownBefore = reapedCpu();
ours!.backends.start();
const once = runRobowatch(['check', '--config', config], ours!.bench.url);
if ((await once.exited).code !== 0) throw new Error('robowatch check failed');
const batched = { own: reapedCpu() - ownBefore, backends: ours!.backends.stop() };
for (const d of daemons) await d.bench.drop();
farm.kill();

const ms = (n: number) => n.toFixed(2);
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES.toLocaleString('en-US')} sites × 20 watches × 8 agents, a check every ${PERIOD} min, PostgreSQL on this machine`,
);
console.log('| nothing changed, CPU per check | robowatch, ms | its backends, ms | checks |');
console.log('|---|--:|--:|--:|');
spreads.forEach((row, p) =>
  row.forEach((r, i) =>
    console.log(
      `| the daemon's spread sweep, period ${p + 1}${i === 0 ? '' : `, ${COMPARE}`} | ${ms(r.own)} | ${ms(r.backends)} | ${r.checks.toLocaleString('en-US')} |`,
    ),
  ),
);
console.log(
  `| \`robowatch check\`, all at once | ${ms((batched.own * 1000) / SITES)} | ${ms((batched.backends * 1000) / SITES)} | ${SITES.toLocaleString('en-US')} |`,
);
if (COMPARE !== undefined)
  console.log(
    `\nthis build ÷ ${COMPARE}, CPU per check (robowatch + backends), period by period: ${spreads
      .map(([a, b]) => ((a!.own + a!.backends) / (b!.own + b!.backends)).toFixed(2))
      .join(', ')}`,
  );
if (statementPeriods.length > 0)
  printStatements(statementPeriods, {
    title: "this build's daemon, nothing changed, each period",
    unit: 'a check',
    units: SITES,
  });
process.exit(0);
