/**
 * URL sets, sitemap files and coverage. Lists of URLs are stored once by the SHA-256 of
 * their text, gzipped; a site's URL set gets a new row only when its content changes
 * (a refresh that finds the same set updates last_seen_at); coverage is one JSON document
 * per (snapshot, URL set, crawlers).
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Coverage } from '../policy/coverage.js';
import type { SitemapFormat } from '../policy/sitemap-reader.js';
import type {
  KnownSitemap,
  SitemapFileRecord,
  StoredCoverage,
  StoredUrlSet,
  UrlSetReport,
} from '../monitor/records.js';
import { queryRows } from './db.js';
import type { Database } from './db.js';
import { coverage, sitemapFiles, urlLists, urlSets } from './schema.js';

const listText = (lines: readonly string[]) => lines.join('\n');
const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');
const linesOf = (data: Uint8Array): string[] => {
  const text = gunzipSync(data).toString('utf8');
  return text === '' ? [] : text.split('\n');
};

/** Stores a list once (by the hash of its text); returns the hash. */
async function saveList(db: Database, lines: readonly string[]): Promise<string> {
  const text = listText(lines);
  const sha256 = sha256Of(text);
  await db
    .insert(urlLists)
    .values({ sha256, count: lines.length, data: gzipSync(text) })
    .onConflictDoNothing();
  return sha256;
}

async function loadList(db: Database, sha256: string): Promise<string[]> {
  const [row] = await db
    .select({ data: urlLists.data })
    .from(urlLists)
    .where(eq(urlLists.sha256, sha256));
  return row === undefined ? [] : linesOf(row.data);
}

/** A site's sitemap files as last read, by URL. */
export async function loadKnownSitemaps(
  db: Database,
  siteId: number,
): Promise<Map<string, KnownSitemap>> {
  const rows = await db
    .select({
      url: sitemapFiles.url,
      etag: sitemapFiles.etag,
      lastModified: sitemapFiles.lastModified,
      format: sitemapFiles.format,
      data: urlLists.data,
    })
    .from(sitemapFiles)
    .innerJoin(urlLists, eq(urlLists.sha256, sitemapFiles.listSha256))
    .where(eq(sitemapFiles.siteId, siteId));
  return new Map(
    rows.map((r) => [
      r.url,
      {
        etag: r.etag,
        lastModified: r.lastModified,
        format: r.format as SitemapFormat,
        entries: linesOf(r.data),
      },
    ]),
  );
}

/** Remembers the sitemap files read whole (or unchanged) for the next conditional request. */
export async function saveSitemapFiles(
  db: Database,
  siteId: number,
  files: readonly SitemapFileRecord[],
  at: Date,
): Promise<void> {
  for (const file of files) {
    const listSha256 = await saveList(db, file.entries);
    const values = {
      etag: file.etag,
      lastModified: file.lastModified,
      format: file.format,
      listSha256,
      fetchedAt: at,
    };
    await db
      .insert(sitemapFiles)
      .values({ siteId, url: file.url, ...values })
      .onConflictDoUpdate({ target: [sitemapFiles.siteId, sitemapFiles.url], set: values });
  }
}

const setColumns = {
  id: urlSets.id,
  sha256: urlSets.listSha256,
  firstSeenAt: urlSets.firstSeenAt,
  lastSeenAt: urlSets.lastSeenAt,
  added: urlSets.added,
  removed: urlSets.removed,
  report: urlSets.report,
};

/**
 * Records a refresh of a site's URL set (`paths` sorted, each once): a new row when it
 * differs from the latest, else the latest seen again. Returns the set as stored.
 */
export async function recordUrlSet(
  db: Database,
  siteId: number,
  paths: readonly string[],
  report: UrlSetReport,
  at: Date,
): Promise<StoredUrlSet & { readonly changed: boolean }> {
  const sha256 = await saveList(db, paths);
  const [latest] = await db
    .select(setColumns)
    .from(urlSets)
    .where(eq(urlSets.siteId, siteId))
    .orderBy(desc(urlSets.id))
    .limit(1);
  if (latest !== undefined && latest.sha256 === sha256) {
    await db.update(urlSets).set({ lastSeenAt: at, report }).where(eq(urlSets.id, latest.id));
    return { ...latest, lastSeenAt: at, report, paths, changed: false };
  }
  let added = paths.length;
  let removed = 0;
  if (latest !== undefined) {
    const before = new Set(await loadList(db, latest.sha256));
    added = 0;
    for (const path of paths) if (!before.delete(path)) added++;
    removed = before.size;
  }
  const [row] = await db
    .insert(urlSets)
    .values({ siteId, listSha256: sha256, firstSeenAt: at, lastSeenAt: at, added, removed, report })
    .returning(setColumns);
  return { ...row!, report, paths, changed: true };
}

