/**
 * Opt-in check of the explanation invariant on the whole shared history corpus (not part
 * of `npm test`, which runs it on the fixture histories): every site's versions are
 * replayed, and at every step each (URL × crawler) pair that flipped must be explained by
 * exactly one cause.
 *
 *   npm run causes:check [-- SHARED_DIR]     (default ../shared)
 *
 * Exits 1 and lists the first problems if there are any.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkHistory, readVersions } from '../test/support/cause-check.js';

const shared = resolve(process.argv[2] ?? '../shared');
const root = join(shared, 'corpus/history');
const started = performance.now();
let sites = 0;
let steps = 0;
const counts = new Map<string, number>();
const failures: { site: string; problems: { step: string; problem: string }[] }[] = [];
for (const site of readdirSync(root).sort()) {
  const dir = join(root, site);
  if (!statSync(dir).isDirectory()) continue;
  const result = checkHistory(readVersions(dir));
  sites++;
  steps += result.steps;
  for (const c of result.causes) counts.set(c.type, (counts.get(c.type) ?? 0) + 1);
  if (result.problems.length > 0) failures.push({ site, problems: result.problems });
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `${sites} sites, ${steps} steps in ${seconds} s; causes: ${JSON.stringify(Object.fromEntries(counts))}`,
);
for (const f of failures.slice(0, 20))
  console.log(
    `${f.site}: ${f.problems.length} problems, e.g. ${f.problems[0]!.step}: ${f.problems[0]!.problem}`,
  );
if (failures.length > 0) {
  console.log(`${failures.length} sites have unexplained or doubly explained changes`);
  process.exitCode = 1;
} else console.log('every changed pair is explained by exactly one cause');
