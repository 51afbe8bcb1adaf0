/**
 * Engine benchmark: `npm run bench`. Measures robowatch's engine and robots-parser (the
 * usual npm choice) on the same work in the same run and prints ratios, so the figures
 * mean something on a shared, noisy machine. Never part of `npm test`.
 *
 * Workloads: bench/data/robots_200k.txt with urls_10k.txt (the synthetic workload of
 * shared/bench, copied here), every file of ../shared/corpus/realworld when it exists
 * (else the test fixtures), an adversarial wildcard pattern, and `robowatch eval --jsonl`
 * through the built CLI.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import robotsParserModule from 'robots-parser';
import type * as Engine from '../src/robots/index.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
// robots-parser is CommonJS: its module.exports is the function.
const robotsParser = robotsParserModule as unknown as (url: string, robotstxt: string) => Robot;

// Measure the built engine that users run (`npm run bench` builds first), not a
// transpile-on-the-fly copy: tsx's module wrappers cost time in hot loops.
const engineUrl = new URL('../dist/robots/index.js', import.meta.url).href;
const { compileAgent, parseRobotsTxt } = (await import(engineUrl)) as typeof Engine;

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const robotsText = readFileSync(join(here, 'data/robots_200k.txt'), 'utf8');
const robotsBytes = new Uint8Array(readFileSync(join(here, 'data/robots_200k.txt')));
const urls = readFileSync(join(here, 'data/urls_10k.txt'), 'utf8').trim().split('\n');
const ROBOTS_URL = 'https://www.example.com/robots.txt';

/** Median seconds per call of `fn`, over `rounds` rounds of at least `minMs` each. */
function measure(fn: () => void, rounds = 7, minMs = 150): number {
  for (let i = 0; i < 3; i++) fn(); // warm up the JIT
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let calls = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < minMs) {
      fn();
      calls++;
      elapsed = performance.now() - start;
    }
    samples.push(elapsed / 1000 / calls);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const rows: string[][] = [];
const row = (...cells: string[]) => rows.push(cells);

// 1. Parsing the synthetic 200 KB file.
const oursParse = measure(() => parseRobotsTxt(robotsBytes));
// Both start from the fetched bytes: robots-parser needs them decoded to a string first.
const decoder = new TextDecoder();
const theirsParse = measure(() => robotsParser(ROBOTS_URL, decoder.decode(robotsBytes)));
row(
  'parse robots_200k.txt (ms)',
  fmt(oursParse * 1000, 2),
  fmt(theirsParse * 1000, 2),
  `${fmt(theirsParse / oursParse, 1)}× faster`,
);

// 2. Evaluating 10,000 URLs per agent (compiled once; robots-parser keeps its parse too).
const parsed = parseRobotsTxt(robotsBytes);
const theirs = robotsParser(ROBOTS_URL, robotsText);
let sink = 0;
for (const agent of ['TargetBot', 'multi-b', 'bot-c', 'OtherBot']) {
  const rules = compileAgent(parsed, agent);
  const ours = measure(() => {
    for (const url of urls) if (rules.evaluate(url).allowed) sink++;
  }, 7);
  const their = measure(() => {
    for (const url of urls) if (theirs.isAllowed(url, agent)) sink++;
  }, 5);
  const label = `${agent} (${rules.rules.length} rules${rules.source === 'global' ? ', via *' : ''})`;
  row(
    `URLs/s, ${label}`,
    fmt(urls.length / ours),
    fmt(urls.length / their),
    `${fmt(their / ours, 1)}×`,
  );
}
// Compiling is lazy: rules are scanned for an agent's first 16 URLs, then indexed.
const compile = measure(() =>
  compileAgent(parsed, 'TargetBot', { indexAfter: 0 }).evaluate(urls[0]!),
);
row('compile + index TargetBot, once per agent (ms)', fmt(compile * 1000, 2), '–', '');
const scanned = compileAgent(parsed, 'TargetBot', { indexAfter: Infinity });
const scan = measure(() => {
  for (let i = 0; i < 100; i++) if (scanned.evaluate(urls[i]!).allowed) sink++;
});
row('URLs/s, TargetBot before indexing (scanning 500 rules)', fmt(100 / scan), '–', '');

