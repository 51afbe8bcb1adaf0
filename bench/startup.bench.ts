/**
 * What a command costs before it does its work: the CPU seconds of `robowatch --version`,
 * `eval` of one URL, and a `check` of one loopback site on PostgreSQL (its database made
 * for this run), each against bare `node -e 0` measured in the same run. CPU is read from
 * /proc (this process's reaped children), so a busy machine changes little; each command
 * runs REPS times and the minimum, median and maximum are reported.
 *
 *   npm run bench:startup            (DATABASE_URL or TEST_DATABASE_URL: a PostgreSQL)
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { reapedCpu, root, scratchDir } from './process-support.js';

const REPS = Number(process.env['REPS'] ?? 7);
/**
 * Runs a command REPS times, one after another, and reads the CPU each run took. Spawned
 * asynchronously: the loopback site is served by this process, which must go on
 * answering while a check fetches from it (with spawnSync every fetch waited for its
 * timeout).
 */
async function measure(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  reps = REPS,
): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const before = reapedCpu();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (status !== 0) throw new Error(`${args.join(' ')} exited ${status}: ${stderr}`);
    runs.push(reapedCpu() - before);
  }
  return runs.sort((a, b) => a - b);
}

const server = createServer((request, response) => {
  response.writeHead(request.url === '/robots.txt' ? 200 : 404, { 'content-type': 'text/plain' });
  response.end('User-agent: *\nDisallow: /private/\n');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const base =
  process.env['DATABASE_URL'] ??
  process.env['TEST_DATABASE_URL'] ??
  'postgres://root@127.0.0.1:5432/postgres';
const name = `bench_startup_${process.pid}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(base);
url.pathname = `/${name}`;

const dir = scratchDir('robowatch-startup-');
const config = join(dir, 'robowatch.yaml');
writeFileSync(
  config,
  `dataDir: ${join(dir, 'data')}\nsites:\n  - url: ${origin}\n    watch: [/, /private/x]\nsitemaps: off\nfetch: {allowPrivateAddresses: true}\n`,
);
const robots = join(dir, 'robots.txt');
writeFileSync(robots, 'User-agent: *\nDisallow: /private/\n');
const main = join(root, 'dist/main.js');
const env = { ...process.env, DATABASE_URL: url.href };

try {
  // The first check makes the schema; the measured ones find it made.
  await measure([main, 'check', '--config', config], env, 1);
  const rows: [string, number[]][] = [
    ['node -e 0 (reference)', await measure(['-e', '0'], env)],
    ['robowatch --version', await measure([main, '--version'], env)],
    [
      'robowatch eval (1 URL)',
      await measure(
        [main, 'eval', '--robots', robots, '--agent', 'Googlebot', `${origin}/private/x`],
        env,
      ),
    ],
    [
      'robowatch check (1 site, PostgreSQL)',
      await measure([main, 'check', '--config', config], env),
    ],
  ];
  const reference = rows[0]![1][Math.floor(REPS / 2)]!;
  const s = (n: number) => n.toFixed(2);
  console.log(`CPU seconds per run, ${REPS} runs each (min / median / max; median over node -e 0)`);
  for (const [what, runs] of rows) {
    const median = runs[Math.floor(REPS / 2)]!;
    console.log(
      `${what.padEnd(40)} ${s(runs[0]!)} / ${s(median)} / ${s(runs.at(-1)!)}   ×${(median / reference).toFixed(1)}`,
    );
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  server.close();
}
