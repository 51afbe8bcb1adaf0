/**
 * The job engine's tables (pg-boss's, in their own schema of robowatch's database) and
 * its queues with their policies. They are installed with robowatch's own migrations, so
 * that any process that writes a notification can queue its delivery job in the same
 * transaction, whether or not it runs the engine; a starting engine then sets each
 * queue's policy from the configuration.
 */
import { createRequire } from 'node:module';
import type PgBoss from 'pg-boss';
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
  // Installed and current (every open but the first after an upgrade): pg-boss, its
  // cron parser and its start-up are not loaded at all.
  if (await jobSchemaCurrent(executor)) return;
  const { default: PgBoss } = await import('pg-boss');
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

/** The schema version of the pg-boss this build installs (its package says it). */
const SCHEMA_VERSION = (
  createRequire(import.meta.url)('pg-boss/version.json') as { readonly schema: number }
).schema;

/** Whether the engine's tables are there, at this pg-boss's version, with every queue. */
async function jobSchemaCurrent(executor: SqlExecutor): Promise<boolean> {
  const tables = await executor.executeSql(
    `SELECT to_regclass('${SCHEMA}.version') IS NOT NULL AND to_regclass('${SCHEMA}.queue') IS NOT NULL AS present`,
    [],
  );
  if ((tables.rows[0] as { present?: boolean } | undefined)?.present !== true) return false;
  const { rows } = await executor.executeSql(
    `SELECT (SELECT max(version) FROM ${SCHEMA}.version) AS version, array(SELECT name FROM ${SCHEMA}.queue) AS queues`,
    [],
  );
  const found = rows[0] as { version: number | string | null; queues: string[] } | undefined;
  if (found === undefined || Number(found.version) !== SCHEMA_VERSION) return false;
  const queues = new Set(found.queues);
  return Object.values(queueOptions(DEFAULT_QUEUE_OPTIONS)).every((q) => queues.has(q.name));
}

/**
 * Whether a queue has a job due by `dueBy` (a one-shot command starts the engine only
 * then: a `check` that queued no alert does not load it).
 */
export async function hasDueJobs(
  executor: SqlExecutor,
  queue: QueueName,
  dueBy: Date,
): Promise<boolean> {
  const { rows } = await executor.executeSql(
    `SELECT EXISTS (SELECT 1 FROM ${SCHEMA}.job WHERE name = $1 AND state < 'active' AND start_after <= $2::timestamptz) AS due`,
    [queue, dueBy.toISOString()],
  );
  return (rows[0] as { due?: boolean } | undefined)?.due === true;
}
