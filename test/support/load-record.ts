/**
 * What a robowatch command loads: the packages behind every file it opened (a bundled
 * chunk names its packages in its source map) and Node's own modules.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROBOWATCH, runCommand } from './cli.js';
import type { CliResult } from './cli.js';

const REGISTER = fileURLToPath(new URL('./load-recorder/register.mjs', import.meta.url));

export interface LoadRecord extends CliResult {
  /** npm packages whose code the command loaded ("pg", "@electric-sql/pglite"…). */
  readonly packages: ReadonlySet<string>;
  /** Node's own modules it loaded ("http2", "net"…). */
  readonly builtins: ReadonlySet<string>;
  /** robowatch's own source files it loaded ("src/store/overview.ts"…), from the chunks' maps. */
  readonly sources: ReadonlySet<string>;
}

/**
 * The npm package a path inside node_modules belongs to; none for its package.json (its
 * version read, none of its code: the configuration cache names js-yaml's in its entries).
 */
function packageOf(path: string): string | undefined {
  const inside = path.split('node_modules/').pop();
  if (inside === undefined || inside === path || inside.endsWith('/package.json')) return undefined;
  const parts = inside.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Runs the built `robowatch ARGS` and records what it loaded. */
export async function recordLoads(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<LoadRecord> {
  const record = join(mkdtempSync(join(tmpdir(), 'robowatch-loads-')), 'loads');
  const result = await runCommand(process.execPath, ['--import', REGISTER, ROBOWATCH, ...args], {
    env: { ...env, ROBOWATCH_LOAD_RECORD: record },
  });
  const packages = new Set<string>();
  const sources = new Set<string>();
  for (const url of readFileSync(record, 'utf8').split('\n')) {
    if (!url.startsWith('file:')) continue;
    const file = fileURLToPath(url);
    const direct = packageOf(file);
    if (direct !== undefined) packages.add(direct);
    // A bundled chunk: the packages it was made of.
    if (existsSync(`${file}.map`)) {
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      for (const source of map.sources) {
        const name = packageOf(source);
        if (name !== undefined) packages.add(name);
        const own = /(?:^|\/)(src\/.*)$/.exec(source);
        if (name === undefined && own !== null) sources.add(own[1]!);
      }
    }
  }
  const builtins = new Set(
    readFileSync(`${record}.builtins`, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('NativeModule '))
      .map((line) => line.slice('NativeModule '.length)),
  );
  return { ...result, packages, builtins, sources };
}