// 3. The real-world corpus: parse every file, evaluate derived URLs for Googlebot.
const corpusDir = existsSync(join(root, '../shared/corpus/realworld'))
  ? join(root, '../shared/corpus/realworld')
  : join(root, 'test/fixtures/realworld');
const corpus: { bytes: Uint8Array; text: string }[] = [];
const walk = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name !== 'MANIFEST.json') {
      const bytes = new Uint8Array(readFileSync(path));
      corpus.push({ bytes, text: new TextDecoder().decode(bytes) });
    }
  }
};
walk(corpusDir);
const corpusBytes = corpus.reduce((sum, f) => sum + f.bytes.length, 0);
const oursCorpus = measure(() => corpus.forEach((f) => parseRobotsTxt(f.bytes)), 5, 300);
const theirsCorpus = measure(
  () => corpus.forEach((f) => robotsParser(ROBOTS_URL, decoder.decode(f.bytes))),
  5,
  300,
);
row(
  `parse ${corpus.length} real files, ${fmt(corpusBytes / 1e6, 1)} MB (ms)`,
  fmt(oursCorpus * 1000, 1),
  fmt(theirsCorpus * 1000, 1),
  `${fmt(theirsCorpus / oursCorpus, 1)}× faster`,
);
const corpusUrls = corpus.map((f) => {
  const p = parseRobotsTxt(f.bytes);
  const paths = p.groups
    .flatMap((g) => g.rules.map((r) => r.match.replace(/\*/g, 'x').replace(/\$$/, '')))
    .filter((s) => s.startsWith('/'));
  return {
    rules: compileAgent(p, 'Googlebot'),
    theirs: robotsParser(ROBOTS_URL, f.text),
    urls: paths.slice(0, 20).map((s) => `https://www.example.com${s}`),
  };
});
const corpusUrlCount = corpusUrls.reduce((sum, c) => sum + c.urls.length, 0);
const oursCorpusEval = measure(
  () => corpusUrls.forEach((c) => c.urls.forEach((u) => c.rules.evaluate(u).allowed && sink++)),
  5,
);
const theirsCorpusEval = measure(
  () =>
    corpusUrls.forEach((c) => c.urls.forEach((u) => c.theirs.isAllowed(u, 'Googlebot') && sink++)),
  5,
);
row(
  `URLs/s, Googlebot over the real files (${fmt(corpusUrlCount)} URLs)`,
  fmt(corpusUrlCount / oursCorpusEval),
  fmt(corpusUrlCount / theirsCorpusEval),
  `${fmt(theirsCorpusEval / oursCorpusEval, 1)}×`,
);

// 4. Adversarial: many wildcards against a long path (no backtracking either way).
const evil = compileAgent(parseRobotsTxt('User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\n'), 'x');
const evilTheirs = robotsParser(ROBOTS_URL, 'User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\n');
const longUrl = 'https://www.example.com/' + 'a'.repeat(10_000);
const evilOurs = measure(() => evil.evaluate(longUrl), 5);
const evilTheirsTime = measure(() => evilTheirs.isAllowed(longUrl, 'x'), 3, 100);
row(
  '"/*a*a*a*a*a*a*a*a*b" vs 10,000 a\'s (µs)',
  fmt(evilOurs * 1e6, 1),
  fmt(evilTheirsTime * 1e6, 1),
  `${fmt(evilTheirsTime / evilOurs, 0)}×`,
);

