/**
 * Check benchmark: `npm run bench:check`. 10,000 loopback sites, each with 20 watches × 8
 * agents, checked by the real CLI (`node dist/main.js check`, as users run it) against
 * PostgreSQL three times: all new, nothing changed, every file changed. In the same run,
 * a bare undici GET of the same 10,000 URLs at the same concurrency is the reference.
 * Prints sites/s and the ratios, the CLI's peak RSS, and database growth per unchanged
 * check.
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else
 * postgres://root@127.0.0.1:5432/postgres; a database robowatch_bench is (re)created there.
 */
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent } from 'undici';

const SITES = Number(process.env['BENCH_SITES'] ?? 10_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const WATCHES = [
  '/',
  '/admin/users',
  '/cart',
  '/search?q=robots',
  '/search/about',
  '/blog/',
  '/blog/2026/hello',
  '/private/x',
  '/docs/manual.pdf',
  '/docs/manual.html',
  '/products/1?sessionid=abc',
  '/products/1',
  '/about',
  '/contact',
  '/pricing',
  '/login',
  '/api/v1/items',
  '/news',
  '/news/tech',
  '/sitemap.xml',
];
const AGENTS = [
  'Googlebot',
  'Bingbot',
  'GPTBot',
  'ClaudeBot',
  'CCBot',
  'Google-Extended',
  'PerplexityBot',
  '*',
];
const root = fileURLToPath(new URL('..', import.meta.url));
const server = new URL(
  process.env['BENCH_DATABASE_URL'] ||
    process.env['TEST_DATABASE_URL'] ||
    process.env['DATABASE_URL'] ||
    'postgres://root@127.0.0.1:5432/postgres',
);
const database = new URL(server);
database.pathname = '/robowatch_bench';

async function sql(url: URL, text: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const result = await client.query<{ value: string }>(text);
  await client.end();
  return result.rows[0]?.value;
}

/** CPU milliseconds per site of the last bare fetch. */
let bareCpuMs = 0;

/** The reference: GET each robots.txt with undici, `CONCURRENCY` at a time, reading the body. */
async function bareFetch(origins: readonly string[]): Promise<number> {
  const cpu = process.cpuUsage();
  const agent = new Agent({ pipelining: 0 }); // as robowatch's fetcher: one connection per fetch
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < origins.length; i = next++) {
        const response = await agent.request({
          origin: origins[i]!,
          path: '/robots.txt',
          method: 'GET',
        });
        await response.body.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  bareCpuMs = (used.user + used.system) / 1000 / origins.length;
  await agent.close();
  return origins.length / seconds;
}

/** Runs `robowatch check --json`; returns sites/s, change events printed, and peak RSS (MB). */
async function runCheck(config: string, name: string): Promise<Run> {
  const started = performance.now();
  const pgBefore = postgresCpu();
  const commitsBefore = Number(await sql(database, COMMITS));
  // BENCH_PROFILE=DIR writes a CPU profile of each run to DIR/first, DIR/second, DIR/third.
  const flags = process.env['BENCH_PROFILE']
    ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env['BENCH_PROFILE'], name)}`]
    : [];
  const child = spawn(
    process.execPath,
    [...flags, join(root, 'dist/main.js'), 'check', '--json', '--config', config],
    {
      env: { ...process.env, DATABASE_URL: database.toString() },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let events = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 0x0a) events++;
  });
  // The kernel's high-water mark of the child's resident memory, read until it exits.
  // Its CPU time likewise (the last reading before it exits: at most 20 ms short).
  let peakKb = 0;
  let cpu = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      cpu = processCpu(child.pid!, false);
    } catch {
      // exited
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`robowatch check exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;
  return {
    rate: SITES / seconds,
    events,
    peakMb: peakKb / 1024,
    cpuMs: (cpu * 1000) / SITES,
    postgresCpuMs: ((postgresCpu() - pgBefore) * 1000) / SITES,
    commits: (Number(await sql(database, COMMITS)) - commitsBefore) / SITES,
  };
}

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

const TICKS = 100; // USER_HZ, the unit of /proc/<pid>/stat times on Linux
const COMMITS =
  "SELECT xact_commit::text AS value FROM pg_stat_database WHERE datname = 'robowatch_bench'";

