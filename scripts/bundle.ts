/**
 * `npm run build`'s second step: the `robowatch` command as one bundle. tsc has compiled
 * src/ into dist/ (which the worker threads and the benchmarks load module by module);
 * this bundles dist/main.js and everything it imports, its dependencies included, into
 * dist/main.js and the chunks its commands load when they run (dist/chunks/). Node then
 * opens a few files instead of ~700 and resolves no package at start-up: a one-site
 * `check` spends about 0.4 s less CPU, `--version` about 0.07 s. Whitespace and syntax are
 * minified (names are kept, for stack traces), a further ~0.05 s.
 *
 * Left outside: PGlite (it reads its WebAssembly and data files beside its own modules)
 * and pg-boss (loaded only by the daemon), both from node_modules as before.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

// dist/main.js must be tsc's: bundling a bundle again declares its banner twice.
if (readFileSync(join(dist, 'main.js'), 'utf8').includes('robowatchRequire')) {
  process.stderr.write('bundle: dist/main.js is bundled already; run npm run build (tsc first)\n');
  process.exit(1);
}

/**
 * A plugin that edits one dependency's module as the bundle reads it: where `file` ends
 * a path, `find` is replaced with `replacement` (the whole text, with `whole`). The build
 * fails if the text to replace is gone, so that an update of the dependency is looked at.
 */
function patched(
  name: string,
  file: RegExp,
  find: string,
  replacement: string,
  whole = false,
): Plugin {
  return {
    name,
    setup(bundle) {
      bundle.onLoad({ filter: file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(find)) throw new Error(`bundle: ${args.path} no longer has "${find}"`);
        return {
          contents: whole ? replacement : text.replace(find, replacement),
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/**
 * pg asks whether it runs in a Cloudflare Worker by building a web Response, which on Node
 * 20 loads Node's own copy of undici (30-45 ms of CPU at every start). The bundle runs on
 * Node only: it takes pg's Node sockets without asking.
 */
const pgOnNode = patched(
  'pg-on-node',
  /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/,
  'if (isCloudflareRuntime())',
  'if (false)',
);

/**
 * zod's namespace carries every locale of its error messages (`z.locales`, 49 languages,
 * 297 KB of the 909 KB chunk every command loads for its configuration), kept because the
 * namespace object is exported whole. robowatch speaks English only and names no other
 * locale: the namespace keeps `en`, which zod registers itself, and the rest is not
 * compiled at every start (34 M instructions, about 10 ms).
 */
const zodEnglishOnly = patched(
  'zod-english-only',
  /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/,
  'export { default as en } from "./en.js";',
  'export { default as en } from "./en.js";',
  true,
);

/**
 * undici's HTTP/1.1 client loads its HTTP/2 client when its own module loads, and that
 * loads Node's http2 (with tls and http): 20–30 ms of CPU in every command that fetches,
 * for a protocol robowatch never offers (no `allowH2`: ALPN never answers h2). The bundle
 * loads it the first time a connection would speak HTTP/2 instead.
 */
const undiciH2WhenUsed = patched(
  'undici-h2-when-used',
  /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
  "const connectH2 = require('./client-h2.js')",
  "const connectH2 = (client, socket) => require('./client-h2.js')(client, socket)",
);

/**
 * The build's name: a hash of what makes it (the sources, the lockfile that pins the
 * dependencies, and these build scripts). The command keeps a large configuration's
 * validated form between runs under it (config/tree-cache.ts), so that any change of the
 * schema, of the code that resolves a configuration, or of zod validates files again.
 */
function buildName(): string {
  const digest = createHash('sha256');
  const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .sort()
    .map((f) => join('src', f));
  for (const file of [
    ...sources,
    'package-lock.json',
    'scripts/bundle.ts',
    'scripts/transpile.ts',
  ]) {
    digest
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  return digest.digest('hex').slice(0, 16);
}

const result = await build({
  plugins: [pgOnNode, zodEnglishOnly, undiciH2WhenUsed],
  entryPoints: { main: join(dist, 'main.js') },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: dist,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['@electric-sql/pglite', '@electric-sql/pglite/*', 'pg-boss'],
  // The CommonJS packages bundled (pg, undici…) call require() for Node's own modules.
  banner: {
    js: "import { createRequire as robowatchRequire } from 'node:module'; const require = robowatchRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  legalComments: 'linked',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  define: { __ROBOWATCH_BUILD__: JSON.stringify(buildName()) },
  // dist/main.js is both the entry and an output: read everything, then write.
  write: false,
});
rmSync(join(dist, 'chunks'), { recursive: true, force: true });
for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}
process.stdout.write(`bundled dist/main.js and ${result.outputFiles.length - 1} other files\n`);
