import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** End-to-end tests run the built CLI, as users do; build it once before the suite. */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
}
