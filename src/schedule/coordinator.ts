import type { RunCoordinator, TaskContext } from 'node-cron';
import { oneLine } from '../lib/errors.js';

export interface FireStore {
  /** Claims a fire for this process: true if no live claim holds it and it is not done. */
  claim(key: string, ttlMs: number, now: Date): Promise<boolean>;
  complete(key: string, now: Date): Promise<void>;
  /** Leaves a failed fire to be taken up again once `retryAt` passes. */
  fail(key: string, error: string, retryAt: Date): Promise<void>;
  /** Fires claimed, never completed, whose claim expired. */
  abandoned(now: Date): Promise<string[]>;
  /** Whether a fire was missed while no process ran (an earlier fire of the task was claimed). */
  missed(name: string, fire: Date): Promise<boolean>;
}

export interface FireOptions {
  readonly store: FireStore;
  readonly now: () => Date;
  /** How long a claim lasts unless renewed. */
  readonly ttlMs: number;
  /** How long after a failure a fire is taken up again. */
  readonly retryMs: number;
  readonly onError: (key: string, error: unknown) => void;
}

type Task = (fire: Date) => Promise<void>;

/** node-cron's coordinator key: the task's name, a colon, the slot's time. */
const KEY = /^(.*):(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/;
const keyOf = (name: string, fire: Date) => `${name}:${fire.toISOString()}`;

/**
 * Runs each fire of a scheduled task in exactly one process, backed by the cron_runs
 * table: node-cron asks it whether this process may run a fire (the first to claim it
 * does). Unlike node-cron alone, a fire is complete only when its task succeeded: one
 * that failed, or whose process died, is taken up again by `sweep` in whichever process
 * sweeps after its claim expired.
 */
export class FireCoordinator {
  readonly #options: FireOptions;
  readonly #tasks = new Map<string, Task>();
  /** Fires that failed here: node-cron completes them anyway, and must not. */
  readonly #failed = new Set<string>();

  constructor(options: FireOptions) {
    this.#options = options;
  }

  /** node-cron's run coordinator. */
  readonly runCoordinator: RunCoordinator = {
    shouldRun: (key) => this.#options.store.claim(key, this.#options.ttlMs, this.#options.now()),
    onComplete: async (key) => {
      if (!this.#failed.delete(key)) await this.#options.store.complete(key, this.#options.now());
    },
  };

  /** Registers a task by name; returns node-cron's handler for it. */
  task(name: string, run: Task): (context: TaskContext) => Promise<void> {
    this.#tasks.set(name, run);
    return async (context) => {
      try {
        await run(context.date);
      } catch (error) {
        const key = keyOf(name, context.date);
        this.#failed.add(key);
        await this.#failLater(key, error);
      }
    };
  }

  /** Takes up the fires that failed or whose process died, once their claim expired. */
  async sweep(): Promise<number> {
    const { store, now, ttlMs } = this.#options;
    let taken = 0;
    for (const key of await store.abandoned(now())) {
      const match = KEY.exec(key);
      const task = match ? this.#tasks.get(match[1]!) : undefined;
      if (!(await store.claim(key, ttlMs, now()))) continue; // another process took it
      taken++;
      if (match === null || task === undefined) {
        // A task this configuration no longer has (its schedule changed): nothing to do.
        await store.complete(key, now());
        continue;
      }
      await this.#run(key, task, new Date(match[2]!));
    }
    return taken;
  }

  /**
   * Runs the last fire of a task, at start-up, if every process was down when it was
   * due (and an earlier fire ran, so that a first deployment does not send last week's).
   */
  async catchUp(name: string, fire: Date): Promise<boolean> {
    const { store, now, ttlMs } = this.#options;
    const task = this.#tasks.get(name);
    if (task === undefined || !(await store.missed(name, fire))) return false;
    const key = keyOf(name, fire);
    if (!(await store.claim(key, ttlMs, now()))) return false;
    await this.#run(key, task, fire);
    return true;
  }

  async #run(key: string, task: Task, fire: Date): Promise<void> {
    try {
      await task(fire);
      await this.#options.store.complete(key, this.#options.now());
    } catch (error) {
      await this.#failLater(key, error);
    }
  }

  async #failLater(key: string, error: unknown): Promise<void> {
    const { store, now, retryMs, onError } = this.#options;
    onError(key, error);
    try {
      await store.fail(key, oneLine(error), new Date(now().getTime() + retryMs));
    } catch {
      // The store is down too: the claim expires on its own, and the sweep takes it up.
    }
  }
}
