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
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

/** The reference: GET each robots.txt with undici, `CONCURRENCY` at a time, reading the body. */
async function bareFetch(origins: readonly string[]): Promise<number> {
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
  await agent.close();
  return origins.length / seconds;
}

/** Runs `robowatch check --json`; returns sites/s, change events printed, and peak RSS (MB). */
async function runCheck(
  config: string,
  profile = false,
): Promise<{ rate: number; events: number; peakMb: number }> {
  const started = performance.now();
  // BENCH_PROFILE=DIR writes a CPU profile of the nothing-changed run there.
  const flags =
    profile && process.env['BENCH_PROFILE']
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_PROFILE']}`]
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
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // exited
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`robowatch check exited with ${code}`);
  return { rate: SITES / ((performance.now() - started) / 1000), events, peakMb: peakKb / 1024 };
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
const size = async () =>
  Number(await sql(database, 'SELECT pg_database_size(current_database())::text AS value'));

await bareFetch(origins.slice(0, 2_000)); // warm up the JIT and the farm
const empty = await size();
const bare = await bareFetch(origins);
const first = await runCheck(config);
const before = await size();
const second = await runCheck(config, true);
const growth = (await size()) - before;
await setVersion(1);
const third = await runCheck(config);
const bareAfter = await bareFetch(origins);

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
console.log(
  `| peak RSS of \`robowatch check\` (first, second, third run) | ${fmt(Math.max(first.peakMb, second.peakMb, third.peakMb))} MB (${fmt(first.peakMb)}, ${fmt(second.peakMb)}, ${fmt(third.peakMb)}) | < 300 MB |`,
);
console.log(
  `| database size per site after the first run (${fmt((before - empty) / 1_048_576)} MB in all) | ${fmt((before - empty) / SITES)} B | < 10,000 B |`,
);
console.log(`| database growth per unchanged check | ${fmt(growth / SITES)} B | < 200 B |`);
