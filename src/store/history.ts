import { and, count, desc, eq, lt, max, min } from 'drizzle-orm';
import type { FetchErrorKind, RedirectHop } from '../policy/fetch-result.js';
import type { Database } from './db.js';
import { bodies, checks, snapshots } from './schema.js';

/** A snapshot as history shows it: when it was seen, how often, what it was. */
export interface SnapshotSummary {
  readonly id: number;
  readonly previousId: number | null;
  readonly firstSeen: Date;
  /** The last check that saw this state. */
  readonly lastSeen: Date;
  readonly checks: number;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly errorDetail: string | null;
  readonly sha256: string | null;
  readonly size: number | null;
  readonly truncated: boolean;
  readonly stale: boolean;
  readonly lastGoodId: number | null;
  readonly redirects: readonly RedirectHop[];
  readonly finalUrl: string;
}

const summaryColumns = {
  id: snapshots.id,
  previousId: snapshots.previousId,
  firstSeen: snapshots.firstSeenAt,
  status: snapshots.status,
  error: snapshots.error,
  errorDetail: snapshots.errorDetail,
  sha256: snapshots.bodySha256,
  size: bodies.size,
  truncated: snapshots.truncated,
  stale: snapshots.stale,
  lastGoodId: snapshots.lastGoodId,
  redirects: snapshots.redirects,
  finalUrl: snapshots.finalUrl,
  lastSeen: max(checks.checkedAt),
  firstCheck: min(checks.checkedAt),
  checks: count(checks.id),
};

type SummaryRow = { [K in keyof typeof summaryColumns]: unknown };

function toSummary(row: SummaryRow): SnapshotSummary {
  const r = row as {
    id: number;
    previousId: number | null;
    firstSeen: Date;
    status: number | null;
    error: string | null;
    errorDetail: string | null;
    sha256: string | null;
    size: number | null;
    truncated: boolean;
    stale: boolean;
    lastGoodId: number | null;
    redirects: RedirectHop[];
    finalUrl: string;
    lastSeen: Date | string | null;
    checks: number;
  };
  // max() over timestamps comes back as a string from some drivers.
  const lastSeen = r.lastSeen === null ? r.firstSeen : new Date(r.lastSeen);
  return { ...r, error: r.error as FetchErrorKind | null, lastSeen, checks: Number(r.checks) };
}

/** A site's snapshots, newest first, with the checks that saw each. */
export async function listSnapshots(
  db: Database,
  siteId: number,
  limit = 1000,
): Promise<SnapshotSummary[]> {
  const rows = await db
    .select(summaryColumns)
    .from(snapshots)
    .leftJoin(checks, eq(checks.snapshotId, snapshots.id))
    .leftJoin(bodies, eq(bodies.sha256, snapshots.bodySha256))
    .where(eq(snapshots.siteId, siteId))
    .groupBy(snapshots.id, bodies.size)
    .orderBy(desc(snapshots.id))
    .limit(limit);
  return rows.map(toSummary);
}

/** One snapshot of a site, or undefined if the id is not one of the site's. */
export async function getSnapshot(
  db: Database,
  siteId: number,
  id: number,
): Promise<SnapshotSummary | undefined> {
  const [row] = await db
    .select(summaryColumns)
    .from(snapshots)
    .leftJoin(checks, eq(checks.snapshotId, snapshots.id))
    .leftJoin(bodies, eq(bodies.sha256, snapshots.bodySha256))
    .where(and(eq(snapshots.siteId, siteId), eq(snapshots.id, id)))
    .groupBy(snapshots.id, bodies.size);
  return row === undefined ? undefined : toSummary(row);
}

/** The snapshot before `id` of the same site, if any. */
export async function previousSnapshotId(
  db: Database,
  siteId: number,
  id: number,
): Promise<number | undefined> {
  const [row] = await db
    .select({ id: snapshots.id })
    .from(snapshots)
    .where(and(eq(snapshots.siteId, siteId), lt(snapshots.id, id)))
    .orderBy(desc(snapshots.id))
    .limit(1);
  return row?.id;
}
