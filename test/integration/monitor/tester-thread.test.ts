/**
 * The tester's thread (the web UI's and API's robots.txt tester) on a real worker thread:
 * its deadline is the evaluation's own. A new thread's start, seconds on a busy machine
 * after a slow test's thread was stopped, is not charged to the test that waits for it.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { TesterThread } from '../../../src/monitor/threads/tester-thread.js';
import type { TesterInput } from '../../../src/policy/tester.js';

const entry = new URL('../../../src/monitor/threads/tester-worker.ts', import.meta.url).href;

/** The tester's own thread, loaded only after `delayMs`: a start as slow as a busy machine's. */
const startingAfter = (delayMs: number) => () =>
  new Worker(
    `setTimeout(() => import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); }), ${delayMs});`,
    { eval: true },
  );

const input: TesterInput = {
  body: new TextEncoder().encode('User-agent: *\nDisallow: /private\n'),
  agents: [{ token: 'Googlebot', profile: 'google' }],
  urls: ['https://e.com/private/a', 'https://e.com/'],
  live: null,
};

describe('TesterThread', () => {
  let tester: TesterThread | undefined;
  afterEach(async () => {
    await tester?.close();
  });

  it('answers a test whose new thread starts later than the deadline: the deadline counts the evaluation', async () => {
    tester = new TesterThread({ timeoutMs: 2_000, spawn: startingAfter(2_500) });
    const result = await tester.evaluate(input);
    expect(result.rows.map((r) => [r.url, r.proposed.allowed])).toEqual([
      ['https://e.com/private/a', false],
      ['https://e.com/', true],
    ]);
  });

  it('refuses a test in one line when its thread never starts, and starts another for the next', async () => {
    const spawned: Worker[] = [];
    tester = new TesterThread({
      startMs: 500,
      spawn: () => {
        spawned.push(new Worker('setInterval(() => {}, 60_000);', { eval: true }));
        return spawned.at(-1)!;
      },
    });
    // Refused as busy (the web answers 503 with Retry-After): the test itself was fine.
    await expect(tester.evaluate(input)).rejects.toMatchObject({
      reason: 'busy',
      message: "the tester's thread did not start in 0.5 s; try again in a minute",
    });
    // The stuck thread is stopped; the next test gets a new one. Closing refuses the test
    // still running, as it refuses those waiting, rather than leaving it unanswered.
    const next = tester.evaluate(input);
    const waiting = tester.evaluate(input);
    expect(spawned).toHaveLength(2);
    expect(tester.pending).toBe(2);
    const outcomes = Promise.allSettled([next, waiting]);
    await tester.close();
    expect((await outcomes).map((o) => o.status === 'rejected' && String(o.reason))).toEqual([
      'Error: the tester is shutting down',
      'Error: the tester is shutting down',
    ]);
  });
});
