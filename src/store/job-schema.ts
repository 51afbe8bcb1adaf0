/**
 * The job engine's tables (pg-boss's, in their own schema of robowatch's database) and
 * its queues with their policies. They are installed with robowatch's own migrations, so
 * that any process that writes a notification can queue its delivery job in the same
 * transaction, whether or not it runs the engine; a starting engine then sets each
 * queue's policy from the configuration.
 */
import PgBoss from 'pg-boss';
import type { QueueName } from '../monitor/ports.js';
import type { SqlExecutor } from './db.js';

/** The job engine's tables live in this schema of robowatch's database. */
export const SCHEMA = 'pgboss';

export interface JobEngineOptions {
  /** How long a job may run before it is expired and retried (a dead process's work). */
  readonly leaseSeconds: number;
  /** How long finished jobs are kept before deletion. */
  readonly retentionDays: number;
  /**
   * How long a finished job stays in the live table, where its id keeps the same work
   * from being queued again: longer than the longest period of any schedule.
   */
  readonly keepFinishedSeconds: number;
  /** How often expired jobs are failed over and finished ones archived (one process does it). */
  readonly maintenanceSeconds: number;
  /** The engine's own errors (maintenance failing while the database is away). */
  readonly onError: (error: Error) => void;
  /**
   * Whether this process takes part in the engine's maintenance (expiring a dead
   * process's jobs, archiving finished ones): the daemons do; a one-shot command, which
   * only works the jobs it queued, does not. Default: true.
   */
  readonly supervise?: boolean;
}

/**
 * Each queue's policy. `check` is "short": one waiting check per site (its singleton
 * key), so a site whose check waits from an earlier period is not queued again, and
 * waits in the order it was queued: under overload, sites take turns.
 */
export function queueOptions(
  options: Pick<JobEngineOptions, 'leaseSeconds' | 'retentionDays'>,
): Record<QueueName, PgBoss.Queue> {
  const common = {
    expireInSeconds: options.leaseSeconds,
    retentionMinutes: options.retentionDays * 24 * 60,
  };
  return {
    check: {
      name: 'check',
      policy: 'short',
      ...common,
      retryLimit: 5,
      retryDelay: Math.min(60, options.leaseSeconds),
      retryBackoff: true,
    },
    plan: {
      name: 'plan',
      ...common,
      retryLimit: 10,
      retryDelay: Math.min(30, options.leaseSeconds),
      retryBackoff: true,
    },
    deliver: {
      name: 'deliver',
      ...common,
      retryLimit: 20,
      retryDelay: Math.min(30, options.leaseSeconds),
      retryBackoff: true,
    },
    digest: {
      name: 'digest',
      ...common,
      retryLimit: 10,
      retryDelay: Math.min(60, options.leaseSeconds),
      retryBackoff: true,
    },
    registry: {
      name: 'registry',
      ...common,
      retryLimit: 5,
      retryDelay: Math.min(60, options.leaseSeconds),
      retryBackoff: true,
    },
    // Work for the whole fleet, done by one process: pruning sent notifications, and the
    // embedded database's ANALYZE and VACUUM. Named by its hour: queued once.
    upkeep: {
      name: 'upkeep',
      ...common,
      retryLimit: 3,
      retryDelay: Math.min(60, options.leaseSeconds),
      retryBackoff: true,
    },
    // One site's history from the Internet Archive, a slice at a time (about ten minutes
    // of spaced requests); one waiting per site. Refusals are retried after minutes.
    backfill: {
      name: 'backfill',
      policy: 'short',
      ...common,
      expireInSeconds: Math.max(options.leaseSeconds, 1800),
      retryLimit: 5,
      retryDelay: Math.min(300, Math.max(60, options.leaseSeconds)),
      retryBackoff: true,
    },
  };
}

/** The queues' policies before a configuration says otherwise (five-minute leases, a week kept). */
const DEFAULT_QUEUE_OPTIONS = { leaseSeconds: 300, retentionDays: 7 };

/**
 * Installs or upgrades the engine's tables and creates its queues (each a no-op when it
 * is there): a step of migrating the database. The caller keeps other processes out
 * meanwhile (PostgreSQL: the migration lock).
 */
export async function installJobSchema(executor: SqlExecutor): Promise<void> {
  const boss = new PgBoss({
    db: executor,
    schema: SCHEMA,
    migrate: true,
    supervise: false,
    schedule: false,
  });
  await boss.start();
  try {
    const { rows } = await executor.executeSql(`SELECT name FROM ${SCHEMA}.queue`, []);
    const existing = new Set((rows as { name: string }[]).map((r) => r.name));
    for (const queue of Object.values(queueOptions(DEFAULT_QUEUE_OPTIONS)))
      if (!existing.has(queue.name)) await boss.createQueue(queue.name, queue);
  } finally {
    await boss.stop({ graceful: false, close: false, wait: true });
  }
}
