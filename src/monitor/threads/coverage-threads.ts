/**
 * Coverage off the event loop and across the cores. A site's URL set evaluated for all
 * its crawlers is a second or so of pure computing for 100,000 URLs and a large file:
 * on the event loop it would stall pages, health checks and the other sites' checks. The
 * crawlers are split by the rule set they obey (splitAgents) and each part evaluated on a
 * thread of its own, one per core; the parts are put back in the crawlers' order.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from './spawn-worker.js';
import { computeCoverage } from '../../policy/coverage.js';
import { splitAgents } from '../../policy/coverage-change.js';
import type { Coverage } from '../../policy/coverage.js';
import type { CoverageChange } from '../../policy/coverage-change.js';
import type { RobotsState, WatchedAgent } from '../../policy/verdicts.js';

/** Evaluates URL sets: in this thread, or on threads of their own. */
export interface CoverageComputer {
  /** The coverage of a URL set for each crawler in one state (in the crawlers' order). */
  coverage(
    state: RobotsState,
    paths: readonly string[],
    agents: readonly WatchedAgent[],
  ): Promise<Coverage>;
  /** What changes between two states over a URL set, for the crawlers it changes for. */
  compare(
    before: RobotsState,
    after: RobotsState,
    paths: readonly string[],
    agents: readonly WatchedAgent[],
  ): Promise<CoverageChange[]>;
  close(): Promise<void>;
}

/** A part of a job, as a thread receives it. */
export interface CoverageJob {
  readonly id: number;
  readonly op: 'coverage' | 'compare';
  readonly states: readonly RobotsState[];
  /** The paths, joined by newlines when none holds one (a string crosses threads faster). */
  readonly paths: string | readonly string[];
  readonly agents: readonly WatchedAgent[];
}

type Reply =
  | { id: number; result: Coverage | CoverageChange[]; error?: undefined }
  | { id: number; error: string };

export interface CoverageThreadsOptions {
  /** Threads at most; one per core by default (at most 4). */
  readonly threads?: number;
  /** An idle thread is stopped after this long; 30 s by default. */
  readonly idleMs?: number;
}

interface Pending {
  resolve(result: Coverage | CoverageChange[]): void;
  reject(error: Error): void;
}

/** Coverage on worker threads, started on first use and stopped when idle. */
export class CoverageThreads implements CoverageComputer {
  readonly #size: number;
  readonly #idleMs: number;
  readonly #workers: (Worker | undefined)[];
  readonly #pending = new Map<number, Pending>();
  /** Which thread each pending part runs on, to fail them if it dies. */
  readonly #on = new Map<number, Worker>();
  #nextId = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: CoverageThreadsOptions = {}) {
    this.#size = Math.max(1, options.threads ?? Math.min(availableParallelism(), 4));
    this.#idleMs = options.idleMs ?? 30_000;
    this.#workers = Array.from({ length: this.#size }, () => undefined);
  }

  async coverage(
    state: RobotsState,
    paths: readonly string[],
    agents: readonly WatchedAgent[],
  ): Promise<Coverage> {
    const parts = (await this.#run('coverage', [state], paths, agents)) as Coverage[];
    const byToken = new Map(parts.flatMap((p) => p.agents).map((a) => [a.agent, a]));
    return { urls: paths.length, agents: agents.map((agent) => byToken.get(agent.token)!) };
  }

  async compare(
    before: RobotsState,
    after: RobotsState,
    paths: readonly string[],
    agents: readonly WatchedAgent[],
  ): Promise<CoverageChange[]> {
    const parts = (await this.#run(
      'compare',
      [before, after],
      paths,
      agents,
    )) as CoverageChange[][];
    const order = new Map(agents.map((a, i) => [a.token, i]));
    return parts.flat().sort((a, b) => order.get(a.agent)! - order.get(b.agent)!);
  }

  /** Stops the threads; work still running is refused. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(new Error('coverage: the daemon is shutting down'));
    }
    await Promise.all(this.#workers.map((w, i) => this.#stop(i, w)));
  }

  #run(
    op: CoverageJob['op'],
    states: readonly RobotsState[],
    paths: readonly string[],
    agents: readonly WatchedAgent[],
  ): Promise<(Coverage | CoverageChange[])[]> {
    if (agents.length === 0 || paths.length === 0) {
      return Promise.resolve([op === 'coverage' ? computeCoverage(states[0]!, paths, agents) : []]);
    }
    clearTimeout(this.#timer);
    const lists = splitAgents(states, agents, this.#size);
    const shared = paths.some((p) => p.includes('\n')) ? paths : paths.join('\n');
    return Promise.all(
      lists.map(
        (list, slot) =>
          new Promise<Coverage | CoverageChange[]>((resolve, reject) => {
            const id = this.#nextId++;
            const worker = this.#worker(slot);
            this.#pending.set(id, { resolve, reject });
            this.#on.set(id, worker);
            worker.ref();
            const job: CoverageJob = { id, op, states, paths: shared, agents: list };
            worker.postMessage(job);
          }),
      ),
    ).finally(() => this.#idle());
  }

  #worker(slot: number): Worker {
    const running = this.#workers[slot];
    if (running !== undefined) return running;
    const worker = spawnWorker('coverage-worker');
    worker.on('message', (reply: Reply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      this.#on.delete(reply.id);
      if (![...this.#on.values()].includes(worker)) worker.unref();
      if (pending === undefined) return;
      if (reply.error === undefined) pending.resolve(reply.result);
      else pending.reject(new Error(`coverage: ${reply.error}`));
    });
    const fail = (error: Error) => {
      if (this.#workers[slot] === worker) this.#workers[slot] = undefined;
      for (const [id, on] of this.#on) {
        if (on !== worker) continue;
        this.#on.delete(id);
        this.#pending.get(id)?.reject(error);
        this.#pending.delete(id);
      }
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('coverage: its thread stopped')));
    this.#workers[slot] = worker;
    return worker;
  }

  /** Nothing running: stop the threads after a while. */
  #idle(): void {
    if (this.#pending.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      void Promise.all(this.#workers.map((w, i) => this.#stop(i, w)));
    }, this.#idleMs).unref();
  }

  async #stop(slot: number, worker: Worker | undefined): Promise<void> {
    if (worker === undefined) return;
    this.#workers[slot] = undefined;
    await worker.terminate();
  }
}
