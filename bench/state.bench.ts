/**
 * A changed state's own work, cold: `npm run bench:state`. For each of 3,000 sites
 * (BENCH_SITES) of the check benchmarks' kind (20 watches × 8 crawlers, bench/farm.ts's
 * files, one rule added), what a changed check computes between reading the state before
 * and writing the new one: the verdicts, both files' rules, the events, the causes, the
 * judgement against intent, the events' JSON and the compact verdicts, each timed in CPU
 * µs a site. Each measurement is a fresh process that does it once, as a `check` does:
 * the command's code runs mostly unoptimised, and warm loops of the same code hid what it
 * pays (docs/performance.md, sixteenth round). BENCH_RUNS (9) processes per build; with
 * BENCH_COMPARE (a checkout of another commit, built), that build's too, in turn, and the
 * totals paired run by run. Pure work only: no network, no database. Reading the CPU is a
 * system call that some virtual machines charge 10-15 µs for: its cost, measured in the
 * same process, is taken off each phase (before 2026-12-06 it was not, and each phase
 * carried one).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { robotsBody } from './farm.js';
import {
  AGENTS,
  compareBuild,
  scratchDir,
  spread as spreadOf,
  WATCHES,
} from './process-support.js';
import type * as ConfigLoad from '../src/config/load.js';
import type * as Verdicts from '../src/policy/verdicts.js';
import type * as Events from '../src/policy/changes/events.js';
import type * as Causes from '../src/policy/changes/causes.js';
import type * as Judge from '../src/monitor/check/judge.js';
import type * as VerdictSets from '../src/policy/verdict-sets.js';

const SITES = Number(process.env['BENCH_SITES'] ?? 3_000);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 9);
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

type Phases = Record<string, number>;

/** One measurement, in this process: the build at `dist` computing every site's change once. */
async function measure(dist: string): Promise<Phases> {
  const load = async <T>(path: string) => (await import(pathToFileURL(join(dist, path)).href)) as T;
  const { loadConfig } = await load<typeof ConfigLoad>('config/load.js');
  const verdictsModule = await load<typeof Verdicts>('policy/verdicts.js');
  const events = await load<typeof Events>('policy/changes/events.js');
  const { causesOfChange } = await load<typeof Causes>('policy/changes/causes.js');
  const { evaluateState } = await load<typeof Judge>('monitor/check/judge.js');
  // Builds before ff906f7 kept the compact verdicts under store/.
  const { encodeVerdicts, StoredVerdicts } = await load<typeof VerdictSets>(
    existsSync(join(dist, 'policy/verdict-sets.js'))
      ? 'policy/verdict-sets.js'
      : 'store/verdict-sets.js',
  );
  const { computeVerdicts, ParseCache } = verdictsModule;

  const dir = scratchDir('robowatch-bench-');
  const path = join(dir, 'robowatch.yaml');
  writeFileSync(
    path,
    `agents: ${JSON.stringify(AGENTS)}\nsitemaps: off\nsites:\n${Array.from(
      { length: SITES },
      (_, i) => `  - {url: 'http://site-${i}.example', watch: ${JSON.stringify(WATCHES)}}`,
    ).join('\n')}\n`,
  );
  const { sites } = await loadConfig({ path, cwd: dir, env: {}, version: 'bench' });
  const encoder = new TextEncoder();
  const fetchOf = (body: Uint8Array) => ({
    status: 200,
    body,
    cut: null,
    error: null,
    errorDetail: null,
    redirects: [],
    finalUrl: null,
  });
  // The state before, as a check reads it back: its stored set, the check's own axes.
  const before = sites.map((site, i) => {
    const body = encoder.encode(robotsBody(i, 0));
    const fetch = fetchOf(body);
    const set = encodeVerdicts(
      computeVerdicts({ fetch, body, lastGoodBody: body, stale: false }, site.watches, site.agents),
    );
    const [causes, cells] = JSON.parse(JSON.stringify([set.causes, set.cells])) as [
      typeof set.causes,
      typeof set.cells,
    ];
    return {
      body,
      fetch,
      verdicts: new StoredVerdicts({
        urls: site.watches,
        agents: site.agents.map((a) => a.token),
        profiles: site.agents.map((a) => a.profile),
        causes,
        cells,
      }),
    };
  });
  const bodies = sites.map((_, i) => encoder.encode(robotsBody(i, 1)));

  const cpu = () => {
    const used = process.cpuUsage();
    return used.user + used.system;
  };
  const spent: Phases = {};
  let last = cpu();
  const lap = (phase: string) => {
    const now = cpu();
    spent[phase] = (spent[phase] ?? 0) + now - last;
    last = now;
  };
  // What reading the CPU costs each phase (a system call: 10-15 µs on some virtual
  // machines, a third of the phases' sum there), taken off every phase below: as many
  // laps with nothing in them as the sites have phases.
  for (let i = 0; i < sites.length; i++) {
    last = cpu();
    lap('nothing');
  }
  const reading = spent['nothing']! / sites.length;
  delete spent['nothing'];
  for (let i = 0; i < sites.length; i++) {
    const site = sites[i]!;
    const old = before[i]!;
    const body = bodies[i]!;
    const cache = new ParseCache();
    const fetch = fetchOf(body);
    last = cpu();
    const state = { fetch, body, lastGoodBody: body, stale: false };
    const verdicts = computeVerdicts(state, site.watches, site.agents, cache);
    lap('verdicts');
    const viewBefore = {
      fetchStatus: events.fetchStatusOf(old.fetch, site.profile, false),
      verdicts: old.verdicts,
      rules: events.effectiveRules(old.body, site.agents, cache),
      sitemaps: events.sitemapsOf(old.body, cache),
    };
    const viewAfter = {
      fetchStatus: events.fetchStatusOf(fetch, site.profile, false),
      verdicts,
      rules: events.effectiveRules(body, site.agents, cache),
      sitemaps: events.sitemapsOf(body, cache),
    };
    lap('rules');
    const flipped = events.flippedPlaces(old.verdicts, verdicts);
    const changes = events.diffStates(site.origin, viewBefore, viewAfter, flipped);
    lap('events');
    const causes = causesOfChange({
      profile: site.profile,
      agents: site.agents,
      before: {
        fetch: old.fetch,
        stale: false,
        lastGood: { body: old.body, truncated: false, cut: null },
        verdicts: old.verdicts,
      },
      after: {
        fetch,
        stale: false,
        lastGood: { body, truncated: false, cut: null },
        verdicts,
      },
      since: { access: null, file: null },
      cache,
      flipped,
    });
    lap('causes');
    evaluateState(site, { fetch, stale: false, fileCondition: 'robots', verdicts });
    lap('intent');
    JSON.stringify([events.boundEvents(changes).map(events.eventJson), causes]);
    lap('json');
    encodeVerdicts(verdicts);
    lap('encode');
  }
  const perSite: Phases = {};
  for (const [phase, µs] of Object.entries(spent)) perSite[phase] = µs / sites.length - reading;
  return { ...perSite, reading };
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await measure(process.argv[3]!)));
} else {
  const other = compareBuild();
  const own = join(root, 'dist');
  const run = (dist: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dist],
        {
          encoding: 'utf8',
        },
      ),
    ) as Phases;
  const runs: { own: Phases; other?: Phases }[] = [];
  for (let n = 0; n < RUNS; n++) {
    if (other === undefined) runs.push({ own: run(own) });
    else if (n % 2 === 0) {
      const first = run(own);
      runs.push({ own: first, other: run(join(resolve(other.dir), 'dist')) });
    } else {
      const first = run(join(resolve(other.dir), 'dist'));
      runs.push({ own: run(own), other: first });
    }
    console.error(`run ${n + 1} of ${RUNS} done`);
  }
  const total = (phases: Phases) =>
    Object.entries(phases).reduce((sum, [phase, µs]) => (phase === 'reading' ? sum : sum + µs), 0);
  const spread = (values: number[], digits = 1) => spreadOf(values, digits);
  const phases = Object.keys(runs[0]!.own).filter((phase) => phase !== 'reading');
  console.log(
    `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${SITES} sites × ${WATCHES.length} watches × ${AGENTS.length} agents, a changed state's own work, cold, CPU µs a site, ${RUNS} processes per build (min / median / max)`,
  );
  console.log(`| build | ${phases.join(' | ')} | total |`);
  console.log(`|---|${phases.map(() => '--:|').join('')}--:|`);
  const row = (label: string, pick: (r: (typeof runs)[number]) => Phases) =>
    console.log(
      `| ${label} | ${phases.map((p) => spread(runs.map((r) => pick(r)[p]!))).join(' | ')} | ${spread(runs.map((r) => total(pick(r))))} |`,
    );
  row('this build', (r) => r.own);
  console.log(
    `\nreading the CPU, taken off each phase above: ${spread(runs.map((r) => r.own['reading']!))} µs a phase`,
  );
  if (other !== undefined) {
    row(`the other (${other.dir})`, (r) => r.other!);
    console.log(
      `\nthis build ÷ the other, totals paired run by run: ${spread(
        runs.map((r) => total(r.own) / total(r.other!)),
        3,
      )}`,
    );
  }
}
