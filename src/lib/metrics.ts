import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What one check reports to the metrics. */
export interface CheckObservation {
  readonly access: string;
  readonly durationMs: number;
  readonly eventTypes: readonly string[];
}

/** Prometheus metrics of one process (prom-client), on a registry of its own. */
export interface Metrics {
  readonly registry: Registry;
  observeCheck(check: CheckObservation): void;
  /** Outbox rows not yet sent, and those among them that failed at least once. */
  setOutbox(pending: number, failed: number): void;
  /** When any site's check last completed, in any process. */
  setLastCheck(at: Date | null): void;
  /** Sites whose check of a period was skipped because their earlier one still waited. */
  countSkipped(count: number): void;
  /** Jobs waiting and running, per queue (all processes). */
  setJobs(counts: Record<string, { waiting: number; running: number }>): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Node's event-loop delay is sampled by a timer, and every wake-up of an idle daemon
  // costs CPU (about 0.1 ms on a virtual machine): prom-client's default, every 10 ms, was
  // two fifths of an idle daemon's CPU, and every 100 ms still a third of what was left.
  // Every second, each stall of a second or more is seen whole, and a shorter one as often
  // as it spans a sample (docs/performance.md).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1_000 });
  const checks = new Counter({
    name: 'robowatch_checks_total',
    help: 'Checks made by this process, by the access state they found.',
    labelNames: ['access'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'robowatch_check_duration_seconds',
    help: 'How long a check took: the fetch, any confirming retries, and recording it.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const events = new Counter({
    name: 'robowatch_change_events_total',
    help: "Change events found by this process's checks, by type.",
    labelNames: ['type'],
    registers: [registry],
  });
  const pending = new Gauge({
    name: 'robowatch_outbox_pending',
    help: 'Notifications queued and not yet sent (all processes).',
    registers: [registry],
  });
  const failed = new Gauge({
    name: 'robowatch_outbox_failed',
    help: 'Notifications not yet sent that failed at least once (all processes).',
    registers: [registry],
  });
  const lastCheck = new Gauge({
    name: 'robowatch_last_check_timestamp_seconds',
    help: "When any site's check last completed, in any process (Unix time; 0: never).",
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'robowatch_check_periods_skipped_total',
    help: "Sites whose check of a period was skipped by this process's planning: their check from an earlier period still waited (overload).",
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'robowatch_jobs',
    help: 'Jobs in the job engine (all processes), by queue and state (waiting, running).',
    labelNames: ['queue', 'state'],
    registers: [registry],
  });
  return {
    registry,
    observeCheck(check) {
      checks.inc({ access: check.access });
      duration.observe(check.durationMs / 1000);
      for (const type of check.eventTypes) events.inc({ type });
    },
    setOutbox(p, f) {
      pending.set(p);
      failed.set(f);
    },
    setLastCheck(at) {
      lastCheck.set(at === null ? 0 : at.getTime() / 1000);
    },
    countSkipped(count) {
      skipped.inc(count);
    },
    setJobs(counts) {
      for (const [queue, { waiting, running }] of Object.entries(counts)) {
        jobs.set({ queue, state: 'waiting' }, waiting);
        jobs.set({ queue, state: 'running' }, running);
      }
    },
  };
}
