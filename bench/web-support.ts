/** What the web benchmarks share: a PostgreSQL database of their own, and timing a page. */
import pg from 'pg';
import type { createApp } from '../src/web/app.js';
import type { DatabaseCpu } from './process-support.js';

/**
 * A fresh database `name` on the benchmark's PostgreSQL server (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else DATABASE_URL, else postgres://root@127.0.0.1:5432/postgres),
 * and how to drop it.
 */
/**
 * A database for one benchmark run, named `PREFIX_PID` (two runs side by side, or a run
 * beside the tests, never drop each other's), dropped by `drop()`.
 */
export async function benchPostgres(
  prefix: string,
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}`;
  const adminUrl = new URL(
    process.env['BENCH_DATABASE_URL'] ||
      process.env['TEST_DATABASE_URL'] ||
      process.env['DATABASE_URL'] ||
      'postgres://root@127.0.0.1:5432/postgres',
  );
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: adminUrl.toString() });
    await client.connect();
    await client.query(text);
    await client.end();
  };
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  return {
    url: url.toString(),
    name,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export interface Timing {
  readonly p50: number;
  readonly p95: number;
  /** The answer's size in bytes. */
  readonly bytes: number;
  /**
   * CPU ms a request, on average: this process's (the app, and PGlite where it is the
   * database) and, given `backends`, the PostgreSQL backends' that served it.
   */
  readonly cpuMs: number;
}

/** CPU seconds this process has spent, every thread of it. */
const ownCpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};

/**
 * GETs `path` `runs` times after `warmUp`; every answer must have `status` (200 unless
 * said) and show `shows`.
 */
export async function timePage(
  app: ReturnType<typeof createApp>,
  path: string,
  shows: string,
  runs: number,
  warmUp: number,
  options: { readonly status?: number; readonly backends?: DatabaseCpu } = {},
): Promise<Timing> {
  const status = options.status ?? 200;
  let bytes = 0;
  const once = async () => {
    const started = performance.now();
    const response = await app.request(path);
    const text = await response.text();
    if (response.status !== status || !text.includes(shows))
      throw new Error(`${path}: ${response.status}, without ${JSON.stringify(shows)}`);
    bytes = Buffer.byteLength(text);
    return performance.now() - started;
  };
  for (let i = 0; i < warmUp; i++) await once();
  const samples: number[] = [];
  options.backends?.start();
  const cpuFrom = ownCpu();
  for (let i = 0; i < runs; i++) samples.push(await once());
  const cpu = ownCpu() - cpuFrom + (options.backends?.stop() ?? 0);
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { p50: at(0.5), p95: at(0.95), bytes, cpuMs: (cpu * 1000) / runs };
}
