/**
 * Job rows written and read without a started engine: delivery jobs queued in the
 * transaction that records their notification, and the checks planned for sites. pg-boss
 * is loaded only when a job is written (a check that queues no alert never loads it).
 */
import { sql } from 'drizzle-orm';
import type PgBoss from 'pg-boss';
import { executorOf, queryRows } from './db.js';
import type { Database } from './db.js';
import { SCHEMA } from './job-schema.js';
import type { NewJob, QueueName } from '../monitor/ports.js';

/** The queues jobs are written to inside a transaction, without a started engine. */
let writer: Promise<PgBoss> | undefined;
const jobWriter = () =>
  (writer ??= import('pg-boss').then(
    ({ default: Boss }) =>
      new Boss({
        db: {
          executeSql: () => Promise.reject(new Error('the job writer runs only in a transaction')),
        },
        schema: SCHEMA,
      }),
  ));

export function toBoss(queue: QueueName, job: NewJob<unknown>): PgBoss.JobInsert {
  return {
    name: queue,
    id: job.id,
    data: job.data as object,
    ...(job.startAfter === undefined ? {} : { startAfter: job.startAfter }),
    ...(job.singletonKey === undefined ? {} : { singletonKey: job.singletonKey }),
  };
}

/**
 * Queues jobs in the caller's transaction (a notification with the snapshot that caused
 * it). The engine's tables must exist: only a process that started the engine does this.
 */
export async function sendInTransaction(
  tx: Pick<Database, 'execute'>,
  queue: QueueName,
  jobs: readonly NewJob<unknown>[],
): Promise<void> {
  if (jobs.length === 0) return;
  await (
    await jobWriter()
  ).insert(
    jobs.map((j) => toBoss(queue, j)),
    { db: executorOf(tx) },
  );
}

/**
 * When each of these sites' next check is queued for (its waiting check job); empty
 * before the engine ever ran on this database.
 */
export async function plannedChecks(
  db: Database,
  siteIds: readonly number[],
): Promise<Map<number, Date>> {
  const [installed] = await queryRows<{ ok: boolean }>(
    db,
    sql`SELECT to_regclass(${`${SCHEMA}.job`}) IS NOT NULL AS ok`,
  );
  if (installed?.ok !== true || siteIds.length === 0) return new Map();
  const rows = await queryRows<{ site: string; at: string | Date }>(
    db,
    sql`SELECT singleton_key AS site, min(start_after) AS at
      FROM ${sql.raw(SCHEMA)}.job
      WHERE name = 'check' AND state < 'active'
        AND singleton_key = ANY(${sql.param(siteIds.map(String))}::text[])
      GROUP BY 1`,
  );
  return new Map(rows.map((r) => [Number(r.site), new Date(r.at)]));
}
