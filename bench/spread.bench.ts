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
 * Then one more period in which every file has changed (the farm's files gain a rule as
 * it starts, as bench:check's changed check): the daemon's changed checks. Each period is
 * also told as issue 31's CPU ratio, as bench:check tells it (the bare GET, an undici
 * Agent at the same concurrency, client + farm, ÷ robowatch + its backends + the farm
 * answering its checks), with the bare GET measured in the same run and warmed first as
 * bench:check's is (warmBareClients): what the changed check's target would read in the
 * warm process where robowatch runs every day.
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
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AGENTS,
  bareFetch,
  compareBuild,
  liveCpu,
  queryValue,
  reapedCpu,
  runRobowatch,
  scratchDir,
  setFarmVersion,
  startDaemon,
  startFarm,
  warmBareClients,
  WATCHES,
} from './process-support.js';
import { printStatements, statementLog } from './statement-cpu.js';
import type { StatementLog, StatementTable } from './statement-cpu.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const PERIOD = Number(process.env['BENCH_PERIOD'] ?? 2);
const PERIODS = Number(process.env['BENCH_PERIODS'] ?? 1);
const OTHER = compareBuild();
/** The daemon's fetch concurrency, and the bare GET's. */
const CONCURRENCY = 16;
const COMPARE = OTHER?.dir;
const OTHER_MAIN = OTHER?.main;
if (!Number.isInteger(PERIOD) || PERIOD < 1 || PERIOD > 30 || 60 % PERIOD !== 0)
  throw new Error(`BENCH_PERIOD: ${PERIOD} is not a whole number of minutes dividing an hour`);

const { farm, ports } = await startFarm(SITES);
const config = join(scratchDir('robowatch-spread-'), 'robowatch.yaml');
writeFileSync(
  config,
  `agents: ${JSON.stringify(AGENTS)}
fetch: {allowPrivateAddresses: true, concurrency: ${CONCURRENCY}}
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

/**
 * CPU per check over one period of each daemon: ms of robowatch, of its backends and of
 * the farm answering (shared by the daemons' checks), and the new states it recorded.
 */
interface Spread {
  readonly checks: number;
  readonly states: number;
  readonly own: number;
  readonly backends: number;
  readonly farm: number;
}
const periodMs = PERIOD * 60_000;
const STATES = 'SELECT count(*)::text AS value FROM snapshots';
/** One whole period, from the start of the next; `atStart` runs as it starts. */
async function period(
  atStart?: () => Promise<void>,
): Promise<{ rows: Spread[]; logged: StatementTable | undefined }> {
  const start = Math.ceil((Date.now() + 1_000) / periodMs) * periodMs;
  await new Promise((resolve) => setTimeout(resolve, start - Date.now()));
  await atStart?.();
  const before = await Promise.all(
    daemons.map(async (d) => ({
      checks: await d.checks(),
      states: await d.sql(STATES),
      own: liveCpu(d.daemon.child.pid!),
    })),
  );
  const farmBefore = liveCpu(farm.pid!);
  for (const d of daemons) d.backends.start();
  const logFrom = statements?.mark();
  await new Promise((resolve) => setTimeout(resolve, start + periodMs - Date.now()));
  const logged =
    statements && logFrom !== undefined ? statements.read(logFrom, statements.mark()) : undefined;
  const farmCpu = liveCpu(farm.pid!) - farmBefore;
  const rows = await Promise.all(
    daemons.map(async (d, i) => {
      const backends = d.backends.stop();
      const checks = (await d.checks()) - before[i]!.checks;
      const own = liveCpu(d.daemon.child.pid!) - before[i]!.own;
      return {
        checks,
        states: (await d.sql(STATES)) - before[i]!.states,
        own: (own * 1000) / checks,
        backends: (backends * 1000) / checks,
      };
    }),
  );
  const allChecks = rows.reduce((sum, r) => sum + r.checks, 0);
  return { rows: rows.map((r) => ({ ...r, farm: (farmCpu * 1000) / allChecks })), logged };
}
const spreads: Spread[][] = [];
for (let p = 0; p < PERIODS; p++) {
  const { rows, logged } = await period();
  spreads.push(rows);
  if (logged !== undefined) statementPeriods.push(logged);
}
// Every file changed as the period starts: each site's check in it finds a new state.
const { rows: changed, logged: changedStatements } = await period(() => setFarmVersion(farm, 1));
for (const d of daemons) {
  d.daemon.child.kill('SIGTERM');
  if ((await d.daemon.exited).code !== 0) throw new Error('the daemon did not stop cleanly');
}

// Issue 31's reference: a bare GET of every site, as bench:check makes it: warm.
const origins = ports.map((port) => `http://127.0.0.1:${port}`);
await warmBareClients(origins, CONCURRENCY);
const bareFarmBefore = liveCpu(farm.pid!);
const bareGet = await bareFetch(origins, CONCURRENCY);
const bare = {
  client: bareGet.cpuMs,
  farm: ((liveCpu(farm.pid!) - bareFarmBefore) * 1000) / SITES,
};
const ratio = (r: Spread) => (bare.client + bare.farm) / (r.own + r.backends + r.farm);
// The stricter one, without the farm: a farm woken for each check alone (25 a second) spends
// more a request than one answering a burst, which is the schedule's doing, not robowatch's.
const strict = (r: Spread) => bare.client / (r.own + r.backends);

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
console.log(
  '| CPU per check | robowatch, ms | its backends, ms | the farm, ms | checks (new states) | CPU ratio: bare GET ÷ check; without the farm |',
);
console.log('|---|--:|--:|--:|--:|--:|');
const line = (label: string, row: readonly Spread[]) =>
  row.forEach((r, i) =>
    console.log(
      `| ${label}${i === 0 ? '' : `, ${COMPARE}`} | ${ms(r.own)} | ${ms(r.backends)} | ${ms(r.farm)} | ${r.checks.toLocaleString('en-US')} (${r.states.toLocaleString('en-US')}) | ${ms(ratio(r))}; ${ms(strict(r))} |`,
    ),
  );
spreads.forEach((row, p) =>
  line(`nothing changed: the daemon's spread sweep, period ${p + 1}`, row),
);
line("every file changed: the daemon's next period", changed);
console.log(
  `| nothing changed: \`robowatch check\`, all at once | ${ms((batched.own * 1000) / SITES)} | ${ms((batched.backends * 1000) / SITES)} | | ${SITES.toLocaleString('en-US')} | |`,
);
console.log(
  `\nThe bare GET (an undici Agent, concurrency ${CONCURRENCY}, as bench:check): client ${ms(bare.client)} ms, farm ${ms(bare.farm)} ms a site; issue 31's targets: 0.7 nothing changed, 0.5 every file changed.`,
);
if (COMPARE !== undefined)
  console.log(
    `\nthis build ÷ ${COMPARE}, CPU per check (robowatch + backends), period by period: ${spreads
      .concat([changed])
      .map(([a, b]) => ((a!.own + a!.backends) / (b!.own + b!.backends)).toFixed(2))
      .join(', ')} (the last: every file changed)`,
  );
if (statementPeriods.length > 0)
  printStatements(statementPeriods, {
    title: "this build's daemon, nothing changed, each period",
    unit: 'a check',
    units: SITES,
  });
if (changedStatements !== undefined)
  printStatements([changedStatements], {
    title: "this build's daemon, every file changed",
    unit: 'a check',
    units: SITES,
  });
process.exit(0);
