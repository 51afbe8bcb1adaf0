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
  /** When a check sweep (a planning fire of a check schedule) last completed, in any process. */
  setLastSweep(at: Date | null): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
  const lastSweep = new Gauge({
    name: 'robowatch_last_sweep_timestamp_seconds',
    help: 'When a check sweep last completed, in any process (Unix time; 0: never).',
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
    setLastSweep(at) {
      lastSweep.set(at === null ? 0 : at.getTime() / 1000);
    },
  };
}
