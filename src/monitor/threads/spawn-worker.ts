import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside `beside` (an import.meta.url): the
 * compiled .js, or under the test runner (which loads TypeScript as it goes) the .ts
 * source through tsx.
 */
export function spawnWorker(beside: string, name: string): Worker {
  const source = new URL(beside);
  if (source.pathname.endsWith('.ts')) {
    const entry = new URL(`./${name}.ts`, source).href;
    return new Worker(
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`,
      { eval: true },
    );
  }
  return new Worker(new URL(`./${name}.js`, source));
}
