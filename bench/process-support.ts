/**
 * What the check and scale benchmarks share: the bare-GET reference, and measuring the
 * robowatch processes they start and the local PostgreSQL (CPU from /proc, peak RSS).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent } from 'undici';

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
 * The reference: GET each robots.txt with undici, `concurrency` at a time, reading the
 * body, one connection per fetch as robowatch's fetcher. Sites/s and CPU ms per site.
 */
export async function bareFetch(
  origins: readonly string[],
  concurrency: number,
): Promise<{ rate: number; cpuMs: number }> {
  const agent = new Agent({ pipelining: 0 });
  const cpu = process.cpuUsage();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
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
  await agent.close();
  return {
    rate: origins.length / seconds,
    cpuMs: (used.user + used.system) / 1000 / origins.length,
  };
}

const TICKS = 100; // USER_HZ, the unit of /proc/<pid>/stat times on Linux

function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds of a process (user + system), with its reaped children's if asked. */
function processCpu(pid: number, children: boolean): number {
  const fields = statFields(pid);
  const at = (n: number) => Number(fields[n - 3]); // field n of proc(5), counted from 1
  return (at(14) + at(15) + (children ? at(16) + at(17) : 0)) / TICKS;
}

/**
 * The CPU seconds of the PostgreSQL at `url` when it runs on this machine (its postmaster
 * with every backend it reaped, plus the live ones); a function that returns 0 otherwise.
 */
export async function postgresCpu(url: string): Promise<() => number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  let postmaster: number | undefined;
  try {
    postmaster = Number(statFields(rows[0]!.pid)[1]);
  } catch {
    postmaster = undefined; // PostgreSQL on another machine: its CPU is not measured
  }
  await client.end();
  if (postmaster === undefined) return () => 0;
  return () => {
    let total = processCpu(postmaster, true);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (Number(statFields(Number(entry))[1]) === postmaster)
          total += processCpu(Number(entry), false);
      } catch {
        // gone
      }
    }
    return total;
  };
}

/** A robowatch process (`node dist/main.js …`), its stdout's lines counted. */
export interface Robowatch {
  readonly child: ChildProcess;
  /** Lines it printed on stdout so far. */
  lines(): number;
  /** Its exit code, once it exits, with its peak RSS (MB) and CPU seconds. */
  readonly exited: Promise<{ code: number | null; peakMb: number; cpuSeconds: number }>;
}

/**
 * Starts `robowatch ARGS` with DATABASE_URL; reads the kernel's high-water mark of its
 * resident memory and its CPU time every 20 ms until it exits (at most 20 ms short).
 * `profileDir` writes a CPU profile there.
 */
export function runRobowatch(
  args: readonly string[],
  databaseUrl: string,
  profileDir?: string,
  onStdout?: (text: string) => void,
): Robowatch {
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...flags, join(root, 'dist/main.js'), ...args], {
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
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      cpuSeconds = processCpu(child.pid!, false);
    } catch {
      // exited
    }
  }, 20);
  const exited = new Promise<{ code: number | null; peakMb: number; cpuSeconds: number }>(
    (resolve) =>
      child.on('close', (code) => {
        clearInterval(poll);
        resolve({ code, peakMb: peakKb / 1024, cpuSeconds });
      }),
  );
  return { child, lines: () => lines, exited };
}

export const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
