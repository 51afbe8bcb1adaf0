import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { cronRuns, siteRuns } from './schema.js';
import type { LeasedRun, PlannedRun } from '../monitor/records.js';

const iso = (date: Date) => date.toISOString();

/**
 * Plans runs, idempotently: a (site, period) already planned keeps its place, so every
 * process may plan at start-up; only an earlier due time (a site never checked, due at
 * once) moves a run that is not yet taken. A run of an earlier period still undone is superseded:
 * the new period's check replaces it; one in flight (leased) finishes as its own.
 */
export async function planRuns(
  db: Database,
  runs: readonly PlannedRun[],
  now: Date,
): Promise<void> {
  for (let i = 0; i < runs.length; i += 2000) {
    const batch = runs.slice(i, i + 2000);
    const ids = sql.param(batch.map((r) => r.siteId));
    const starts = sql.param(batch.map((r) => iso(r.periodStart)));
    await db.execute(sql`
      UPDATE site_runs AS r SET done_at = ${iso(now)}::timestamptz, last_error = 'superseded by a later period',
        leased_by = NULL, lease_until = NULL
      FROM unnest(${ids}::integer[], ${starts}::timestamptz[]) AS n(site_id, period_start)
      WHERE r.site_id = n.site_id AND r.period_start < n.period_start AND r.done_at IS NULL
        AND (r.lease_until IS NULL OR r.lease_until < ${iso(now)}::timestamptz)`);
    await db.execute(sql`
      INSERT INTO site_runs (site_id, period_start, period_end, due_at)
      SELECT * FROM unnest(${ids}::integer[], ${starts}::timestamptz[],
        ${sql.param(batch.map((r) => iso(r.periodEnd)))}::timestamptz[],
        ${sql.param(batch.map((r) => iso(r.dueAt)))}::timestamptz[])
      ON CONFLICT (site_id, period_start) DO UPDATE SET due_at = EXCLUDED.due_at
      WHERE site_runs.done_at IS NULL AND site_runs.leased_by IS NULL
        AND EXCLUDED.due_at < site_runs.due_at`);
  }
}

/**
 * Leases up to `limit` runs due at `now`, skipping those another process holds
 * (SKIP LOCKED); a lease that expired (its process died) is taken over. A run whose
 * period is over waits to be superseded, and a site already being checked is not
 * leased again until that check ends: one check of a site at a time.
 */