/** A site's latest URL set, with its paths; undefined before its first refresh. */
export async function loadUrlSet(db: Database, siteId: number): Promise<StoredUrlSet | undefined> {
  const [latest] = await db
    .select(setColumns)
    .from(urlSets)
    .where(eq(urlSets.siteId, siteId))
    .orderBy(desc(urlSets.id))
    .limit(1);
  if (latest === undefined) return undefined;
  return {
    ...latest,
    report: latest.report as UrlSetReport,
    paths: await loadList(db, latest.sha256),
  };
}

/** Keeps a coverage (a second computation of the same one changes nothing). */
export async function saveCoverage(
  db: Database,
  record: {
    snapshotId: number;
    urlSetId: number;
    agentsKey: string;
    computedAt: Date;
    coverage: Coverage;
  },
): Promise<void> {
  await db
    .insert(coverage)
    .values({
      snapshotId: record.snapshotId,
      urlSetId: record.urlSetId,
      agentsKey: record.agentsKey,
      computedAt: record.computedAt,
      data: record.coverage,
    })
    .onConflictDoNothing();
}

/** The coverage of a snapshot (over the newest URL set it was computed for). */
export async function loadCoverage(
  db: Database,
  snapshotId: number,
  agentsKey?: string,
): Promise<StoredCoverage | undefined> {
  const [row] = await db
    .select({
      snapshotId: coverage.snapshotId,
      urlSetId: coverage.urlSetId,
      computedAt: coverage.computedAt,
      data: coverage.data,
    })
    .from(coverage)
    .where(
      agentsKey === undefined
        ? eq(coverage.snapshotId, snapshotId)
        : and(eq(coverage.snapshotId, snapshotId), eq(coverage.agentsKey, agentsKey)),
    )
    .orderBy(desc(coverage.urlSetId), desc(coverage.computedAt))
    .limit(1);
  return row === undefined
    ? undefined
    : {
        snapshotId: row.snapshotId,
        urlSetId: row.urlSetId,
        computedAt: row.computedAt,
        coverage: row.data,
      };
}

/** The URL set a coverage was computed over, without its paths. */
export async function loadUrlSetById(
  db: Database,
  id: number,
): Promise<Omit<StoredUrlSet, 'paths'> | undefined> {
  const [row] = await db.select(setColumns).from(urlSets).where(eq(urlSets.id, id));
  return row === undefined ? undefined : { ...row, report: row.report as UrlSetReport };
}

/**
 * A site's coverage over time, oldest first: for each snapshot with one, when the
 * snapshot was first seen and each crawler's allowed count over the set (the newest
 * computation of the snapshot). At most the last `limit` snapshots.
 */
export async function loadCoverageHistory(
  db: Database,
  siteId: number,
  limit = 200,
): Promise<{ at: Date; urls: number; allowed: Record<string, number> }[]> {
  const rows = await queryRows<{
    at: string | Date;
    urls: number;
    allowed: Record<string, number> | string;
  }>(
    db,
    sql`SELECT at, urls, allowed FROM (
      SELECT DISTINCT ON (s.id) s.id, s.first_seen_at AS at, (c.data->>'urls')::int AS urls,
        (SELECT jsonb_object_agg(a->>'agent', (a->>'allowed')::int)
           FROM jsonb_array_elements(c.data->'agents') a) AS allowed
      FROM coverage c JOIN snapshots s ON s.id = c.snapshot_id
      WHERE s.site_id = ${siteId}
      ORDER BY s.id DESC, c.url_set_id DESC, c.computed_at DESC
      LIMIT ${limit}
    ) newest ORDER BY at`,
  );
  return rows.map((r) => ({
    at: new Date(r.at),
    urls: r.urls,
    allowed:
      typeof r.allowed === 'string'
        ? (JSON.parse(r.allowed) as Record<string, number>)
        : (r.allowed ?? {}),
  }));
}

/** Whether the coverage of this snapshot over this URL set is stored already. */
export async function hasCoverage(
  db: Database,
  snapshotId: number,
  urlSetId: number,
  agentsKey: string,
): Promise<boolean> {
  const rows = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM coverage WHERE snapshot_id = ${snapshotId}
      AND url_set_id = ${urlSetId} AND agents_key = ${agentsKey} LIMIT 1`,
  );
  return rows.length > 0;
}
