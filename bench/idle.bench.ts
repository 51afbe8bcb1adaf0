/**
 * An idle daemon: `npm run bench:idle`. What a daemon (`robowatch start --no-web`) costs
 * while nothing falls due, which for most fleets is most of the day: 3,000 loopback sites
 * (BENCH_SITES, 20 watches × 8 agents each) checked once a year, so that after their first
 * checks nothing is due. Once every site has its first state (and BENCH_SETTLE seconds
 * more, 60), the CPU of the daemon's process and of the PostgreSQL backends serving its
 * database is read from /proc over BENCH_SECONDS (60), BENCH_REPEAT times (3) in a row:
 * milliseconds of CPU a second, and what that comes to in a day.
 *
 * BENCH_MANAGED=1: the sites are added as the UI, the API or `robowatch sites import` add
 * them (their rows in the database, none in the file), as the capacity note advises for
 * large fleets; the daemon reads them back whenever the catalogue changed.
 *
 * BENCH_COMPARE=DIR (a built checkout of another commit): that build's daemon runs beside
 * this one's, at the same time, on a database of its own, and each window prints both and
 * this ÷ that.
 * PostgreSQL as for the other benchmarks; databases robowatch_idle(_b)_PID are made for the run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AGENTS,
  compareBuild,
  liveCpu,
  queryValue,
  runRobowatch,
  scratchDir,
  startDaemon,
  startFarm,
  WATCHES,
} from './process-support.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 60);
const SETTLE = Number(process.env['BENCH_SETTLE'] ?? 60);
const REPEAT = Number(process.env['BENCH_REPEAT'] ?? 3);
const MANAGED = process.env['BENCH_MANAGED'] === '1';
const OTHER = compareBuild();

const { farm, ports } = await startFarm(SITES);
const dir = scratchDir('robowatch-idle-');
const config = join(dir, 'robowatch.yaml');
const origins = ports.map((p) => `http://127.0.0.1:${p}`);
writeFileSync(
  config,
  `agents: ${JSON.stringify(AGENTS)}
fetch: {allowPrivateAddresses: true, concurrency: 16}
sitemaps: off
# Once a year: after each site's first check, nothing falls due.
schedule: {check: '0 0 1 1 *'}
${
  MANAGED
    ? `watch: ${JSON.stringify(WATCHES)}\nsites: []`
    : `sites:\n${origins.map((o) => `  - {url: '${o}', watch: ${JSON.stringify(WATCHES)}}`).join('\n')}`
}
`,
);
const list = join(dir, 'origins.txt');
writeFileSync(list, `${origins.join('\n')}\n`);

/** BENCH_MANAGED: the sites imported (by the build that runs the daemon) before it starts. */
const importSites = (main?: string) => async (url: string) => {
  if (!MANAGED) return;
  const run = runRobowatch(
    ['sites', 'import', '--config', config, list],
    url,
    undefined,
    undefined,
    main,
  );
  if ((await run.exited).code !== 0) throw new Error('robowatch sites import failed');
};

const daemons = [await startDaemon(config, 'robowatch_idle', undefined, importSites())];
if (OTHER !== undefined)
  daemons.push(await startDaemon(config, 'robowatch_idle_b', OTHER.main, importSites(OTHER.main)));
const deadline = Date.now() + 10 * 60_000;
for (const d of daemons) {
  for (;;) {
    const checked = Number(
      await queryValue(
        d.bench.url,
        'SELECT count(*)::text AS value FROM sites WHERE current_snapshot_id IS NOT NULL',
      ),
    );
    if (checked === SITES) break;
    if (Date.now() > deadline) throw new Error('bench:idle: the first checks did not end in time');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
await new Promise((resolve) => setTimeout(resolve, SETTLE * 1000));

/** CPU of each daemon over each window, ms a second: its process, its backends. */
const windows: { own: number; backends: number }[][] = [];
for (let n = 0; n < REPEAT; n++) {
  const before = daemons.map((d) => liveCpu(d.daemon.child.pid!));
  for (const d of daemons) d.backends.start();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  windows.push(
    daemons.map((d, i) => ({
      own: ((liveCpu(d.daemon.child.pid!) - before[i]!) * 1000) / SECONDS,
      backends: (d.backends.stop() * 1000) / SECONDS,
    })),
  );
}
for (const d of daemons) {
  d.daemon.child.kill('SIGTERM');
  if ((await d.daemon.exited).code !== 0) throw new Error('the daemon did not stop cleanly');
  await d.bench.drop();
}
farm.kill();

const ms = (n: number) => n.toFixed(2);
const perDay = (w: { own: number; backends: number }) =>
  Math.round(((w.own + w.backends) * 86_400) / 1000).toLocaleString('en-US');
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES.toLocaleString('en-US')} sites${MANAGED ? ' (added as the UI and API add them)' : ''} checked once a year (nothing due), windows of ${SECONDS} s, PostgreSQL on this machine`,
);
console.log('| idle daemon, CPU | robowatch, ms a second | its backends, ms a second | a day, s |');
console.log('|---|--:|--:|--:|');
windows.forEach((w, n) => {
  const [ours, other] = w;
  console.log(`| window ${n + 1} | ${ms(ours!.own)} | ${ms(ours!.backends)} | ${perDay(ours!)} |`);
  if (other !== undefined)
    console.log(
      `| … BENCH_COMPARE's daemon, at the same time | ${ms(other.own)} | ${ms(other.backends)} | ${perDay(other)} |`,
    );
});
if (OTHER !== undefined) {
  console.log(
    `\nThis build ÷ BENCH_COMPARE (${OTHER.dir}), window by window, robowatch + backends:`,
  );
  console.log(
    windows
      .map(([a, b]) => ((a!.own + a!.backends) / (b!.own + b!.backends)).toFixed(2))
      .join(' / '),
  );
}
