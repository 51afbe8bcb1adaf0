import { and, asc, desc, eq, gte, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { CoverageAt } from '../policy/digest.js';
import type { FetchErrorKind } from '../policy/fetch-result.js';
import type { Database } from './db.js';
import { queryRows } from './db.js';
import { insertDigestDelivery } from './outbox.js';
import { bodies, checks, digests, incidents, sites, snapshots } from './schema.js';
import { loadVerdicts } from './snapshots.js';
import type {
  DigestDelivery,
  DigestRecord,
  RecordedDigest,
  SitePeriod,
} from '../monitor/records.js';

/**
 * Records a digest and queues its delivery, in one transaction; returns its id, or null
 * if this recipient's digest of this period was recorded already (it is never sent twice).
 */
export async function recordDigest(
  db: Database,
  digest: RecordedDigest,
  delivery: DigestDelivery,
  now: Date,
): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(digests)
      .values({ ...digest, createdAt: now })
      .onConflictDoNothing({ target: [digests.recipient, digests.periodStart] })
      .returning({ id: digests.id });
    if (row === undefined) return null;
    await insertDigestDelivery(tx, row.id, delivery, now);
    return row.id;
  });
}

/** A recorded digest, or undefined when there is none with this id. */
export async function loadDigest(
  db: Database,
  id: number,
): Promise<(RecordedDigest & { id: number }) | undefined> {
  const [row] = await db.select().from(digests).where(eq(digests.id, id));
  return row;
}

/** Recorded digests, newest first (for the web UI). */
export async function listDigests(
  db: Database,
  limit = 100,
): Promise<(DigestRecord & { id: number })[]> {
  return db
    .select({
      id: digests.id,
      recipient: digests.recipient,
      periodStart: digests.periodStart,
      periodEnd: digests.periodEnd,
      subject: digests.subject,
      text: digests.text,
      html: digests.html,
    })
    .from(digests)
    .orderBy(desc(digests.id))
    .limit(limit);
}

/**
 * Each site's period: its new states with their causes (and how many events each had),
 * every check, and its current verdicts, file and state.
 */
