import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The directory of robowatch's package.json: the first one named robowatch above this
 * module, wherever the module sits (src/lib under the tests, dist/lib as compiled, or a
 * chunk of the bundled command in dist/chunks), so that the migrations, the shipped
 * registry and the embedded database's seed are found from any of them.
 */
export function packageRoot(): string {
  if (found !== undefined) return found;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (
      existsSync(file) &&
      (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'robowatch'
    )
      return (found = dir);
    if (dirname(dir) === dir)
      throw new Error(`robowatch's package.json is not above ${fileURLToPath(import.meta.url)}`);
  }
}

/** A path inside robowatch's package: `fromRoot('migrations')`. */
export function fromRoot(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