export async function leaseRuns(
  db: Database,
  owner: string,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<LeasedRun[]> {
  const rows = await queryRows<{
    site_id: number;
    period_start: Date | string;
    period_end: Date | string;
    attempts: number;
  }>(
    db,
    sql`
      UPDATE site_runs SET leased_by = ${owner}, lease_until = ${iso(new Date(now.getTime() + leaseMs))}::timestamptz
      WHERE (site_id, period_start) IN (
        SELECT site_id, period_start FROM site_runs
        WHERE done_at IS NULL AND due_at <= ${iso(now)}::timestamptz
          AND period_end > ${iso(now)}::timestamptz
          AND (lease_until IS NULL OR lease_until < ${iso(now)}::timestamptz)
          AND NOT EXISTS (
            SELECT 1 FROM site_runs AS busy
            WHERE busy.site_id = site_runs.site_id AND busy.done_at IS NULL
              AND busy.lease_until >= ${iso(now)}::timestamptz)
        ORDER BY due_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING site_id, period_start, period_end, attempts`,
  );
  return rows.map((r) => ({
    siteId: r.site_id,
    periodStart: new Date(r.period_start),
    periodEnd: new Date(r.period_end),
    attempts: r.attempts,
  }));
}

const ours = (run: LeasedRun, owner: string) =>
  and(
    eq(siteRuns.siteId, run.siteId),
    eq(siteRuns.periodStart, run.periodStart),
    eq(siteRuns.leasedBy, owner),
  );

/** Marks a run done. */
export async function finishRun(
  db: Database,
  run: LeasedRun,
  owner: string,
  now: Date,
): Promise<void> {
  await db
    .update(siteRuns)
    .set({ doneAt: now, leasedBy: null, leaseUntil: null })
    .where(ours(run, owner));
}

/**
 * After an internal failure: due again at `dueAt`, later in the period; past the period's
 * end, given up (the next period checks the site again).
 */
export async function retryRun(
  db: Database,
  run: LeasedRun,
  owner: string,
  error: string,
  dueAt: Date,
): Promise<void> {
  const givenUp = dueAt.getTime() >= run.periodEnd.getTime();
  await db
    .update(siteRuns)
    .set({
      attempts: sql`${siteRuns.attempts} + 1`,
      lastError: error.slice(0, 500),
      leasedBy: null,
      leaseUntil: null,
      ...(givenUp ? { doneAt: dueAt } : { dueAt }),
    })
    .where(ours(run, owner));
}

/** Gives back the runs `owner` holds and has not finished (a clean shutdown). */
export async function releaseRuns(db: Database, owner: string): Promise<void> {
  await db
    .update(siteRuns)
    .set({ leasedBy: null, leaseUntil: null })
    .where(and(eq(siteRuns.leasedBy, owner), isNull(siteRuns.doneAt)));
}

/**
 * When a run may next be leased: the earliest due time, or lease expiry for one held,
 * among the runs whose period is not over; null when there is none.
 */
export async function nextDueAt(db: Database, now: Date): Promise<Date | null> {
  const [row] = await queryRows<{ due: Date | string | null }>(
    db,
    sql`SELECT min(GREATEST(due_at, COALESCE(lease_until, due_at))) AS due FROM site_runs
      WHERE done_at IS NULL AND period_end > ${iso(now)}::timestamptz`,
  );
  return row?.due ? new Date(row.due) : null;
}

/**
 * Extends every claim `owner` holds (runs, notifications, scheduled fires) to `leaseMs`
 * from now: a live process keeps its work, a dead one's expires and is taken over.
 */
export async function renewLeases(
  db: Database,
  owner: string,
  now: Date,
  leaseMs: number,
): Promise<void> {
  const until = iso(new Date(now.getTime() + leaseMs));
  await db.execute(sql`UPDATE site_runs SET lease_until = ${until}::timestamptz
    WHERE leased_by = ${owner} AND done_at IS NULL`);
  await db.execute(sql`UPDATE outbox SET lease_until = ${until}::timestamptz
    WHERE leased_by = ${owner} AND sent_at IS NULL`);
  await db.execute(sql`UPDATE cron_runs SET expires_at = ${until}::timestamptz
    WHERE claimed_by = ${owner} AND completed_at IS NULL AND last_error IS NULL`);
}

/**
 * node-cron's run coordinator: the first process to claim a fire runs it; a claim that
 * expired before it completed (its process died) may be taken over.
 */
export async function claimCronRun(
  db: Database,
  key: string,
  owner: string,
  now: Date,
  ttlMs: number,
): Promise<boolean> {
  const rows = await queryRows<{ key: string }>(
    db,
    sql`
      INSERT INTO cron_runs (key, claimed_by, claimed_at, expires_at)
      VALUES (${key}, ${owner}, ${iso(now)}::timestamptz, ${iso(new Date(now.getTime() + ttlMs))}::timestamptz)
      ON CONFLICT (key) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, claimed_at = EXCLUDED.claimed_at,
        expires_at = EXCLUDED.expires_at, last_error = NULL
      WHERE cron_runs.completed_at IS NULL AND cron_runs.expires_at < EXCLUDED.claimed_at
      RETURNING key`,
  );
  return rows.length === 1;
}

export async function completeCronRun(
  db: Database,
  key: string,
  owner: string,
  now: Date,
): Promise<void> {
  await db
    .update(cronRuns)
    .set({ completedAt: now })
    .where(and(eq(cronRuns.key, key), eq(cronRuns.claimedBy, owner)));
}

/**
 * A fire that failed: its claim expires at `retryAt`, when a process sweeping for
 * abandoned fires takes it up again.
 */
export async function failCronRun(
  db: Database,
  key: string,
  owner: string,
  error: string,
  retryAt: Date,
): Promise<void> {
  await db
    .update(cronRuns)
    .set({ lastError: error.slice(0, 500), expiresAt: retryAt })
    .where(and(eq(cronRuns.key, key), eq(cronRuns.claimedBy, owner), isNull(cronRuns.completedAt)));
}

/** Fires claimed but never completed whose claim expired: their process died or they failed. */
export async function abandonedCronRuns(db: Database, now: Date): Promise<string[]> {
  const rows = await db
    .select({ key: cronRuns.key })
    .from(cronRuns)
    .where(and(isNull(cronRuns.completedAt), lt(cronRuns.expiresAt, now)))
    .orderBy(cronRuns.claimedAt);
  return rows.map((r) => r.key);
}

/**
 * Whether the fire `name` at `fire` was missed while no process ran: it was never
 * claimed, though an earlier fire of the task was (so robowatch was in service then).
 */
export async function missedCronRun(db: Database, name: string, fire: Date): Promise<boolean> {
  const [row] = await queryRows<{ missed: boolean }>(
    db,
    sql`SELECT NOT EXISTS (SELECT 1 FROM cron_runs WHERE key = ${`${name}:${iso(fire)}`})
      AND EXISTS (SELECT 1 FROM cron_runs WHERE starts_with(key, ${`${name}:`})
        AND claimed_at < ${iso(fire)}::timestamptz) AS missed`,
  );
  return row?.missed === true;
}

/** When a check sweep (a planning fire of a check schedule) last completed, in any process. */
export async function lastSweepAt(db: Database): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`SELECT max(completed_at) AS at FROM cron_runs WHERE starts_with(key, 'plan ')`,
  );
  return row?.at ? new Date(row.at) : null;
}
