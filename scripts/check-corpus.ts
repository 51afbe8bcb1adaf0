/**
 * Opt-in full-corpus check (not part of `npm test`, which uses the fixture subset):
 * every file of shared/corpus/realworld and shared/corpus/history must parse under every
 * profile, and the google profile must agree with the reference port on URLs derived
 * from each file's own rules.
 *
 *   npm run corpus:check [-- SHARED_DIR]     (default ../shared)
 *
 * Exits 1 and lists the first disagreements if there are any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compareWithReference, parseUnderEveryProfile } from '../test/support/corpus-check.js';
import type { Disagreement } from '../test/support/corpus-check.js';

const shared = resolve(process.argv[2] ?? '../shared');
const roots = ['corpus/realworld', 'corpus/history'].map((d) => join(shared, d));

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (name !== 'MANIFEST.json' && !name.endsWith('.error.json')) yield path;
  }
}

let files = 0;
let bytesRead = 0;
const failures: { file: string; disagreements: Disagreement[] }[] = [];
const started = performance.now();
for (const root of roots) {
  for (const path of walk(root)) {
    const bytes = new Uint8Array(readFileSync(path));
    files++;
    bytesRead += bytes.length;
    parseUnderEveryProfile(bytes);
    const disagreements = compareWithReference(bytes, 20);
    if (disagreements.length > 0) failures.push({ file: path, disagreements });
  }
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${files} files (${(bytesRead / 1e6).toFixed(1)} MB) checked in ${seconds} s`);
if (failures.length > 0) {
  console.log(`${failures.length} files disagree with the reference:`);
  for (const f of failures.slice(0, 20))
    console.log(f.file, JSON.stringify(f.disagreements.slice(0, 3)));
  process.exit(1);
}
console.log('every file parses under every profile and agrees with the reference parser');
