import type { Worker } from 'node:worker_threads';
import { spawnWorker } from './spawn-worker.js';
import { TESTER_LIMITS } from '../../policy/tester.js';

export { TESTER_LIMITS };
import type { TesterInput, TesterResult } from '../../policy/tester.js';

/** Why a test was not evaluated: it took too long, its result is too large, or too many wait. */
export class TesterRefused extends Error {
  constructor(
    readonly reason: 'slow' | 'large' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

export interface TesterThreadOptions {
  /** The longest one evaluation may take before its thread is stopped; 10 s by default. */
  readonly timeoutMs?: number;
  /** Tests waiting their turn; one more is refused as busy. 4 by default. */
  readonly maxWaiting?: number;
  /** An idle thread is stopped after this long; 30 s by default. */
  readonly idleMs?: number;
  /** How long a new thread may take to load before the test it runs is refused; 60 s. */
  readonly startMs?: number;
  /** Starts the thread (tests delay its start); tester-worker by default. */
  readonly spawn?: () => Worker;
}

interface Job {
  readonly input: TesterInput;
  resolve(result: TesterResult): void;
  reject(error: Error): void;
}

/**
 * Runs the tester on a thread of its own, one test at a time: a file made to be slow
 * (thousands of wildcard rules) stops at the deadline instead of stalling the daemon,
 * and a queue caps how many wait. The thread starts on first use and stops when idle.
 */
export class TesterThread {
  readonly #timeoutMs: number;
  readonly #maxWaiting: number;
  readonly #idleMs: number;
  readonly #startMs: number;
  readonly #spawn: () => Worker;
  readonly #queue: Job[] = [];
  #worker: Worker | undefined;
  /** Whether the thread has loaded its modules and listens. */
  #ready = false;
  #running: Job | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: TesterThreadOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxWaiting = options.maxWaiting ?? 4;
    this.#idleMs = options.idleMs ?? 30_000;
    this.#startMs = options.startMs ?? 60_000;
    this.#spawn = options.spawn ?? (() => spawnWorker('tester-worker'));
  }

  /** Tests running or waiting. */
  get pending(): number {
    return this.#queue.length + (this.#running === undefined ? 0 : 1);
  }

  evaluate(input: TesterInput): Promise<TesterResult> {
    // Every row repeats its URL: a result that cannot fit is refused before any work (and
    // whatever the machine's load, not after a deadline).
    const floor = input.urls.reduce((n, url) => n + url.length, 0) * input.agents.length;
    if (floor > TESTER_LIMITS.resultChars) return Promise.reject(tooLarge(floor, 'at least '));
    if (this.#queue.length >= this.#maxWaiting)
      return Promise.reject(
        new TesterRefused('busy', 'the tester is busy with other tests; try again in a minute'),
      );
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#next();
    });
  }

  /** Stops the thread; the test running and those still waiting are refused. */
  async close(): Promise<void> {
    const running = this.#running;
    this.#running = undefined;
    for (const job of [...(running === undefined ? [] : [running]), ...this.#queue.splice(0)])
      job.reject(new TesterRefused('busy', 'the tester is shutting down'));
    await this.#stop();
  }

  #next(): void {
    if (this.#running !== undefined) return;
    const job = this.#queue.shift();
    clearTimeout(this.#timer);
    if (job === undefined) {
      // Idle: let the process exit, and stop the thread after a while.
      this.#worker?.unref();
      this.#timer = setTimeout(() => void this.#stop(), this.#idleMs).unref();
      return;
    }
    this.#running = job;
    const worker = this.#start();
    worker.ref();
    // The deadline is the evaluation's: a new thread's start (seconds on a busy machine,
    // after a slow test's thread was stopped) is not charged to the test that waits for it.
    if (this.#ready) this.#arm();
    else
      this.#timer = setTimeout(() => {
        void this.#stop();
        // Answered as busy (503, retry later): the machine, not the test, is at fault.
        this.#finish(
          new TesterRefused(
            'busy',
            `the tester's thread did not start in ${this.#startMs / 1000} s; try again in a minute`,
          ),
        );
      }, this.#startMs);
    worker.postMessage(job.input);
  }

  /** The running test's deadline, from now. */
  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      void this.#stop(); // the next test gets a fresh thread
      this.#finish(
        new TesterRefused(
          'slow',
          `evaluating took over ${this.#timeoutMs / 1000} s and was stopped: test fewer URLs or crawlers, or a file with fewer wildcard rules`,
        ),
      );
    }, this.#timeoutMs);
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = this.#spawn();
    this.#ready = false;
    // A stopped thread's late events are not about the test running now.
    worker.on('message', (message: { ready?: true; result?: TesterResult; tooLarge?: number }) => {
      if (this.#worker !== worker) return;
      if (message.ready === true) {
        this.#ready = true;
        if (this.#running !== undefined) this.#arm();
      } else if (message.result !== undefined) this.#finish(undefined, message.result);
      else this.#finish(tooLarge(message.tooLarge!));
    });
    worker.on('error', (error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#finish(error);
    });
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#finish(new Error('the tester thread stopped'));
    });
    this.#worker = worker;
    return worker;
  }

  #finish(error: Error | undefined, result?: TesterResult): void {
    const job = this.#running;
    if (job === undefined) return;
    this.#running = undefined;
    clearTimeout(this.#timer);
    if (error === undefined) job.resolve(result!);
    else job.reject(error);
    this.#next();
  }

  async #stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#timer);
    if (worker !== undefined) await worker.terminate();
  }
}

/** The refusal of a result over TESTER_LIMITS.resultChars characters. */
function tooLarge(chars: number, atLeast = ''): TesterRefused {
  return new TesterRefused(
    'large',
    `the result would be ${atLeast}${(chars / 1e6).toFixed(1)} MB (at most ${TESTER_LIMITS.resultChars / 1e6} MB): test fewer or shorter URLs, or fewer crawlers`,
  );
}
