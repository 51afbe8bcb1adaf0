/**
 * The recorded history read out for export, a page at a time (keyset pagination), so that
 * ten million rows cost the memory of one page.
 */
import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { decodeVerdicts } from '../policy/verdict-sets.js';
import type { VerdictCause } from '../policy/verdicts.js';
import type { ChangeCause } from '../policy/changes/cause-model.js';
import type {
  CauseExportRow,
  CheckExportRow,
  SnapshotRow,
  TrendRow,
  VerdictExportRow,
} from '../monitor/records-export.js';

/** Rows per query. */
const PAGE = 2_000;

/** A query's rows a page at a time, each page after the last one's key (keyset paging). */
async function* pages<R, K>(
  query: (after: K) => Promise<R[]>,
  next: (page: R[]) => K,
  first: K,
  size: number,
): AsyncGenerator<R[]> {
  let after = first;
  for (;;) {
    const page = await query(after);
    yield page;
    if (page.length < size) return;
    after = next(page);
  }
}

/** `column >= since`, or true without --since. */
function sinceOf(column: SQL, filter: ExportFilter): SQL {
  return filter.since === null
    ? sql`true`
    : sql`${column} >= ${filter.since.toISOString()}::timestamptz`;
}

export interface ExportFilter {
  /** Only what was seen from this instant on. */
  readonly since: Date | null;
}

export async function* snapshotRows(
  db: Database,
  filter: ExportFilter,
): AsyncGenerator<SnapshotRow> {
  for await (const rows of pages(
    (after: number) =>
      queryRows<{
        id: string | number;
        origin: string;
        previous_id: string | number | null;
        first_seen_at: Date | string;
        last_checked_at: Date | string | null;
        check_count: number;
        status: number | null;
        error: string | null;
        body_sha256: string | null;
        size: number | null;
        truncated: boolean;
        stale: boolean;
        final_url: string;
        file_condition: string | null;
        source: string;
        original_url: string | null;
        registry_sha256: string | null;
      }>(
        db,
        sql`SELECT s.id, site.origin, s.previous_id, s.first_seen_at, s.last_checked_at, s.check_count,
            s.status, s.error, s.body_sha256, b.size, s.truncated, s.stale, s.final_url,
            s.file_condition, s.source, s.original_url, v.registry_sha256
          FROM snapshots s JOIN sites site ON site.id = s.site_id
            LEFT JOIN bodies b ON b.sha256 = s.body_sha256
            LEFT JOIN verdict_sets v ON v.snapshot_id = s.id
          WHERE s.id > ${after}
            AND ${sinceOf(sql.raw(`COALESCE(s.last_checked_at, s.first_seen_at)`), filter)}
          ORDER BY s.id LIMIT ${PAGE}`,
      ),
    (page) => Number(page[page.length - 1]!.id),
    0,
    PAGE,
  )) {
    for (const r of rows) {
      const firstSeen = new Date(r.first_seen_at);
      yield {
        site: r.origin,
        snapshotId: Number(r.id),
        previousId: r.previous_id === null ? null : Number(r.previous_id),
        firstSeen,
        lastSeen: r.last_checked_at === null ? firstSeen : new Date(r.last_checked_at),
        checks: Number(r.check_count),
        status: r.status,
        error: r.error,
        sha256: r.body_sha256,
        size: r.size,
        truncated: r.truncated,
        stale: r.stale,
        finalUrl: r.final_url,
        fileCondition: r.file_condition,
        source: r.source,
        originalUrl: r.original_url,
        registrySha256: r.registry_sha256,
      };
    }
  }
}

export async function* checkRows(
  db: Database,
  filter: ExportFilter,
): AsyncGenerator<CheckExportRow> {
  for await (const rows of pages(
    (after: number) =>
      queryRows<{
        id: string | number;
        origin: string;
        snapshot_id: string | number;
        checked_at: Date | string;
        duration_ms: number;
        transient: string | null;
      }>(
        db,
        sql`SELECT c.id, site.origin, c.snapshot_id, c.checked_at, c.duration_ms, c.transient
          FROM checks c JOIN snapshots s ON s.id = c.snapshot_id JOIN sites site ON site.id = s.site_id
          WHERE c.id > ${after}
            AND ${sinceOf(sql.raw(`c.checked_at`), filter)}
          ORDER BY c.id LIMIT ${PAGE}`,
      ),
    (page) => Number(page[page.length - 1]!.id),
    0,
    PAGE,
  )) {
    for (const r of rows)
      yield {
        site: r.origin,
        snapshotId: Number(r.snapshot_id),
        checkedAt: new Date(r.checked_at),
        durationMs: r.duration_ms,
        transient: r.transient,
      };
  }
}