export async function loadSitePeriods(
  db: Database,
  siteIds: readonly number[],
  start: Date,
  end: Date,
): Promise<Map<number, SitePeriod>> {
  const result = new Map<number, SitePeriod>();
  if (siteIds.length === 0) return result;
  const ids = [...siteIds];
  const changed = await db
    .select({
      siteId: snapshots.siteId,
      snapshotId: snapshots.id,
      previousId: snapshots.previousId,
      at: snapshots.firstSeenAt,
      causes: snapshots.causes,
      events: sql<number>`COALESCE(json_array_length(${snapshots.events}), 0)`,
    })
    .from(snapshots)
    .where(
      and(
        inArray(snapshots.siteId, ids),
        isNotNull(snapshots.previousId),
        eq(snapshots.source, 'live'),
        gte(snapshots.firstSeenAt, start),
        lt(snapshots.firstSeenAt, end),
      ),
    )
    .orderBy(asc(snapshots.id));
  const seen = await db
    .select({
      siteId: snapshots.siteId,
      at: checks.checkedAt,
      status: snapshots.status,
      error: snapshots.error,
      stale: snapshots.stale,
      fileCondition: snapshots.fileCondition,
    })
    .from(checks)
    .innerJoin(snapshots, eq(snapshots.id, checks.snapshotId))
    .where(
      and(inArray(snapshots.siteId, ids), gte(checks.checkedAt, start), lt(checks.checkedAt, end)),
    )
    .orderBy(asc(checks.checkedAt));
  const lastGood = alias(snapshots, 'last_good');
  const current = await db
    .select({
      siteId: sites.id,
      snapshotId: sites.currentSnapshotId,
      status: snapshots.status,
      error: snapshots.error,
      stale: snapshots.stale,
      since: snapshots.firstSeenAt,
      condition: lastGood.fileCondition,
      body: bodies.content,
      refusedSince: sites.refusedSince,
      refusedReason: sites.refusedReason,
      intentState: sites.intentState,
      intentSince: sites.intentSince,
      intentReport: sites.intentReport,
    })
    .from(sites)
    .leftJoin(snapshots, eq(snapshots.id, sites.currentSnapshotId))
    .leftJoin(lastGood, eq(lastGood.id, snapshots.lastGoodId))
    .leftJoin(bodies, eq(bodies.sha256, lastGood.bodySha256))
    .where(inArray(sites.id, ids));
  const [coverageStart, coverageEnd] = await Promise.all([
    coverageBefore(db, ids, start),
    coverageBefore(db, ids, end),
  ]);
  // What broke and recovered: incidents resolved in the period that stayed resolved.
  const recovered = await db
    .select()
    .from(incidents)
    .where(
      and(
        inArray(incidents.siteId, ids),
        eq(incidents.state, 'resolved'),
        gte(incidents.resolvedAt, start),
        lt(incidents.resolvedAt, end),
      ),
    )
    .orderBy(asc(incidents.resolvedAt));
  for (const row of current) {
    result.set(row.siteId, {
      coverage: {
        start: coverageStart.get(row.siteId) ?? null,
        end: coverageEnd.get(row.siteId) ?? null,
      },
      changes: [],
      checks: [],
      refused:
        row.refusedSince === null
          ? null
          : { since: row.refusedSince, reason: row.refusedReason ?? '' },
      verdicts: row.snapshotId === null ? [] : await loadVerdicts(db, row.snapshotId),
      intent:
        row.intentState === null
          ? null
          : {
              state: row.intentState,
              since: row.intentSince,
              violations: row.intentReport?.violations ?? [],
              violationCount: row.intentReport?.violationCount ?? 0,
              reason: row.intentReport?.reason ?? null,
              ...(row.intentReport?.grid === undefined ? {} : { grid: row.intentReport.grid }),
            },
      recovered: [],
      body: row.body,
      now:
        row.snapshotId === null || row.since === null
          ? null
          : {
              fetch: { status: row.status, error: row.error as FetchErrorKind | null },
              stale: row.stale ?? false,
              since: row.since,
              fileCondition: row.condition,
            },
    });
  }
  for (const r of recovered)
    result.get(r.siteId)?.recovered.push({
      id: r.id,
      openedAt: r.openedAt,
      resolvedAt: r.resolvedAt!,
      siteState: r.siteState,
      causes: r.causes,
      worstCount: r.worstCount,
    });
  for (const c of changed)
    result.get(c.siteId)?.changes.push({
      at: c.at,
      snapshotId: c.snapshotId,
      previousId: c.previousId,
      causes: c.causes,
      events: Number(c.events),
    });
  for (const c of seen) {
    result.get(c.siteId)?.checks.push({
      at: c.at,
      fetch: { status: c.status, error: c.error as FetchErrorKind | null },
      stale: c.stale,
      fileCondition: c.fileCondition,
    });
  }
  return result;
}

/**
 * Per site, the coverage of its newest snapshot first seen before `bound` that has one
 * (its newest computation): the set's size and each crawler's allowed URLs.
 */
async function coverageBefore(
  db: Database,
  siteIds: readonly number[],
  bound: Date,
): Promise<Map<number, CoverageAt>> {
  const rows = await queryRows<{
    site_id: number;
    urls: number;
    allowed: Record<string, number> | string | null;
  }>(
    db,
    sql`SELECT DISTINCT ON (s.site_id) s.site_id, (c.data->>'urls')::int AS urls,
        (SELECT jsonb_object_agg(a->>'agent', (a->>'allowed')::int)
           FROM jsonb_array_elements(c.data->'agents') a) AS allowed
      FROM coverage c JOIN snapshots s ON s.id = c.snapshot_id
      WHERE s.site_id IN (${sql.join(
        siteIds.map((id) => sql`${id}`),
        sql`, `,
      )}) AND s.first_seen_at < ${bound.toISOString()}::timestamptz
      ORDER BY s.site_id, s.id DESC, c.url_set_id DESC, c.computed_at DESC`,
  );
  return new Map(
    rows.map((r) => [
      Number(r.site_id),
      {
        urls: Number(r.urls),
        allowed:
          typeof r.allowed === 'string'
            ? (JSON.parse(r.allowed) as Record<string, number>)
            : (r.allowed ?? {}),
      },
    ]),
  );
}

/** The end of the latest digest period recorded; null before the first digest. */
export async function lastDigestEnd(db: Database): Promise<Date | null> {
  const [row] = await db
    .select({ end: sql<string | null>`max(${digests.periodEnd})` })
    .from(digests);
  return row?.end ? new Date(row.end) : null;
}
