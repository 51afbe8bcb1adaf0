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
  readonly intervalMs: number;
}

const DEFAULTS: HeapGovernorOptions = {
  floorBytes: 224 * 1024 * 1024,
  growth: 1.5,
  intervalMs: 250,
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

/** Starts watching this process's heap; returns how to stop. Its timer keeps nothing alive. */
export function startHeapGovernor(options: Partial<HeapGovernorOptions> = {}): () => void {
  const { floorBytes, growth, intervalMs } = { ...DEFAULTS, ...options };
  // The collector, reachable without --expose-gc on the command line.
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: {
    type: 'major';
    execution: 'async';
  }) => Promise<void>;
  let kept = 0;
  let collecting = false;
  const timer = setInterval(() => {
    const used = v8.getHeapStatistics().used_heap_size;
    if (collecting || used < Math.max(floorOverride ?? floorBytes, kept * growth)) return;
    // Marked concurrently, as V8 does its own: the event loop goes on meanwhile.
    collecting = true;
    void gc({ type: 'major', execution: 'async' }).finally(() => {
      collecting = false;
      kept = v8.getHeapStatistics().used_heap_size;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
