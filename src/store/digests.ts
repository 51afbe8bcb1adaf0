import { and, asc, desc, eq, gte, inArray, lt } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { FetchErrorKind } from '../policy/fetch-result.js';
import type { Database } from './db.js';
import { insertDigestEmail } from './outbox.js';
import { bodies, changeEvents, checks, digests, sites, snapshots } from './schema.js';
import { loadVerdicts } from './snapshots.js';
import type { DigestRecord, SitePeriod } from '../monitor/records.js';

/**
 * Records a digest and queues its email, in one transaction; returns its id, or null if
 * this recipient's digest of this period was recorded already (it is never sent twice).
 */
export async function recordDigest(
  db: Database,
  digest: DigestRecord,
  now: Date,
): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(digests)
      .values({ ...digest, createdAt: now })
      .onConflictDoNothing({ target: [digests.recipient, digests.periodStart] })
      .returning({ id: digests.id });
    if (row === undefined) return null;
    await insertDigestEmail(tx, row.id, digest.recipient, now);
    return row.id;
  });
}

/** A recorded digest, or undefined when there is none with this id. */
export async function loadDigest(db: Database, id: number): Promise<DigestRecord | undefined> {
  const [row] = await db.select().from(digests).where(eq(digests.id, id));
  return row;
}

/** Recorded digests, newest first (for the web UI). */
export async function listDigests(
  db: Database,
  limit = 100,
): Promise<(DigestRecord & { id: number })[]> {
  return db.select().from(digests).orderBy(desc(digests.id)).limit(limit);
}

/** The period's events and checks, and the current verdicts and file, of each site by id. */
export async function loadSitePeriods(
  db: Database,
  siteIds: readonly number[],
  start: Date,
  end: Date,
): Promise<Map<number, SitePeriod>> {
  const result = new Map<number, SitePeriod>();
  if (siteIds.length === 0) return result;
  const ids = [...siteIds];
  const events = await db
    .select({ siteId: changeEvents.siteId, at: changeEvents.createdAt, event: changeEvents.event })
    .from(changeEvents)
    .where(
      and(
        inArray(changeEvents.siteId, ids),
        gte(changeEvents.createdAt, start),
        lt(changeEvents.createdAt, end),
      ),
    )
    .orderBy(asc(changeEvents.id));
  const seen = await db
    .select({
      siteId: snapshots.siteId,
      at: checks.checkedAt,
      status: snapshots.status,
      error: snapshots.error,
      stale: snapshots.stale,
    })
    .from(checks)
    .innerJoin(snapshots, eq(snapshots.id, checks.snapshotId))
    .where(
      and(inArray(snapshots.siteId, ids), gte(checks.checkedAt, start), lt(checks.checkedAt, end)),
    )
    .orderBy(asc(checks.checkedAt));
  const lastGood = alias(snapshots, 'last_good');
  const current = await db
    .select({ siteId: sites.id, snapshotId: sites.currentSnapshotId, body: bodies.content })
    .from(sites)
    .leftJoin(snapshots, eq(snapshots.id, sites.currentSnapshotId))
    .leftJoin(lastGood, eq(lastGood.id, snapshots.lastGoodId))
    .leftJoin(bodies, eq(bodies.sha256, lastGood.bodySha256))
    .where(inArray(sites.id, ids));
  for (const row of current) {
    result.set(row.siteId, {
      events: [],
      checks: [],
      verdicts: row.snapshotId === null ? [] : await loadVerdicts(db, row.snapshotId),
      body: row.body,
    });
  }
  for (const e of events) result.get(e.siteId)?.events.push({ at: e.at, event: e.event });
  for (const c of seen) {
    result.get(c.siteId)?.checks.push({
      at: c.at,
      fetch: { status: c.status, error: c.error as FetchErrorKind | null },
      stale: c.stale,
    });
  }
  return result;
}
