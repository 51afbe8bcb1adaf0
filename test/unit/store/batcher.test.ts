/**
 * The store's batches: items that arrive while a statement runs go in the next one
 * together, and nothing waits for company: an item that finds the batcher idle goes at
 * once (a check's slot is held until its row is stored, so a wait would slow a sweep).
 */
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../../src/store/batcher.js';

/** A batcher of at most three items whose statements are recorded. */
function recorded() {
  const batches: string[][] = [];
  const batcher = new Batcher<string, string>((items) => {
    batches.push(items);
    return Promise.resolve(items.map((item) => `${item} stored`));
  }, 3);
  return { batcher, batches };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('a batcher', () => {
  it('answers each item, in batches of at most its size, the items of a turn together', async () => {
    const { batcher, batches } = recorded();
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((x) => batcher.add(x)));
    expect(answers).toEqual(['a stored', 'b stored', 'c stored', 'd stored', 'e stored']);
    expect(batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
  });

  it('writes an item that finds it idle at once, alone, without waiting for company', async () => {
    const { batcher, batches } = recorded();
    await batcher.add('a');
    const b = batcher.add('b');
    await settle();
    const c = batcher.add('c');
    await Promise.all([b, c]);
    expect(batches).toEqual([['a'], ['b'], ['c']]);
  });

  it('rejects the items of a failed statement and goes on with the next', async () => {
    let calls = 0;
    const batcher = new Batcher<string, string>(
      (items) =>
        calls++ === 0
          ? Promise.reject(new Error('the database went away'))
          : Promise.resolve(items),
      10,
    );
    const a = batcher.add('a');
    const b = batcher.add('b');
    await expect(a).rejects.toThrow('the database went away');
    expect(await b).toBe('b');
  });
});
