/**
 * Coverage benchmark: `npm run bench:coverage`. A site of 100,000 URLs in a gzip sitemap
 * index of 3 files, served on loopback with validators; 30 crawlers; the 200 KB benchmark
 * robots.txt. Measures, in the same run:
 *
 * - discovery and parsing of the sitemaps through the real fetcher and reader, with the
 *   process's RSS growth (it streams: nothing but the URLs found is kept);
 * - coverage for all 30 crawlers (computeCoverage), against robots-parser doing the same
 *   evaluations (measured on a sample of URLs per crawler, scaled to the whole set), and
 *   against robowatch's own engine without the sharing of rule sets between crawlers;
 * - a re-check with nothing changed: the 304s and their cost.
 *
 * Never part of `npm test`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import robotsParserModule from 'robots-parser';
import type * as Fetcher from '../src/fetch/robots-fetcher.js';
import type * as Discovery from '../src/monitor/check/sitemaps.js';
import type * as Threads from '../src/monitor/threads/coverage-threads.js';
import type * as CoverageModule from '../src/policy/coverage.js';
import type * as Engine from '../src/robots/index.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
const robotsParser = robotsParserModule as unknown as (url: string, robotstxt: string) => Robot;

// The built code users run (`npm run bench:coverage` builds first).
const load = async <T>(path: string) =>
  (await import(new URL(`../dist/${path}`, import.meta.url).href)) as T;
const { createRobotsFetcher } = await load<typeof Fetcher>('fetch/robots-fetcher.js');
const { discoverSitemaps, DEFAULT_DISCOVERY_LIMITS } = await load<typeof Discovery>(
  'monitor/check/sitemaps.js',
);
const { computeCoverage } = await load<typeof CoverageModule>('policy/coverage.js');
const { CoverageThreads } = await load<typeof Threads>('monitor/threads/coverage-threads.js');
const { compileAgent, parseRobotsTxt } = await load<typeof Engine>('robots/index.js');

const here = fileURLToPath(new URL('.', import.meta.url));
const robotsText = readFileSync(join(here, 'data/robots_200k.txt'), 'utf8');
const robotsBytes = new Uint8Array(readFileSync(join(here, 'data/robots_200k.txt')));
// Paths as a crawler requests them (the URL parser's), each once.
const basePaths = [
  ...new Set(
    readFileSync(join(here, 'data/urls_10k.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((u) => new URL(u).pathname + new URL(u).search),
  ),
];

const URLS = 100_000;
const FILES = 3;
// 30 crawlers: the benchmark file's named groups, and others that fall under `*`.
const AGENTS = [
  'TargetBot',
  'multi-a',
  'Multi-B',
  ...'cdefghijklmnopq'.split('').map((c) => `bot-${c}`),
  'Googlebot',
  'Bingbot',
  'GPTBot',
  'ClaudeBot',
  'CCBot',
  'Applebot',
  'DuckDuckBot',
  'YandexBot',
  'Baiduspider',
  'PerplexityBot',
  'Amazonbot',
  'OtherBot',
].slice(0, 30);

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes: number) => fmt(bytes / 1024 / 1024, 1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

// The site: 100,000 distinct paths, in 3 gzip urlsets listed by an index.
const unique = new Set<string>();
for (let i = 0; unique.size < URLS; i++) {
  const base = basePaths[i % basePaths.length]!;
  const round = Math.floor(i / basePaths.length);
  unique.add(round === 0 ? base : `${base}${base.includes('?') ? '&' : '?'}v=${round}`);
}
const paths = [...unique];
const server = createServer((req, res) => {
  const file = files.get(req.url ?? '');
  if (file === undefined) {
    res.writeHead(404);
    res.end();
    return;
  }
  requests++;
  if (req.headers['if-none-match'] === file.etag) {
    notModified++;
    res.writeHead(304, { etag: file.etag });
    res.end();
    return;
  }
  bytesServed += file.body.length;
  res.writeHead(200, { 'content-type': 'application/x-gzip', etag: file.etag });
  res.end(file.body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const files = new Map<string, { body: Buffer; etag: string }>();
const perFile = Math.ceil(URLS / FILES);
let uncompressed = 0;
for (let f = 0; f < FILES; f++) {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${paths
    .slice(f * perFile, (f + 1) * perFile)
    .map(
      (p) =>
        `<url><loc>${origin}${p.replaceAll('&', '&amp;')}</loc><lastmod>2026-11-01</lastmod></url>`,
    )
    .join('\n')}\n</urlset>\n`;
  uncompressed += xml.length;
  files.set(`/sitemap-${f}.xml.gz`, { body: gzipSync(xml), etag: `"s${f}"` });
}
files.set('/sitemap_index.xml', {
  body: gzipSync(
    `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
      ...Array(FILES).keys(),
    ]
      .map((f) => `<sitemap><loc>${origin}/sitemap-${f}.xml.gz</loc></sitemap>`)
      .join('')}</sitemapindex>`,
  ),
  etag: '"index"',
});
let requests = 0;
let notModified = 0;
let bytesServed = 0;
const compressed = [...files.values()].reduce((n, f) => n + f.body.length, 0);

const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-bench',
  timeoutMs: 60_000,
  allowPrivateAddresses: true,
});
const limits = { ...DEFAULT_DISCOVERY_LIMITS, maxUrls: URLS };
const known = new Map<string, Discovery.KnownSitemap>();
const discover = () =>
  discoverSitemaps(
    { fetchDocument: (r) => fetcher.fetchDocument(r), known: (url) => known.get(url) },
    origin,
    [`${origin}/sitemap_index.xml`],
    limits,
  );

// 1. Discovery and parsing, with the RSS it adds.
gc();
const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
const t0 = performance.now();
const found = await discover();
const discoverMs = performance.now() - t0;
clearInterval(sampler);
rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
if (found.paths.length !== URLS)
  throw new Error(
    `expected ${URLS} URLs, found ${found.paths.length}: ${found.problems.join('; ')}`,
  );
for (const f of found.files)
  known.set(f.url, {
    etag: f.etag,
    lastModified: f.lastModified,
    format: f.format!,
    entries: f.entries,
  });

// 2. The unchanged re-check: every file answers 304.
const before = { requests, notModified, bytesServed };
const t1 = performance.now();
const again = await discover();
const againMs = performance.now() - t1;
if (again.paths.length !== URLS || !again.files.every((f) => f.notModified))
  throw new Error('the re-check did not come back unchanged');

// 3. Coverage for 30 crawlers over the 100,000 URLs.
const state = {
  fetch: { status: 200, error: null },
  body: robotsBytes,
  lastGoodBody: robotsBytes,
  stale: false,
};
const agents = AGENTS.map((token) => ({ token, profile: 'google' as const }));
const urlSet = found.paths;
const median = (samples: number[]) =>
  samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
const timed = (fn: () => void, rounds = 5) => {
  fn(); // warm up
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
};
let coverage: CoverageModule.Coverage | undefined;
const oursMs = timed(() => {
  coverage = computeCoverage(state, urlSet, agents);
});
// The daemon's way: the rule sets spread over threads, one per core (paths sent across).
const threads = new CoverageThreads();
await threads.coverage(state, urlSet, agents); // start the threads
const threadSamples: number[] = [];
for (let r = 0; r < 5; r++) {
  const start = performance.now();
  const onThreads = await threads.coverage(state, urlSet, agents);
  threadSamples.push(performance.now() - start);
  if (JSON.stringify(onThreads) !== JSON.stringify(coverage))
    throw new Error('the threads gave another coverage');
}
const threadsMs = median(threadSamples);
await threads.close();
// The same evaluations one crawler at a time (no sharing of rule sets).
const parsed = parseRobotsTxt(robotsBytes);
let sink = 0;
const unsharedMs = timed(() => {
  for (const agent of AGENTS) {
    const rules = compileAgent(parsed, agent);
    for (const path of urlSet) if (rules.evaluate(path).allowed) sink++;
  }
}, 3);
// robots-parser on a sample of each crawler's URLs, scaled to the whole set.
const SAMPLE = 2_000;
const theirs = robotsParser(`${origin}/robots.txt`, robotsText);
const sample = urlSet.slice(0, SAMPLE).map((p) => origin + p);
const theirsSampleMs = timed(() => {
  for (const agent of AGENTS) for (const url of sample) if (theirs.isAllowed(url, agent)) sink++;
}, 3);
const theirsMs = theirsSampleMs * (URLS / SAMPLE);
// Agreement on the sample (a check of the benchmark itself, not a claim about either).
const googlebot = coverage!.agents.find((a) => a.agent === 'Googlebot')!;

await fetcher.close();
server.close();

const rows: [string, string][] = [
  ['URLs / sitemap files', `${fmt(URLS)} in ${FILES} gzip files + 1 index`],
  ['sitemap bytes (gzip → XML)', `${mb(compressed)} MB → ${mb(uncompressed)} MB`],
  ['discover + parse (s)', fmt(discoverMs / 1000, 2)],
  ['  XML read (MB/s)', fmt(uncompressed / 1024 / 1024 / (discoverMs / 1000), 0)],
  ['  RSS growth, peak (MB)', mb(rssPeak - rssBefore)],
  [
    're-check, unchanged (s)',
    `${fmt(againMs / 1000, 3)}: ${requests - before.requests} requests, ${notModified - before.notModified} × 304, ${fmt(bytesServed - before.bytesServed)} body bytes`,
  ],
  ['coverage, 30 crawlers × 100,000 URLs (ms)', fmt(oursMs, 0)],
  [`  on ${availableParallelism()} threads, as the daemon runs it (ms)`, fmt(threadsMs, 0)],
  ['  same, one crawler at a time (ms)', fmt(unsharedMs, 0)],
  [
    '  robots-parser, same evaluations (ms, scaled)',
    `${fmt(theirsMs, 0)} (${fmt(theirsMs / oursMs, 0)}× slower; ${fmt(theirsMs / unsharedMs, 1)}× without sharing)`,
  ],
  ['Googlebot: allowed / disallowed', `${fmt(googlebot.allowed)} / ${fmt(googlebot.disallowed)}`],
];
const width = Math.max(...rows.map((r) => r[0].length));
console.log(
  `coverage benchmark (${new Date().toISOString().slice(0, 10)}, node ${process.version})`,
);
for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
if (sink === -1) console.log(''); // keep the evaluations from being optimised away