// 5. Memory held by the parsed and compiled 200 KB file.
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  const held = (make: () => unknown) => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const keep = Array.from({ length: 20 }, make);
    gc();
    const after = process.memoryUsage().heapUsed;
    sink += keep.length;
    return (after - before) / 20;
  };
  const oursMem = held(() => {
    const p = parseRobotsTxt(robotsBytes);
    const rules = compileAgent(p, 'TargetBot', { indexAfter: 0 });
    rules.evaluate(urls[0]!); // builds the index
    return [p, rules];
  });
  const theirsMem = held(() => robotsParser(ROBOTS_URL, decoder.decode(robotsBytes)));
  row(
    'heap per parsed 200 KB file + indexed agent (KB)',
    fmt(oursMem / 1024),
    fmt(theirsMem / 1024),
    `${fmt(theirsMem / oursMem, 2)}×`,
  );
}

// 6. `robowatch eval --jsonl` through the built CLI (npm run build first).
async function jsonlLinesPerSecond(lines: string[]): Promise<number> {
  const start = performance.now();
  const answers = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'dist/main.js'), 'eval', '--jsonl']);
    let count = 0;
    child.stdout.on('data', (d: Buffer) => {
      for (const byte of d) if (byte === 0x0a) count++;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(count) : reject(new Error(`exit ${code}`))));
    // Stream the input with backpressure: the big variants are hundreds of MB.
    let i = 0;
    const feed = () => {
      while (i < lines.length) {
        if (!child.stdin.write(lines[i++] + '\n')) return void child.stdin.once('drain', feed);
      }
      child.stdin.end();
    };
    feed();
  });
  const seconds = (performance.now() - start) / 1000;
  if (answers !== lines.length) throw new Error(`${answers} answers for ${lines.length} lines`);
  return lines.length / seconds;
}
if (existsSync(join(root, 'dist/main.js'))) {
  const small =
    'User-agent: *\nDisallow: /private/\nAllow: /private/press\n\nUser-agent: GPTBot\nDisallow: /\n';
  const smallLines = Array.from({ length: 100_000 }, (_, i) =>
    JSON.stringify({
      robotstxt: small,
      agent: i % 2 ? 'GPTBot' : 'Googlebot',
      url: urls[i % urls.length],
    }),
  );
  const realLines = Array.from({ length: 20_000 }, (_, i) => {
    const file = corpus[i % corpus.length]!;
    return JSON.stringify({
      robotstxt: file.text.slice(0, 20_000),
      agent: 'Googlebot',
      url: urls[i % urls.length],
    });
  });
  // Each line carries 200 KB: this variant measures input MB/s, not the lines/s floor.
  const bigLines = urls
    .slice(0, 2_000)
    .map((url) => JSON.stringify({ robotstxt: robotsText, agent: 'TargetBot', url }));
  for (const [label, lines] of [
    ['small file, 100,000 lines', smallLines],
    ['a different real file each line, 20,000 lines', realLines],
  ] as const) {
    const rate = await jsonlLinesPerSecond(lines);
    row(
      `eval --jsonl lines/s: ${label}`,
      fmt(rate),
      '–',
      `${fmt(rate / 10_000, 1)}× the 10,000/s floor`,
    );
  }
  const bigRate = await jsonlLinesPerSecond(bigLines);
  row(
    'eval --jsonl: the 200 KB file on each of 2,000 lines',
    `${fmt(bigRate)} lines/s`,
    '–',
    `${fmt((bigRate * bigLines[0]!.length) / 1e6)} MB/s of input`,
  );
} else {
  row('eval --jsonl', 'skipped: run `npm run build` first', '', '');
}

// Report.
const header = ['measurement', 'robowatch', 'robots-parser', 'ratio'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const line = (cells: string[]) =>
  '| ' +
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') +
  ' |';
console.log(
  `node ${process.version}, ${new Date().toISOString().slice(0, 10)}, corpus: ${corpusDir.includes('shared') ? 'shared/corpus/realworld' : 'test fixtures'}`,
);
console.log(line(header));
console.log(
  '|' +
    widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') +
    '|',
);
for (const r of rows) console.log(line(r));
if (sink < 0) console.log(sink); // keep results observable so no work is optimised away
