/**
 * Upkeep for the whole fleet, done by one process as a job (pg-boss does its own
 * maintenance that way): pruning the notifications sent before the retention, and the
 * database's statistics and dead rows where the server keeps none (the embedded database,
 * or a PostgreSQL with autovacuum off), and reminders of
 * incidents nobody has acknowledged (notify.remind). Each is named by
 * its time: queued by every process's upkeep, done once.
 */
import { jobId } from '../../lib/job-id.js';
import type { Job, NewJob } from '../../monitor/ports.js';
import type { DaemonContext, JobKind } from '../job-kind.js';
import { remindIncidents } from '../../monitor/delivery/reminders.js';

export interface UpkeepJob {
  readonly task: 'prune' | 'analyze' | 'vacuum' | 'remind';
  /** When it was due: what names it. */
  readonly at: string;
}

/** An upkeep task due at `at`, queued once across processes. */
export function upkeepJob(task: UpkeepJob['task'], at: Date): NewJob<UpkeepJob> {
  return { id: jobId(`upkeep:${task}:${at.toISOString()}`), data: { task, at: at.toISOString() } };
}

export function upkeepJobKind(context: DaemonContext): JobKind<UpkeepJob> {
  const { deps, events } = context;
  return {
    queue: 'upkeep',
    concurrency: 1,
    describe: (job) => `upkeep (${job.data.task})`,
    async handle(job: Job<UpkeepJob>) {
      const { task } = job.data;
      if (task === 'prune') {
        const now = deps.now();
        // Sent notifications are the alert log: kept notify.alertLogDays (as last reloaded).
        const running = deps.catalog.config;
        const before = new Date(now.getTime() - running.notify.alertLogDays * 86_400_000);
        const pruned = await deps.store.pruneDeliveries(before);
        // The audit log: schedule.auditDays, never less than schedule.retentionDays (a
        // reload keeps the start's, which the job engine uses).
        const { auditDays, retentionDays } = running.schedule;
        await deps.store.pruneAudit?.(
          new Date(now.getTime() - Math.max(auditDays, retentionDays) * 86_400_000),
          new Date(now.getTime() - 86_400_000),
        );
        events.emit('upkeep:done', { task, pruned, before });
        return;
      }
      if (task === 'remind') {
        const { catalog } = deps;
        const reminded = await remindIncidents(
          { remindIncidents: deps.store.remindIncidents },
          catalog.config,
          (id) => catalog.get(id)?.site,
          deps.now(),
        );
        events.emit('upkeep:done', { task, reminded, at: new Date(job.data.at) });
        if (reminded > 0) context.wake('deliver');
        return;
      }
      if (deps.store.maintainDatabase === undefined) return;
      const started = Date.now();
      const database = await deps.store.maintainDatabase(task === 'vacuum');
      if (database !== null)
        events.emit('upkeep:done', { task, database, tookMs: Date.now() - started });
    },
  };
}
