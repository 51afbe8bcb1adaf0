/**
 * What the check and scale benchmarks share: the bare-GET reference, and measuring the
 * robowatch processes they start and the local PostgreSQL (CPU from /proc, peak RSS).
 */
import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { get as httpGet } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, Client } from 'undici';
import { benchPostgres } from './web-support.js';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The check benchmarks' workload: each site's 20 watched URLs and 8 crawlers. */
export const WATCHES = [
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
export const AGENTS = [
  'Googlebot',
  'Bingbot',
  'GPTBot',
  'ClaudeBot',
  'CCBot',
  'Google-Extended',
  'PerplexityBot',
  '*',
];

/** The first value of a query's first row, as text. */
export async function queryValue(url: string, text: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ value: string }>(text);
    return result.rows[0]?.value;
  } finally {
    await client.end();
  }
}

/**
 * How the reference GETs: `agent`, an undici Agent told to keep no connection
 * (pipelining 0), as robowatch's fetcher did until 2026-11-27 and as issue 31 set its
 * targets against; `client`, an undici Client per site closed gracefully once its answer
 * is read, as it fetched until 2026-11-29; `node`, Node's own HTTP client with a
 * connection of its own per site (no agent), as it fetches now.
 */
export type BareKind = 'agent' | 'client' | 'node';

/**
 * Runs the reference client once over (up to) 2,000 of the sites (`sites`) before it is
 * measured, so that its code is compiled and the farm's too: every benchmark's reference
 * is a warm bare GET. Measured cold, once, it cost its client about twice the CPU a GET
 * (bench:spread before 2026-12-06: 0.91 and 1.30 ms against bench:check's 0.64-0.75 in
 * the same hours), and a ratio against it read twice as good as it is.
 */
export async function warmBareClients(
  origins: readonly string[],
  concurrency: number,
  kinds: readonly BareKind[] = ['agent'],
  sites = 2_000,
): Promise<void> {
  for (const kind of kinds) await bareFetch(origins.slice(0, sites), concurrency, kind);
}

/**
 * The reference: GET each robots.txt with undici, `concurrency` at a time, reading the
 * body, one connection per site. Sites/s and CPU ms per site.
 */
export async function bareFetch(
  origins: readonly string[],
  concurrency: number,
  kind: BareKind = 'agent',
): Promise<{ rate: number; cpuMs: number; kernel: number }> {
  const agent = new Agent({ pipelining: 0 });
  const get = async (origin: string) => {
    if (kind === 'agent') {
      const response = await agent.request({ origin, path: '/robots.txt', method: 'GET' });
      await response.body.arrayBuffer();
      return;
    }
    if (kind === 'node') {
      await new Promise<void>((resolve, reject) => {
        const request = httpGet(`${origin}/robots.txt`, { agent: false }, (response) => {
          response.on('data', () => undefined);
          response.on('end', resolve);
          response.on('error', reject);
        });
        request.on('error', reject);
      });
      return;
    }
    const client = new Client(origin);
    const response = await client.request({ path: '/robots.txt', method: 'GET' });
    await response.body.arrayBuffer();
    await client.close();
  };
  const cpu = process.cpuUsage();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < origins.length; i = next++) await get(origins[i]!);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  return {
    rate: origins.length / seconds,
    cpuMs: (used.user + used.system) / 1000 / origins.length,
    // The share in the kernel (system time): the connections' system calls, page faults.
    kernel: used.user + used.system > 0 ? used.system / (used.user + used.system) : 0,
  };
}

/**
 * The same bare GET (an undici Agent keeping no connection) in a fresh process of its own,
 * reading each origin once from its standard input: its CPU as a reaped child, start-up
 * and warm-up included, as robowatch's `check` pays them. Not the target's reference (that
 * one is warm, bareFetch after warmBareClients); what a ratio against a client as cold as
 * the check would read. CPU ms per site. Its loop is bareFetch's `agent` one written out as
 * a script, not imported: the process loads nothing but undici (a TypeScript loader would
 * add its own start-up to what is measured).
 */
