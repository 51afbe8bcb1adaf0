import { JobEngine } from '../../src/store/jobs.js';
import type { SqlExecutor } from '../../src/store/db.js';

/**
 * A process's job engine on a test's database, as a one-shot command starts it (no
 * maintenance): five-minute leases, jobs kept a week. Stop it after the test.
 */
export function startTestEngine(executor: SqlExecutor): Promise<JobEngine> {
  return JobEngine.start(executor, {
    leaseSeconds: 300,
    retentionDays: 7,
    keepFinishedSeconds: 3_600,
    maintenanceSeconds: 60,
    onError: () => undefined,
    supervise: false,
  });
}
