/**
 * Copies a small, varied, deterministic subset of ../shared/corpus/realworld into
 * test/fixtures/realworld, so the test suite runs on any clone. Run it only when the
 * selection rules change: `npx tsx scripts/select-fixtures.ts [SHARED_DIR]`.
 *
 * Also copies a few sites' weekly versions from ../shared/corpus/history into
 * test/fixtures/history for the replay tests (marked `replay`) and more for the
 * explanation invariant.
 *
 * Kept: the largest file and one just past the 500 KiB limit, every non-UTF-8, UTF-16, NUL and
 * CR-only file, a sample of BOM, HTML, CRLF and empty files, and a hash-ordered sample
 * of the rest up to about 3 MB in all.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

interface ManifestEntry {
  path: string;
  size: number;
  sha256: string;
  source_repo: string;
  source_commit: string;
  source_path: string;
}

const shared = resolve(process.argv[2] ?? '../shared');
const source = join(shared, 'corpus/realworld');
const target = resolve('test/fixtures/realworld');
const manifest = JSON.parse(readFileSync(join(source, 'MANIFEST.json'), 'utf8')) as {
  sources: unknown;
  files: ManifestEntry[];
};

const files = manifest.files.map((entry) => ({
  entry,
  bytes: readFileSync(join(source, entry.path)),
  rank: createHash('sha256').update(entry.path).digest('hex'),
}));
files.sort((a, b) => (a.rank < b.rank ? -1 : 1));

const isUtf16 = (b: Buffer) => (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff);
const isUtf8 = (b: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};
const isHtml = (b: Buffer) =>
  /^\s*<[\s\S]{0,2048}?<(?:!doctype\s+html|html|head|body)/i.test(
    b.subarray(0, 2048).toString('latin1'),
  );

const categories: [string, (b: Buffer) => boolean, number][] = [
  ['utf16', isUtf16, 10],
  ['non-utf8', (b) => !isUtf16(b) && !isUtf8(b), 20],
  ['nul', (b) => !isUtf16(b) && b.includes(0), 10],
  ['cr-only', (b) => b.includes(0x0d) && !b.includes(0x0a), 10],
  ['bom', (b) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf, 15],
  ['html', (b) => isHtml(b) && b.length < 60_000, 15],
  ['empty', (b) => b.length === 0, 3],
  ['crlf', (b) => b.includes('\r\n') && b.length < 30_000, 30],
  ['texting_robots', () => false, 0],
];

const chosen = new Map<string, { entry: ManifestEntry; category: string }>();
// The largest files first: hermes.com (1.37 MB) and go.com (just past the limit).
const largest = [...files].sort((a, b) => b.bytes.length - a.bytes.length);
for (const f of [largest[0]!, largest[2]!])
  chosen.set(f.entry.path, { entry: f.entry, category: 'largest' });
for (const [category, test, max] of categories) {
  let taken = 0;
  for (const f of files) {
    if (taken >= max) break;
    if (chosen.has(f.entry.path) || !test(f.bytes)) continue;
    chosen.set(f.entry.path, { entry: f.entry, category });
    taken++;
  }
}
for (const f of files) {
  if (f.entry.path.startsWith('texting_robots/'))
    chosen.set(f.entry.path, { entry: f.entry, category: 'texting_robots' });
}
let total = [...chosen.values()].reduce((sum, c) => sum + c.entry.size, 0);
for (const f of files) {
  if (chosen.size >= 300 || total > 3_000_000) break;
  if (chosen.has(f.entry.path) || f.bytes.length > 40_000) continue;
  chosen.set(f.entry.path, { entry: f.entry, category: 'sample' });
  total += f.entry.size;
}

rmSync(target, { recursive: true, force: true });
for (const { entry } of chosen.values()) {
  mkdirSync(join(target, entry.path, '..'), { recursive: true });
  copyFileSync(join(source, entry.path), join(target, entry.path));
}
const selected = [...chosen.values()]
  .map(({ entry, category }) => ({ ...entry, category }))
  .sort((a, b) => a.path.localeCompare(b.path));
writeFileSync(
  join(target, 'MANIFEST.json'),
  JSON.stringify(
    {
      description:
        'A subset of shared/corpus/realworld chosen by scripts/select-fixtures.ts; files are byte-for-byte copies.',
      sources: manifest.sources,
      files: selected,
    },
    null,
    1,
  ) + '\n',
);
console.log(`${selected.length} files, ${total} bytes`);

// History replays: a few sites' weekly versions, chosen for what they exercise.
const HISTORY_SITES = {
  'cityofrichmond.net': 'many rule changes',
  'richmond-il.com': 'whitespace-only edits',
  'carlostownship.org': 'comment-only edits',
  'fcsw.net': 'robots.txt and fetch errors flapping',
  'opensource.gov': 'one fetch error after another',
};
/**
 * More histories for the explanation invariant (test/unit/policy/causes.test.ts, pure
 * and fast): the smallest of each category with ten versions or more, and ai.gov (an
 * HTML page served with 200, groups removed and added back).
 */
const CAUSE_SITES = [
  'tak.gov',
  'blairco.org',
  'arlpc.org',
  'courtclerk.org',
  'ncrec.gov',
  'ohiocountytreasurers.org',
  'nitrd.gov',
  'southbendin.gov',
  'townofprincessanne.com',
  'walkersville-md.com',
  'cinnaminsonnj.org',
  'prebletownship.com',
  'ivanhoe-mn.com',
  'portorford.org',
  'nevadacityca.gov',
  'sheltercove-ca.gov',
  'cheltenhamtownship.org',
  'leecounty.org',
  'moneyfactory.com',
  'gadod.net',
  'cityofhelena.org',
  'lauderdalecountyonline.com',
  'occoquanva.gov',
  'philmont.org',
  'mdlottery.com',
  'moodytx.gov',
  'ai.gov',
];
const historySource = join(shared, 'corpus/history');
const historyTarget = resolve('test/fixtures/history');
const historyManifest = JSON.parse(readFileSync(join(historySource, 'MANIFEST.json'), 'utf8')) as {
  source: unknown;
  domains: Record<string, unknown>;
};
rmSync(historyTarget, { recursive: true, force: true });
const domains: Record<string, unknown> = {};
const sites = [
  ...Object.entries(HISTORY_SITES).map(([domain, why]) => ({ domain, why, replay: true })),
  ...CAUSE_SITES.map((domain) => ({ domain, why: 'explanation invariant', replay: false })),
];
for (const { domain, why, replay } of sites) {
  mkdirSync(join(historyTarget, domain), { recursive: true });
  for (const file of readdirSync(join(historySource, domain))) {
    copyFileSync(join(historySource, domain, file), join(historyTarget, domain, file));
  }
  domains[domain] = { why, replay, ...(historyManifest.domains[domain] as object) };
}
writeFileSync(
  join(historyTarget, 'MANIFEST.json'),
  JSON.stringify({ source: historyManifest.source, domains }, null, 1) + '\n',
);
console.log(`${Object.keys(domains).length} history sites`);