/** CPU seconds of a process (user + system), with its reaped children's if asked. */
function processCpu(pid: number, children: boolean): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const at = (n: number) => Number(fields[n - 3]); // field n of proc(5), counted from 1
  return (at(14) + at(15) + (children ? at(16) + at(17) : 0)) / TICKS;
}

/**
 * CPU seconds of the local PostgreSQL: its postmaster with every backend it reaped,
 * plus the live ones. Null when PostgreSQL is not on this machine.
 */
let postmaster: number | undefined;
function postgresCpu(): number {
  if (postmaster === undefined) return 0;
  let total = processCpu(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === postmaster) total += processCpu(Number(entry), false);
    } catch {
      // gone
    }
  }
  return total;
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
  `agents: ${JSON.stringify(AGENTS)}
fetch: {allowPrivateAddresses: true, concurrency: ${CONCURRENCY}}
sites:
${origins.map((o) => `  - {url: '${o}', watch: ${JSON.stringify(WATCHES)}}`).join('\n')}
`,
);

await sql(server, 'DROP DATABASE IF EXISTS robowatch_bench WITH (FORCE)');
await sql(server, 'CREATE DATABASE robowatch_bench');
// The backend's parent is the postmaster, when PostgreSQL runs here.
{
  const client = new pg.Client({ connectionString: database.toString() });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  try {
    const stat = readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8');
    postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    postmaster = undefined; // PostgreSQL on another machine: its CPU is not measured
  }
  await client.end();
}
const size = async () =>
  Number(await sql(database, 'SELECT pg_database_size(current_database())::text AS value'));

await bareFetch(origins.slice(0, 2_000)); // warm up the JIT and the farm
const empty = await size();
const bare = await bareFetch(origins);
const first = await runCheck(config, 'first');
const before = await size();
const second = await runCheck(config, 'second');
const growth = (await size()) - before;
await setVersion(1);
const third = await runCheck(config, 'third');
const bareAfter = await bareFetch(origins);
const bareCpu = bareCpuMs;

farm.kill();
await sql(server, 'DROP DATABASE IF EXISTS robowatch_bench WITH (FORCE)');

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const reference = (bare + bareAfter) / 2;
const ratio = (rate: number) => `${(rate / reference).toFixed(2)}× bare`;
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites × ${WATCHES.length} watches × ${AGENTS.length} agents, ` +
    `concurrency ${CONCURRENCY}, PostgreSQL at ${server.host}`,
);
console.log('| measurement | value | target |');
console.log('|---|--:|--:|');
console.log(
  `| bare undici GET, sites/s (before and after: ${fmt(bare)}, ${fmt(bareAfter)}) | ${fmt(reference)} | |`,
);
console.log(
  `| \`robowatch check\`, first run (all new), sites/s | ${fmt(first.rate)} (${ratio(first.rate)}) | |`,
);
console.log(
  `| \`robowatch check\`, second run (nothing changed), sites/s | ${fmt(second.rate)} (${ratio(second.rate)}) | ≥ 0.5× bare |`,
);
console.log(
  `| \`robowatch check\`, third run (every file changed), sites/s | ${fmt(third.rate)} (${ratio(third.rate)}); ${fmt(third.events)} change events | |`,
);
const cpu = (run: Run) =>
  `${run.cpuMs.toFixed(2)} + ${run.postgresCpuMs.toFixed(2)} ms, ${run.commits.toFixed(2)} tx`;
console.log(
  `| CPU per site, robowatch + PostgreSQL, and transactions per site (first; second; third run; bare GET client ${bareCpu.toFixed(2)} ms) | ${cpu(first)}; ${cpu(second)}; ${cpu(third)} | |`,
);
console.log(
  `| peak RSS of \`robowatch check\` (first, second, third run) | ${fmt(Math.max(first.peakMb, second.peakMb, third.peakMb))} MB (${fmt(first.peakMb)}, ${fmt(second.peakMb)}, ${fmt(third.peakMb)}) | < 300 MB |`,
);
console.log(
  `| database size per site after the first run (${fmt((before - empty) / 1_048_576)} MB in all) | ${fmt((before - empty) / SITES)} B | < 10,000 B |`,
);
console.log(`| database growth per unchanged check | ${fmt(growth / SITES)} B | < 200 B |`);
