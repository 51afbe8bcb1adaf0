import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from './db.js';
import { checks, snapshots, verdicts } from './schema.js';
import type { CheckSeen, VerdictAt } from '../monitor/records.js';

/**
 * The verdicts of one watched URL for one agent across a site's snapshots, oldest
 * first. Snapshots from before the URL or agent was watched have none.
 */
export async function loadVerdictHistory(
  db: Database,
  siteId: number,
  url: string,
  agent: string,
): Promise<VerdictAt[]> {
  return db
    .select({
      snapshotId: snapshots.id,
      firstSeen: snapshots.firstSeenAt,
      allowed: verdicts.allowed,
      cause: verdicts.cause,
      profile: verdicts.profile,
    })
    .from(snapshots)
    .innerJoin(
      verdicts,
      and(eq(verdicts.snapshotId, snapshots.id), eq(verdicts.url, url), eq(verdicts.agent, agent)),
    )
    .where(eq(snapshots.siteId, siteId))
    .orderBy(asc(snapshots.id));
}

/** The checks that saw a snapshot, newest first: when, how long, any blip. */
export async function listChecks(
  db: Database,
  snapshotId: number,
  limit: number,
): Promise<CheckSeen[]> {
  return db
    .select({
      checkedAt: checks.checkedAt,
      durationMs: checks.durationMs,
      transient: checks.transient,
    })
    .from(checks)
    .where(eq(checks.snapshotId, snapshotId))
    .orderBy(desc(checks.checkedAt))
    .limit(limit);
}
