import { and, asc, desc, eq } from 'drizzle-orm';
import type { Cause } from '../policy/verdicts.js';
import type { Database } from './db.js';
import { checks, snapshots, verdicts } from './schema.js';

/** One (watch, agent)'s verdict in one snapshot of a site. */
export interface VerdictAt {
  readonly snapshotId: number;
  readonly firstSeen: Date;
  readonly allowed: boolean;
  readonly cause: Cause | null;
  readonly profile: string;
}

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
): Promise<{ checkedAt: Date; durationMs: number; transient: string | null }[]> {
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
