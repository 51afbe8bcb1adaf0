/**
 * The heap governor: it reads the heap often while it moves and seldom while it holds
 * still (an idle daemon wakes for nothing), and starts a full collection when the heap
 * outgrows what the last one kept.
 */
import { describe, expect, it } from 'vitest';
import { governHeap, setHeapFloor } from '../../../src/lib/heap-governor.js';
import type { HeapAccess } from '../../../src/lib/heap-governor.js';

const MB = 1024 * 1024;

/** A heap whose size the test sets, on a clock the test moves. */
function fakeHeap(startMb: number) {
  let now = 0;
  let used = startMb * MB;
  let timer: { at: number; run: () => void } | null = null;
  const reads: number[] = []; // when the governor read the heap, ms
  const collections: number[] = []; // when it started a full collection, ms
  let finishCollection: (() => void) | null = null;
  const access: HeapAccess = {
    used: () => {
      reads.push(now);
      return used;
    },
    collect: () => {
      collections.push(now);
      return new Promise<void>((resolve) => (finishCollection = resolve));
    },
    after: (ms, run) => {
      const mine = { at: now + ms, run };
      timer = mine;
      return () => {
        if (timer === mine) timer = null;
      };
    },
  };
  return {
    access,
    reads,
    collections,
    setUsed: (mb: number) => (used = mb * MB),
    /** Moves the clock to `ms`, running the governor's reads on the way. */
    runUntil(ms: number, each?: () => void) {
      while (timer !== null && timer.at <= ms) {
        const due = timer;
        timer = null;
        now = due.at;
        each?.();
        due.run();
      }
      now = ms;
    },
    async finishCollection(keptMb: number) {
      used = keptMb * MB;
      finishCollection?.();
      finishCollection = null;
      await new Promise((resolve) => setImmediate(resolve));
    },
    pending: () => timer !== null,
  };
}

/** The gaps between successive reads (the first made at start). */
const gaps = (reads: number[]) => reads.slice(1).map((at, i) => at - reads[i]!);

describe('governHeap', () => {
  it('reads a heap at work four times a second', () => {
    const heap = fakeHeap(50);
    let mb = 50;
    governHeap(heap.access);
    heap.runUntil(3_000, () => heap.setUsed((mb += 8))); // the young generation fills
    expect(gaps(heap.reads)).toEqual(Array(12).fill(250));
  });

  it('waits longer and longer while the heap holds still, up to one read every four seconds', () => {
    const heap = fakeHeap(30);
    governHeap(heap.access);
    heap.runUntil(60_000, () => heap.setUsed(30 + Math.random())); // an idle daemon's crumbs
    const waits = gaps(heap.reads);
    expect(waits.slice(0, 5)).toEqual([250, 500, 1_000, 2_000, 4_000]);
    expect(waits.slice(5).every((ms) => ms === 4_000)).toBe(true);
    // About one wake-up every four seconds instead of four a second.
    expect(heap.reads.length).toBeLessThan(20);
  });

  it('reads four times a second again as soon as the heap moves', () => {
    const heap = fakeHeap(30);
    governHeap(heap.access);
    heap.runUntil(20_000);
    const before = heap.reads.length;
    heap.setUsed(60); // a sweep begins
    let mb = 60;
    heap.runUntil(26_000, () => heap.setUsed((mb += 8)));
    const waits = gaps(heap.reads.slice(before - 1));
    // At most one idle wait passes before it notices; then every 250 ms.
    expect(waits[0]).toBeLessThanOrEqual(4_000);
    expect(waits.slice(1).every((ms) => ms === 250)).toBe(true);
  });

  it('collects once the heap passes the floor, then at one and a half times what was kept', async () => {
    const heap = fakeHeap(100);
    governHeap(heap.access, { floorBytes: 224 * MB });
    heap.setUsed(200);
    heap.runUntil(1_000);
    expect(heap.collections).toEqual([]); // under the floor
    heap.setUsed(230);
    heap.runUntil(2_000);
    expect(heap.collections).toHaveLength(1);
    heap.setUsed(400);
    heap.runUntil(3_000);
    expect(heap.collections).toHaveLength(1); // one at a time
    await heap.finishCollection(200);
    heap.setUsed(290); // under 1.5 × 200 MB kept
    heap.runUntil(4_000);
    expect(heap.collections).toHaveLength(1);
    heap.setUsed(310);
    heap.runUntil(5_000);
    expect(heap.collections).toHaveLength(2);
  });

  it("keeps its own floor when a command lowers this process's (an export run in the same process)", () => {
    setHeapFloor(64 * MB);
    const heap = fakeHeap(100);
    governHeap(heap.access, { floorBytes: 224 * MB });
    heap.setUsed(200);
    heap.runUntil(1_000);
    expect(heap.collections).toEqual([]);
    heap.access.floor = () => 64 * MB; // a heap that asks for the lower floor has it
    heap.runUntil(2_000);
    expect(heap.collections).toHaveLength(1);
  });

  it('reads nothing more once stopped', () => {
    const heap = fakeHeap(30);
    const stop = governHeap(heap.access);
    heap.runUntil(1_000);
    stop();
    expect(heap.pending()).toBe(false);
  });
});