/** Each snapshot's verdicts, one row per (URL, crawler), snapshots in order. */
export async function* verdictRows(
  db: Database,
  filter: ExportFilter,
): AsyncGenerator<VerdictExportRow> {
  // Verdict sets are about 2 KB each: a page of them is a few MB.
  const page = 500;
  for await (const rows of pages(
    (after: number) =>
      queryRows<{
        snapshot_id: string | number;
        origin: string;
        first_seen_at: Date | string;
        urls: string[];
        agents: string[];
        profiles: string[];
        causes: VerdictCause[];
        cells: number[];
        registry_sha256: string | null;
        source: string;
      }>(
        db,
        sql`SELECT v.snapshot_id, site.origin, s.first_seen_at, v.urls, v.agents, v.profiles,
            v.causes, v.cells, v.registry_sha256, s.source
          FROM verdict_sets v JOIN snapshots s ON s.id = v.snapshot_id
            JOIN sites site ON site.id = s.site_id
          WHERE v.snapshot_id > ${after}
            AND ${sinceOf(sql.raw(`COALESCE(s.last_checked_at, s.first_seen_at)`), filter)}
          ORDER BY v.snapshot_id LIMIT ${page}`,
      ),
    (page) => Number(page[page.length - 1]!.snapshot_id),
    0,
    page,
  )) {
    for (const r of rows) {
      const firstSeen = new Date(r.first_seen_at);
      for (const v of decodeVerdicts({
        urls: r.urls,
        agents: r.agents,
        profiles: r.profiles,
        causes: r.causes,
        cells: r.cells,
      }))
        yield {
          site: r.origin,
          snapshotId: Number(r.snapshot_id),
          firstSeen,
          url: v.url,
          agent: v.agent,
          profile: v.profile,
          allowed: v.allowed,
          cause: v.cause,
          source: r.source,
          registrySha256: r.registry_sha256,
        };
    }
  }
}

/** The causes recorded with each new state, in order. */
export async function* causeRows(
  db: Database,
  filter: ExportFilter,
): AsyncGenerator<CauseExportRow> {
  for await (const rows of pages(
    (after: number) =>
      queryRows<{
        id: string | number;
        origin: string;
        previous_id: string | number | null;
        first_seen_at: Date | string;
        causes: ChangeCause[];
        source: string;
      }>(
        db,
        sql`SELECT s.id, site.origin, s.previous_id, s.first_seen_at, s.causes, s.source
          FROM snapshots s JOIN sites site ON site.id = s.site_id
          WHERE s.id > ${after} AND s.causes IS NOT NULL AND jsonb_array_length(s.causes) > 0
            AND ${sinceOf(sql.raw(`s.first_seen_at`), filter)}
          ORDER BY s.id LIMIT ${PAGE}`,
      ),
    (page) => Number(page[page.length - 1]!.id),
    0,
    PAGE,
  )) {
    for (const r of rows)
      for (const cause of r.causes)
        yield {
          site: r.origin,
          snapshotId: Number(r.id),
          previousId: r.previous_id === null ? null : Number(r.previous_id),
          at: new Date(r.first_seen_at),
          cause,
          source: r.source,
        };
  }
}

/** Every stored body, by hash, with its bytes. */
export async function* bodyRows(
  db: Database,
): AsyncGenerator<{ sha256: string; size: number; content: Uint8Array }> {
  const page = 200;
  for await (const rows of pages(
    (after: string) =>
      queryRows<{ sha256: string; size: number; content: Uint8Array }>(
        db,
        sql`SELECT sha256, size, content FROM bodies WHERE sha256 > ${after} ORDER BY sha256 LIMIT ${page}`,
      ),
    (page) => page[page.length - 1]!.sha256,
    '',
    page,
  )) {
    for (const r of rows)
      yield { sha256: r.sha256, size: r.size, content: new Uint8Array(r.content) };
  }
}

