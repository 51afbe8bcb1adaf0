import { Worker } from 'node:worker_threads';
import { fromRoot } from '../../lib/package-root.js';

/**
 * A worker thread running the module `name` of this directory (src/monitor/threads): the
 * compiled dist/monitor/threads/NAME.js (the bundled command's chunks live elsewhere, so
 * the path is taken from the package's root), or under the test runner (which loads
 * TypeScript as it goes) the .ts source through tsx.
 */
export function spawnWorker(name: string): Worker {
  if (import.meta.url.endsWith('.ts')) {
    const entry = new URL(`./${name}.ts`, import.meta.url).href;
    return new Worker(
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`,
      { eval: true },
    );
  }
  return new Worker(fromRoot('dist', 'monitor', 'threads', `${name}.js`));
}
