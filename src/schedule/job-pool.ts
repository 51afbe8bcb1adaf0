import { oneLine } from '../lib/errors.js';
import type { Job, JobQueue, QueueName } from '../monitor/ports.js';

export interface JobPoolOptions<T> {
  readonly queue: QueueName;
  readonly jobs: JobQueue;
  /** Jobs run at once by this process. */
  readonly concurrency: number;
  /**
   * How often an idle pool looks for jobs it was not woken for (those another process
   * queued); it sleeps until the next job it knows of falls due, and is woken for those
   * its own process queues and for the retry of a job that failed.
   */
  readonly pollMs: number;
  /**
   * The least it waits between two looks for due jobs (100 ms by default): the jobs that
   * fall due meanwhile are taken, and start, together, and so share their statements (the
   * take, the sites' rows, the checks' writes, the completions), where a job taken alone
   * as it falls due pays for each. A job starts at most this late.
   */
  readonly gatherMs?: number;
  /** How long a finished job's completion is retried while the database is away; then the job expires and is retried. */
  readonly settleForMs: number;
  /** Runs a job; throwing fails it, for the engine to retry with backoff. */
  handle(job: Job<T>): Promise<void>;
  /** A job failed (its handler threw), or its end could not be recorded. */
  onError(job: Job<T>, error: string, what: 'failed' | 'unrecorded'): void;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The daemon's clock: a job is due when its time has come by it (tests set it). */
  now(): Date;
}

/**
 * A pool of workers on one queue: it keeps up to `concurrency` jobs running, taking new
 * ones as slots free up (a quarter of the pool at a time under load; no batch waits for
 * its slowest member), and records
 * each job's end. A completion the database cannot take is retried for a while; after
 * that the engine expires the job and retries it (the work is done again, at least once).
 */
export class JobPool<T> {
  readonly #options: JobPoolOptions<T>;
  readonly #running = new Set<Promise<void>>();
  readonly #stopping = new AbortController();
  #wake = new AbortController();
  /** The loop waits for a slot to free: a job's end wakes it (else it sleeps until the next job is due). */
  #full = false;
  #loop: Promise<void> | null = null;
  #jobs = new Map<Promise<void>, Job<T>>();

  constructor(options: JobPoolOptions<T>) {
    this.#options = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Looks for jobs now (this process just queued some). */
  wake(): void {
    this.#wake.abort();
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running.size;
  }

  /**
   * Stops taking jobs and waits up to `deadlineMs` for those running; the ones still
   * running then are failed, for the engine to retry them (in another process) at once.
   * Returns how many were.
   */
  async stop(deadlineMs: number): Promise<number> {
    this.#stopping.abort();
    this.#wake.abort();
    await this.#loop;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), deadlineMs);
    await Promise.race([
      Promise.allSettled([...this.#running]),
      new Promise((resolve) => deadline.signal.addEventListener('abort', resolve)),
    ]);
    clearTimeout(timer);
    const left = [...this.#jobs.values()];
    for (const job of left)
      await this.#options.jobs
        .fail(this.#options.queue, job.id, 'the daemon stopped before it finished')
        .catch(() => undefined);
    return left.length;
  }

  async #run(): Promise<void> {
    const { jobs, queue, concurrency, pollMs } = this.#options;
    const stopping = this.#stopping.signal;
    while (!stopping.aborted) {
      const free = concurrency - this.#running.size;
      // Under load, slots are refilled a quarter of the pool at a time: one statement
      // takes many jobs, while the rest keep running (no batch waits for its slowest).
      if (free < Math.max(1, Math.floor(concurrency / 4))) {
        // Full: wait until one ends (it wakes the loop) or the pool stops.
        this.#full = true;
        await this.#idle(pollMs * 10);
        this.#full = false;
        continue;
      }
      const { jobs: taken, nextDue } = await jobs
        .take<T>(queue, free, this.#options.now())
        .catch(() => ({ jobs: [] as Job<T>[], nextDue: null }));
      if (stopping.aborted) {
        for (const job of taken)
          await jobs.fail(queue, job.id, 'the daemon is stopping').catch(() => undefined);
        break;
      }
      for (const job of taken) this.#start(job);
      if (taken.length < free) await this.#idle(this.#untilDue(nextDue, pollMs));
    }
  }

  /**
   * How long to wait for the next job to fall due: at most `pollMs` (another process may
   * queue one), from half of it at random, so that a daemon's seven pools look at
   * different moments (one connection serves them) rather than all at once.
   */
  #untilDue(next: Date | null, pollMs: number): number {
    const look = Math.round(pollMs * (0.5 + Math.random() / 2));
    if (next === null) return look;
    return Math.min(
      look,
      Math.max(this.#options.gatherMs ?? 100, next.getTime() - this.#options.now().getTime() + 10),
    );
  }

  async #idle(ms: number): Promise<void> {
    const wake = this.#wake;
    // Stopping aborts the wake too: one signal to sleep on, not a composite made per sleep.
    await this.#options.sleep(ms, wake.signal);
    if (wake.signal.aborted && !this.#stopping.signal.aborted) this.#wake = new AbortController();
  }

  #start(job: Job<T>): void {
    const run: Promise<void> = this.#options
      .handle(job)
      .then(
        () => this.#settle(job, () => this.#options.jobs.complete(this.#options.queue, job.id)),
        async (error: unknown) => {
          this.#options.onError(job, oneLine(error), 'failed');
          await this.#settle(job, () =>
            this.#options.jobs.fail(this.#options.queue, job.id, oneLine(error)),
          );
          // Its retry falls due after a backoff the loop has not seen: it looks again.
          this.wake();
        },
      )
      .finally(() => {
        this.#running.delete(run);
        this.#jobs.delete(run);
        // A slot matters only to a full pool. Otherwise the loop sleeps until the next job
        // falls due: waking it for each end cost statements per job that found nothing
        // new, the most of what a check spread over its period cost the database
        // (docs/performance.md).
        if (this.#full) this.wake();
      });
    this.#running.add(run);
    this.#jobs.set(run, job);
  }

  /** Records a job's end, retrying while the database is away (for `settleForMs`). */
  async #settle(job: Job<T>, record: () => Promise<unknown>): Promise<void> {
    const until = Date.now() + this.#options.settleForMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await record();
        return;
      } catch (error) {
        if (Date.now() >= until || this.#stopping.signal.aborted) {
          this.#options.onError(job, oneLine(error), 'unrecorded');
          return;
        }
        await this.#options.sleep(Math.min(500 * 2 ** attempt, 5_000), this.#stopping.signal);
      }
    }
  }
}