/** The first state of any watched site (where trends begin); null when there is none. */
export async function trendStart(db: Database): Promise<Date | null> {
  const [row] = await queryRows<{ at: Date | string | null }>(
    db,
    sql`SELECT min(s.first_seen_at) AS at FROM snapshots s JOIN sites site ON site.id = s.site_id
      WHERE site.removed_at IS NULL`,
  );
  return row?.at ? new Date(row.at) : null;
}

/** Sites per page of trendSites. */
const TREND_SITES_PAGE = 1_000;

/**
 * Each watched site's states with their verdict counts (trends), oldest first (the
 * archived ones before the live ones), a site at a time, read a page of sites at a time;
 * the next page is read while the caller works through this one.
 */
export async function* trendSites(db: Database): AsyncGenerator<TrendRow[]> {
  const page = async (after: number) => {
    const sites = await queryRows<{ id: number; origin: string }>(
      db,
      sql`SELECT id, origin FROM sites WHERE id > ${after} AND removed_at IS NULL
        ORDER BY id LIMIT ${TREND_SITES_PAGE}`,
    );
    const rows =
      sites.length === 0
        ? []
        : await queryRows<{
            site_id: number;
            first_seen_at: Date | string;
            status: number | null;
            error: string | null;
            stale: boolean;
            counts: string | null;
          }>(
            db,
            sql`SELECT s.site_id, s.first_seen_at, s.status, s.error, s.stale, v.counts::text AS counts
              FROM snapshots s LEFT JOIN verdict_sets v ON v.snapshot_id = s.id
              WHERE s.site_id BETWEEN ${sites[0]!.id} AND ${sites[sites.length - 1]!.id}
              ORDER BY s.site_id, s.source = 'live', s.id`,
          );
    return { sites, rows };
  };
  // Sites watched alike mostly block alike: their counts are read as text and parsed once
  // (the same object then, which viewTrends also reads once).
  const parsed = new Map<string, TrendRow['counts']>();
  const countsOf = (text: string | null): TrendRow['counts'] => {
    if (text === null) return [];
    let counts = parsed.get(text);
    if (counts === undefined) {
      if (parsed.size >= 50_000) parsed.clear();
      parsed.set(text, (counts = JSON.parse(text) as TrendRow['counts']));
    }
    return counts;
  };
  let next = page(0);
  for (;;) {
    const { sites, rows } = await next;
    if (sites.length === TREND_SITES_PAGE) {
      next = page(sites[sites.length - 1]!.id);
      // Awaited below; a caller that stops early leaves it failing unheard, not unhandled.
      next.catch(() => undefined);
    }
    const origins = new Map(sites.map((r) => [r.id, r.origin]));
    let site: TrendRow[] = [];
    let current = -1;
    for (const r of rows) {
      // The page's id range (an index range scan) holds removed sites too: skipped.
      if (!origins.has(r.site_id)) continue;
      if (r.site_id !== current && site.length > 0) {
        yield site;
        site = [];
      }
      current = r.site_id;
      site.push({
        origin: origins.get(r.site_id)!,
        at: new Date(r.first_seen_at),
        status: r.status,
        error: r.error,
        stale: r.stale,
        counts: countsOf(r.counts),
      });
    }
    if (site.length > 0) yield site;
    if (sites.length < TREND_SITES_PAGE) return;
  }
}

/**
 * The sites added in the UI or API and not removed, with the profile and rank their
 * settings name (null: none), without resolving their settings.
 */
export async function managedSiteFacts(
  db: Database,
): Promise<{ origin: string; profile: string | null; rank: number | null }[]> {
  return queryRows<{ origin: string; profile: string | null; rank: number | null }>(
    db,
    sql`SELECT origin, settings->>'profile' AS profile, (settings->>'rank')::int AS rank
      FROM sites WHERE settings IS NOT NULL AND removed_at IS NULL`,
  );
}