export async function freshBareFetch(
  origins: readonly string[],
  concurrency: number,
): Promise<{ cpuMs: number }> {
  const script = `
    import { Agent } from 'undici';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const origins = input.split('\\n').filter(Boolean);
    const agent = new Agent({ pipelining: 0 });
    let next = 0;
    await Promise.all(Array.from({ length: ${concurrency} }, async () => {
      for (let i = next++; i < origins.length; i = next++) {
        const response = await agent.request({ origin: origins[i], path: '/robots.txt', method: 'GET' });
        await response.body.arrayBuffer();
      }
    }));
    await agent.close();`;
  const before = reapedCpu();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.stdin.end(origins.join('\n') + '\n');
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the fresh bare client exited with ${code}`);
  return { cpuMs: ((reapedCpu() - before) * 1000) / origins.length };
}

const TICKS = 100; // USER_HZ, the unit of /proc/<pid>/stat times on Linux

/** The fields of /proc/ID/stat after the command name (ID: a pid, or PID/task/TID). */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds of a process (user + system), with its reaped children's if asked. */
function processCpu(pid: number, children: boolean): number {
  const fields = statFields(pid);
  const at = (n: number) => Number(fields[n - 3]); // field n of proc(5), counted from 1
  return (at(14) + at(15) + (children ? at(16) + at(17) : 0)) / TICKS;
}

/** CPU seconds of the processes this one has reaped (cutime + cstime): exact for a child that exited. */
export function reapedCpu(): number {
  const fields = statFields(process.pid);
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / TICKS;
}

/** The system part of reapedCpu (cstime): what the reaped processes spent in the kernel. */
export function reapedSystemCpu(): number {
  return Number(statFields(process.pid)[17 - 3]) / TICKS;
}

/**
 * Minor page faults of the processes this one has reaped (cminflt): robowatch's, for a
 * check run as a child. Each is a first touch of a page of memory the process had not used.
 */
export function reapedFaults(): number {
  return Number(statFields(process.pid)[11 - 3]);
}

/**
 * What a first touch of a fresh page of memory costs this machine, in µs of CPU: 64 MiB
 * taken from the kernel and touched page by page, three times, the median. A page fault is
 * a fraction of a microsecond on bare metal; in some virtual machines it is tens (the host
 * backs the guest's page on first touch), and then every MB a process grows by costs it
 * CPU: robowatch and PostgreSQL grow by far more than a bare client (docs/performance.md).
 */
export function freshPageCost(): number {
  const PAGE = 4096;
  const bytes = 64 * 1024 * 1024;
  const costs: number[] = [];
  for (let n = 0; n < 3; n++) {
    // Not zero-filled, and large enough that the allocator maps it fresh from the kernel.
    const buffer = Buffer.allocUnsafeSlow(bytes);
    const before = process.cpuUsage();
    for (let i = 0; i < bytes; i += PAGE) buffer[i] = 1;
    const used = process.cpuUsage(before);
    costs.push((used.user + used.system) / (bytes / PAGE));
  }
  return costs.sort((a, b) => a - b)[1]!;
}

/** CPU seconds of a live process, such as the farm a benchmark forked. */
export function liveCpu(pid: number): number {
  return processCpu(pid, false);
}

/** Measures the CPU of the PostgreSQL backends serving one database, between start and stop. */
export interface DatabaseCpu {
  start(): void;
  /** CPU seconds its backends spent since start(). */
  stop(): number;
  /** Their minor page faults between start() and the last stop(). */
  faults(): number;
}

/**
 * The CPU of the backends of the PostgreSQL at `url` (on this machine) that serve the
 * database `url` names, and of no other: the postmaster's children whose process title
 * ("postgres: 15/main: USER DATABASE HOST(PORT) STATE") names the database, autovacuum
 * workers on it included. Backends come and go with connections, so while it runs it reads
 * the known backends every 10 ms (and looks for new ones every 100 ms: a backend found
 * late is counted from its start) and keeps each one's last reading; a backend that exits
 * loses at most its last 10 ms, which the idle end of a connection's life is. PostgreSQL on another
 * machine: it measures 0.
 */
export async function databaseCpu(url: string): Promise<DatabaseCpu> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  let postmaster: number | undefined;
  try {
    postmaster = Number(statFields(rows[0]!.pid)[1]);
  } catch {
    postmaster = undefined;
  }
  await client.end();
  const ours = new Map<number, boolean>(); // pid → serves the database
  const baseline = new Map<number, number>(); // CPU at start(), 0 for backends started since
  const last = new Map<number, number>();
  const faultsAt = new Map<number, { from: number; to: number }>(); // minflt at start, last read
  const faultsOf = (pid: number) => Number(statFields(pid)[10 - 3]);
  const scan = (first: boolean) => {
    if (postmaster === undefined) return;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      try {
        // Not the postmaster's child: never. Its child: once its title names the database
        // (a new backend's title is set only once the connection is authenticated).
        let serves = ours.get(pid);
        if (serves === undefined && Number(statFields(pid)[1]) !== postmaster)
          ours.set(pid, (serves = false));
        if (serves === false) continue;
        if (serves === undefined) {
          if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${name} `)) continue;
          ours.set(pid, true);
        }
        const cpu = processCpu(pid, false);
        if (!baseline.has(pid)) baseline.set(pid, first ? cpu : 0);
        last.set(pid, cpu);
        const faults = faultsOf(pid);
        const known = faultsAt.get(pid);
        if (known === undefined) faultsAt.set(pid, { from: first ? faults : 0, to: faults });
        else known.to = faults;
      } catch {
        // exited
      }
    }
  };
  /** Reads the backends already known (cheap); a scan of /proc finds new ones. */
  const read = () => {
    for (const pid of last.keys()) {
      try {
        last.set(pid, processCpu(pid, false));
        faultsAt.get(pid)!.to = faultsOf(pid);
      } catch {
        // exited: its last reading stands
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let ticks = 0;
  return {
    start() {
      ours.clear();
      baseline.clear();
      last.clear();
      faultsAt.clear();
      scan(true);
      timer = setInterval(() => (++ticks % 10 === 0 ? scan(false) : read()), 10);
    },
    stop() {
      clearInterval(timer);
      scan(false);
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (baseline.get(pid) ?? 0);
      return total;
    },
    faults() {
      let total = 0;
      for (const { from, to } of faultsAt.values()) total += to - from;
      return total;
    },
  };
}

/** A robowatch process (`node dist/main.js …`), its stdout's lines counted. */
export interface Robowatch {
  readonly child: ChildProcess;
  /** Lines it printed on stdout so far. */
  lines(): number;
  /**
   * Its progress as polled every 20 ms: lines printed so far and CPU seconds spent so far
   * (all threads), in time order: what a site costs early in the run and once warm.
   */
  progress(): readonly (readonly [lines: number, cpuSeconds: number])[];
  /**
   * Its exit code, once it exits, with its peak RSS (MB) and CPU seconds, and the CPU
   * seconds of its main thread alone (the rest is V8's and libuv's helper threads:
   * garbage collection, optimising compilation, the thread pool). Both are polled, so
   * they may fall up to 20 ms short.
   */
  readonly exited: Promise<{
    code: number | null;
    peakMb: number;
    cpuSeconds: number;
    mainThreadSeconds: number;
  }>;
}

/**
 * The node flags for robowatch's processes of this build (`own`) or of the BENCH_COMPARE
 * build's: BENCH_NODE_FLAGS, an experiment's options for robowatch alone; BENCH_COMPARE_FLAGS,
 * the other build's, BENCH_NODE_FLAGS when unset (`BENCH_COMPARE=.` pairs two sets of flags
 * on one build: the other build is told by being named, not by its path).
 */
export function nodeFlags(own: boolean): string[] {
  return (
    (own
      ? process.env['BENCH_NODE_FLAGS']
      : (process.env['BENCH_COMPARE_FLAGS'] ?? process.env['BENCH_NODE_FLAGS'])) ?? ''
  )
    .split(' ')
    .filter((f) => f !== '');
}

/** The median of values (the lower one of an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Values as "min / median / max" (the lower median of an even count). */
export function spread(values: readonly number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[0]!.toFixed(digits)} / ${median(sorted).toFixed(digits)} / ${sorted.at(-1)!.toFixed(digits)}`;
}

/**
 * Starts `robowatch ARGS` with DATABASE_URL; reads the kernel's high-water mark of its
 * resident memory and its CPU time every 20 ms until it exits (at most 20 ms short).
 * `profileDir` writes a CPU profile there; `main` runs another build (bench:check's
 * BENCH_COMPARE), with that build's node flags (nodeFlags).
 */
export function runRobowatch(
  args: readonly string[],
  databaseUrl: string,
  profileDir?: string,
  onStdout?: (text: string) => void,
  main?: string,
): Robowatch {
  const flags = [
    ...nodeFlags(main === undefined),
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  const child = spawn(process.execPath, [...flags, main ?? join(root, 'dist/main.js'), ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let lines = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    onStdout?.(chunk.toString('utf8'));
    for (const byte of chunk) if (byte === 0x0a) lines++;
  });
  let peakKb = 0;
  let cpuSeconds = 0;
  let mainThreadSeconds = 0;
  const progress: (readonly [number, number])[] = [];
  // BENCH_THREADS=1: CPU seconds per thread, printed on stderr when it exits.
  const threads = process.env['BENCH_THREADS']
    ? new Map<string, { name: string; seconds: number }>()
    : undefined;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      cpuSeconds = processCpu(child.pid!, false);
      progress.push([lines, cpuSeconds]);
      // The main thread is the task whose id is the process's.
      const fields = statFields(`${child.pid}/task/${child.pid}`);
      mainThreadSeconds = (Number(fields[14 - 3]) + Number(fields[15 - 3])) / TICKS;
      if (threads !== undefined)
        for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
          const stat = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8');
          const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          threads.set(tid, { name, seconds: (Number(f[14 - 3]) + Number(f[15 - 3])) / TICKS });
        }
    } catch {
      // exited
    }
  }, 20);
  const exited = new Promise<{
    code: number | null;
    peakMb: number;
    cpuSeconds: number;
    mainThreadSeconds: number;
  }>((resolve) =>
    child.on('close', (code) => {
      clearInterval(poll);
      if (threads !== undefined) {
        const list = [...threads].map(([tid, { name, seconds }]) => ({ tid, name, seconds }));
        list.sort((a, b) => b.seconds - a.seconds);
        process.stderr.write(
          `threads of robowatch ${args[0] ?? ''}: ${list.map((t) => `${t.name}#${t.tid} ${t.seconds.toFixed(2)} s`).join(', ')}\n`,
        );
      }
      resolve({ code, peakMb: peakKb / 1024, cpuSeconds, mainThreadSeconds });
    }),
  );
  return { child, lines: () => lines, progress: () => progress, exited };
}

/**
 * Runs `robowatch ARGS` (runRobowatch) to its end, with the CPU seconds it spent (a reaped
 * child's, exact) and the backends serving its database spent meanwhile; throws if it fails.
 */
export async function measuredRun(
  args: readonly string[],
  databaseUrl: string,
  backends: DatabaseCpu,
  options: { readonly profileDir?: string | undefined; readonly main?: string | undefined } = {},
) {
  const before = reapedCpu();
  const systemBefore = reapedSystemCpu();
  backends.start();
  const run = runRobowatch(args, databaseUrl, options.profileDir, undefined, options.main);
  const exited = await run.exited;
  const backendSeconds = backends.stop();
  if (exited.code !== 0) throw new Error(`robowatch ${args[0]} exited with ${exited.code}`);
  const own = reapedCpu() - before;
  return {
    ...exited,
    lines: run.lines(),
    progress: run.progress(),
    own,
    // The share of robowatch's CPU spent in the kernel (its system time).
    kernel: own > 0 ? (reapedSystemCpu() - systemBefore) / own : 0,
    backends: backendSeconds,
  };
}

export const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

/**
 * BENCH_COMPARE=DIR: the entry point of another build (a checkout of another commit,
 * built) to pair with this one, or undefined.
 */
export function compareBuild(): { dir: string; main: string } | undefined {
  const dir = process.env['BENCH_COMPARE'];
  if (dir === undefined) return undefined;
  const main = join(resolve(dir), 'dist/main.js');
  if (!existsSync(main))
    throw new Error(`BENCH_COMPARE: ${main} does not exist (build that checkout first)`);
  return { dir, main };
}

/**
 * A benchmark's scratch directory (`prefix` + a random tail, in the system's temporary
 * directory), removed when the process exits. robowatch's cache of parsed configurations
 * (tree-cache.ts) goes in it too, unless ROBOWATCH_CACHE_DIR is set: a benchmark's
 * configuration is new each run (its ports), so the configuration (1 MB at 3,000 sites)
 * and its parsed forms had piled up in /tmp and ~/.cache/robowatch, a megabyte or more a
 * run.
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.env['ROBOWATCH_CACHE_DIR'] ??= join(dir, 'cache');
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The intent that every farm file meets (its home page open to the search engines), for
 * `intentMet`: under the built-in one (every watched page open to them) each farm site is
 * not as intended, keeping Bingbot out of /admin/ and Googlebot out of /private/, so each
 * new state writes a report of its violations and opens or updates an incident.
 */
const MET_INTENT = `intent: [{watch: '/', agents: ['@search'], expect: allowed}]`;

/**
 * The check benchmarks' sites: the farm answering for `sites` of them, each on a port of
 * its own watched at WATCHES for AGENTS (or the default crawlers), written as a
 * configuration file; `setVersion` changes every file (0 and 1 differ by one rule). With
 * `intentMet`, every site is as its owner intends (MET_INTENT), so that a run can tell
 * what judging a site that is not costs.
 */
export async function farmSites(
  sites: number,
  options: {
    readonly concurrency: number;
    readonly defaultAgents?: boolean;
    readonly intentMet?: boolean;
  },
): Promise<{
  farm: ChildProcess;
  origins: string[];
  config: string;
  setVersion: (version: number) => Promise<void>;
}> {
  const { farm, ports } = await startFarm(sites);
  const origins = ports.map((port) => `http://127.0.0.1:${port}`);
  const dir = scratchDir('robowatch-bench-');
  const config = join(dir, 'robowatch.yaml');
  writeFileSync(
    config,
    // defaultAgents: the default crawlers (@search, @ai, *: 167), not the 8 of AGENTS.
    `${options.defaultAgents === true ? '' : `agents: ${JSON.stringify(AGENTS)}`}
fetch: {allowPrivateAddresses: true, concurrency: ${options.concurrency}}
# The farm's files name sitemaps on hosts that do not resolve: coverage has its own benchmark.
sitemaps: off
${options.intentMet === true ? MET_INTENT : ''}
sites:
${origins.map((o) => `  - {url: '${o}', watch: ${JSON.stringify(WATCHES)}}`).join('\n')}
`,
  );
  return { farm, origins, config, setVersion: (version) => setFarmVersion(farm, version) };
}

/** Tells the farm which version of its files to serve (0 and 1 differ by one rule); resolves once it does. */
export function setFarmVersion(farm: ChildProcess, version: number): Promise<void> {
  return new Promise<void>((resolve) => {
    farm.once('message', () => resolve());
    farm.send({ version });
  });
}

/** The loopback farm (bench/farm.ts) answering for `sites` sites, each on a port of its own. */
export async function startFarm(sites: number): Promise<{ farm: ChildProcess; ports: number[] }> {
  const farm = fork(fileURLToPath(new URL('./farm.ts', import.meta.url)), [String(sites)], {
    execArgv: ['--import', 'tsx'],
  });
  const ports = await new Promise<number[]>((resolve) =>
    farm.once('message', (m: { ports: number[] }) => resolve(m.ports)),
  );
  return { farm, ports };
}

/**
 * A daemon (`robowatch start --no-web`) of one build (`main`; this checkout's by default)
 * on a database of its own named after `name`, its schema made first as the README runs
 * `robowatch migrate`; with the CPU of the backends serving that database.
 */
export async function startDaemon(
  config: string,
  name: string,
  main?: string,
  /** Runs on the database once its schema is made, before the daemon connects. */
  prepare?: (url: string) => Promise<unknown>,
) {
  const bench = await benchPostgres(name);
  const migrate = runRobowatch(
    ['migrate', '--config', config],
    bench.url,
    undefined,
    undefined,
    main,
  );
  if ((await migrate.exited).code !== 0) throw new Error('robowatch migrate failed');
  await prepare?.(bench.url);
  const daemon = runRobowatch(
    ['start', '--no-web', '--config', config],
    bench.url,
    undefined,
    undefined,
    main,
  );
  return { bench, daemon, backends: await databaseCpu(bench.url) };
}
