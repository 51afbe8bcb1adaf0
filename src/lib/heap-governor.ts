/**
 * Keeps a long run's memory near what it uses. V8 sizes its old generation for the
 * machine (a 4 GB limit on 24 GB), and collects it only when that generation reaches a
 * limit that starts high: checking 100,000 sites, the objects that outlive a few young
 * collections while their site waits on the database (verdicts, bodies, rows) piled up to
 * 700–800 MB of RSS though less than 200 MB was ever live (V8 lets the heap grow to about
 * four times what its last full collection kept). A heap-size flag would cap it, but kills
 * the process when the live data outgrows the cap, and a command cannot set its own. So:
 * when the heap holds half as much again as the last full collection kept (and at least
 * 224 MB), a full collection is started, marked concurrently as V8 does its own. Measured
 * at 100,000 sites: `check` peaks at about 340 MB instead of 460–570 MB, for about a
 * quarter more CPU. At twice what was kept, the daemon's first sweep (about 160 MB live)
 * peaked at 420–460 MB; at one and a half times, under 400 (docs/performance.md).
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface HeapGovernorOptions {
  /** Never collect below this many bytes used. */
  readonly floorBytes: number;
  /** Collect when the heap holds this many times what the last full collection kept. */
  readonly growth: number;
  /** How often the heap is read while it grows (a check or a sweep under way). */
  readonly intervalMs: number;
  /**
   * The longest between two reads while it holds still (an idle daemon): each read that
   * finds it within `stillBytes` of the last doubles the wait, up to this.
   */
  readonly idleIntervalMs: number;
  /**
   * A change between two reads, either way, below which the heap counts as holding still.
   * Work moves it by more: the young generation alone fills and empties by megabytes.
   */
  readonly stillBytes: number;
}

const DEFAULTS: HeapGovernorOptions = {
  floorBytes: 224 * 1024 * 1024,
  growth: 1.5,
  intervalMs: 250,
  idleIntervalMs: 4_000,
  stillBytes: 4 * 1024 * 1024,
};

/** A floor a command sets for itself (a stream whose live data is one page), else null. */
let floorOverride: number | null = null;

/**
 * Lowers the floor for this process: a command that streams (an export) holds one page
 * live, so collecting from 64 MB keeps its RSS near what it uses.
 */
export function setHeapFloor(bytes: number): void {
  floorOverride = bytes;
}

/** What the governor reads and does: this process's heap and timers, or a test's. */
export interface HeapAccess {
  /** Bytes of the heap in use now. */
  used(): number;
  /** Starts a full collection; settles when it is done. */
  collect(): Promise<void>;
  /** Calls `run` once after `ms`; the timer keeps nothing alive. Returns how to cancel it. */
  after(ms: number, run: () => void): () => void;
  /** The floor asked for now, over the options' (this process's: setHeapFloor), if any. */
  floor?(): number | null;
}

/**
 * Watches a heap: reads it every `intervalMs` while it moves and less often while it holds
 * still, and starts a full collection when it holds `growth` times what the last one kept
 * (and at least the floor). Every wake-up of an idle daemon costs CPU (about 0.1 ms each
 * on a virtual machine): four reads a second were a fifth of an idle daemon's CPU, one
 * every four seconds is nothing. Returns how to stop.
 */
export function governHeap(access: HeapAccess, options: Partial<HeapGovernorOptions> = {}) {
  const { floorBytes, growth, intervalMs, idleIntervalMs, stillBytes } = {
    ...DEFAULTS,
    ...options,
  };
  let kept = 0;
  let collecting = false;
  let last = access.used();
  let waitMs = intervalMs;
  let cancel = access.after(waitMs, read);
  function read(): void {
    const used = access.used();
    // At work (or collecting): read again soon. Holding still: wait twice as long, up to
    // the idle interval; the first read that sees it move brings the wait back down.
    waitMs =
      collecting || Math.abs(used - last) >= stillBytes
        ? intervalMs
        : Math.min(waitMs * 2, idleIntervalMs);
    last = used;
    if (!collecting && used >= Math.max(access.floor?.() ?? floorBytes, kept * growth)) {
      collecting = true;
      void access.collect().finally(() => {
        collecting = false;
        kept = access.used();
        last = kept;
      });
    }
    cancel = access.after(waitMs, read);
  }
  return () => cancel();
}

/** Starts watching this process's heap; returns how to stop. Its timer keeps nothing alive. */
export function startHeapGovernor(options: Partial<HeapGovernorOptions> = {}): () => void {
  // The collector, reachable without --expose-gc on the command line.
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: {
    type: 'major';
    execution: 'async';
  }) => Promise<void>;
  return governHeap(
    {
      used: () => v8.getHeapStatistics().used_heap_size,
      // Marked concurrently, as V8 does its own: the event loop goes on meanwhile.
      collect: () => gc({ type: 'major', execution: 'async' }),
      after: (ms, run) => {
        const timer = setTimeout(run, ms);
        timer.unref();
        return () => clearTimeout(timer);
      },
      floor: () => floorOverride,
    },
    options,
  );
}
