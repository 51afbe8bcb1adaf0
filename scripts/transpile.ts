/**
 * `npm run build`'s first step: src/ compiled into dist/ file by file, as the worker
 * threads and the benchmarks load it (scripts/bundle.ts then bundles dist/main.js).
 * esbuild strips the types in about a second where tsc's emit took 20 s of the test
 * suite's set-up; the types are checked by `npm run typecheck`, the first step of
 * `npm test`, and not again here. Each file is compiled on its own (tsconfig.json's
 * isolatedModules and verbatimModuleSyntax make that exact), with its source map.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
  .map((f) => join(src, f));

await build({
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: src,
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Node 20 reads `with { type: 'json' }` (since 20.10), which esbuild drops for 'node20'.
  supported: { 'import-attributes': true },
  sourcemap: true,
  tsconfig: join(root, 'tsconfig.json'),
  logLevel: 'warning',
});
