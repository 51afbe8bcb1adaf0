import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { FetchErrorKind } from '../policy/fetch-result.js';
import type { FileCondition } from '../policy/file-condition.js';
import { batchParam, prepared, queryRows, rowDate } from './db.js';
import type { Database } from './db.js';
import { catalogVersion, sharedSettings, sites } from './schema.js';
import type {
  DirectoryRow,
  IncidentStart,
  NewRefusal,
  Refusal,
  SharedSettingsRows,
  StoredSite,
} from '../monitor/records.js';
import { insertAlerts } from './outbox.js';

/** Makes sure every origin has a row; returns them all, with their current state. */
export async function syncSites(db: Database, origins: readonly string[]): Promise<StoredSite[]> {
  const found: StoredSite[] = [];
  for (let i = 0; i < origins.length; i += SITES_PAGE) {
    const batch = origins.slice(i, i + SITES_PAGE);
    const stored = await loadSites(db, batch);
    found.push(...stored);
    // Most runs add no site: only the origins without a row are inserted, then read.
    const added = await insertMissing(db, batch, new Set(stored.map((s) => s.origin)));
    if (added.length > 0) found.push(...(await loadSites(db, added)));
  }
  return found;
}

/**
 * Makes sure every origin has a row; returns each one's id (the catalog's file sites),
 * without the state syncSites reads with them. With `create` false, only reads: the
 * origins without a row are left out (a preview run by a user that may only read).
 */
export async function ensureSiteIds(
  db: Database,
  origins: readonly string[],
  create = true,
): Promise<{ origin: string; id: number }[]> {
  const found: { origin: string; id: number }[] = [];
  for (let i = 0; i < origins.length; i += SITES_PAGE) {
    const batch = origins.slice(i, i + SITES_PAGE);
    const ids = () =>
      queryRows<{ origin: string; id: number }>(
        db,
        prepared(
          'site-ids',
          sql`SELECT origin, id FROM sites WHERE origin = ANY(${sql.param(batch)}::text[])`,
        ),
      );
    const stored = await ids();
    if (!create) {
      found.push(...stored);
      continue;
    }
    const added = await insertMissing(db, batch, new Set(stored.map((s) => s.origin)));
    found.push(...(added.length > 0 ? await ids() : stored));
  }
  return found;
}

/**
 * Inserts the origins of `batch` that `stored` lacks (another process may have added one
 * meanwhile: it is kept), as one statement with one array parameter: a query builder's
 * row of parameters per site cost 0.1 ms a site (10 s at 100,000) to build. Returns them.
 */
async function insertMissing(
  db: Database,
  batch: readonly string[],
  stored: ReadonlySet<string>,
): Promise<string[]> {
  const missing = batch.filter((origin) => !stored.has(origin));
  if (missing.length === 0) return missing;
  await db.execute(sql`
    INSERT INTO sites (origin) SELECT unnest(${sql.param(missing)}::text[])
    ON CONFLICT (origin) DO NOTHING`);
  return missing;
}

/** Sites read (and made) per statement. */
const SITES_PAGE = 10_000;

/**
 * Up to this many sites are read by a statement with one plan for all (the daemon reads
 * each scheduled check's site, a few at once): planning it anew for each list cost the
 * server more than running it. Past it the list is planned with its values, as a
 * hashed array: one plan for any list compared each row with every origin.
 */
const FEW_SITES = 64;

/** A site's row and its current state, as the check reads them. */
interface SiteRow {
  id: number;
  origin: string;
  verdicts_key: string | null;
  unreachable_since: Date | string | null;
  intent_key: string | null;
  file_condition: FileCondition | null;
  snapshot_id: number | string | null;
  status: number | null;
  error: string | null;
  body_sha256: string | null;
  stale: boolean | null;
  final_url: string | null;
  last_good_id: number | string | null;
  last_good_sha256: string | null;
  last_good_truncated: boolean | null;
  dropped_bytes: number | null;
  dropped_line_breaks: number | null;
  dropped_complete: boolean | null;
  refused_since: Date | string | null;
  refused_reason: string | null;
  refused_at: Date | string | null;
  intent_version: number;
}

const id = (value: number | string | null) => (value === null ? null : Number(value));

/**
 * The sites of these origins with their current state, in no particular order. The rows
 * travel as one JSON text, parsed by V8 at once: the query builder mapped 20 columns a row
 * at 19 µs a site, and the driver's parsing of each column of each row cost 30 µs a site
 * at start-up (3,000 sites).
 */
export async function loadSites(db: Database, origins: readonly string[]): Promise<StoredSite[]> {
  // A page at a time: the daemon's start reads every site it has never checked, and
  // 100,000 sites' rows as one text held 80 MB of the driver's buffers and V8's large
  // objects at once, its peak memory (2026-11-28, bench:scale).
  if (origins.length > SITES_PAGE) {
    const found: StoredSite[] = [];
    for (let i = 0; i < origins.length; i += SITES_PAGE)
      found.push(...(await loadSites(db, origins.slice(i, i + SITES_PAGE))));
    return found;
  }
  // A few sites (a scheduled check's, or the few asking at once): one plan kept for any
  // few (batchParam). Many: planned for the list at hand, whose array the server hashes.
  const few = origins.length <= FEW_SITES;
  const [result] = await queryRows<{ rows: string }>(
    db,
    prepared(
      few ? 'load-sites-few' : 'load-sites',
      sql`
      SELECT coalesce(json_agg(t), '[]')::text AS rows FROM (
        SELECT s.id, s.origin, s.verdicts_key, s.unreachable_since, s.intent_key,
          s.current_file_condition AS file_condition, c.id AS snapshot_id, c.status, c.error,
          c.body_sha256, c.final_url, c.stale, c.last_good_id, g.body_sha256 AS last_good_sha256,
          g.truncated AS last_good_truncated, g.dropped_bytes, g.dropped_line_breaks,
          g.dropped_complete, s.refused_since, s.refused_reason, s.refused_at,
          s.intent_version
        FROM sites AS s
        LEFT JOIN snapshots AS c ON c.id = s.current_snapshot_id
        LEFT JOIN snapshots AS g ON g.id = c.last_good_id
        WHERE s.origin = ANY(${few ? batchParam(origins, 'text[]') : sql`${sql.param([...origins])}::text[]`})) AS t`,
    ),
  );
  const rows = JSON.parse(result?.rows ?? '[]') as SiteRow[];
  return rows.map((row) => {
    const refusedSince = rowDate(row.refused_since);
    const snapshotId = id(row.snapshot_id);
    return {
      id: row.id,
      origin: row.origin,
      intentVersion: row.intent_version,
      refused:
        refusedSince === null
          ? null
          : {
              since: refusedSince,
              reason: row.refused_reason ?? '',
              at: rowDate(row.refused_at) ?? refusedSince,
            },
      current:
        snapshotId === null
          ? null
          : {
              snapshotId,
              status: row.status,
              error: row.error as FetchErrorKind | null,
              bodySha256: row.body_sha256,
              finalUrl: row.final_url ?? '',
              stale: row.stale ?? false,
              lastGoodId: id(row.last_good_id),
              lastGoodSha256: row.last_good_sha256,
              lastGoodTruncated: row.last_good_truncated ?? false,
              lastGoodCut:
                row.dropped_bytes === null
                  ? null
                  : {
                      droppedBytes: row.dropped_bytes,
                      droppedLineBreaks: row.dropped_line_breaks ?? 0,
                      complete: row.dropped_complete ?? false,
                    },
              verdictsKey: row.verdicts_key,
              unreachableSince: rowDate(row.unreachable_since),
              intentKey: row.intent_key,
              fileCondition: row.file_condition,
            },
    };
  });
}

const directoryColumns = {
  id: sites.id,
  origin: sites.origin,
  settings: sites.settings,
  pausedAt: sites.pausedAt,
  removedAt: sites.removedAt,
  intent: sites.intent,
};

/** The sites added in the UI or API and not removed, and every paused site. */
export async function loadDirectory(db: Database): Promise<DirectoryRow[]> {
  return db
    .select(directoryColumns)
    .from(sites)
    .where(
      sql`(${sites.settings} IS NOT NULL AND ${sites.removedAt} IS NULL) OR ${sites.pausedAt} IS NOT NULL OR ${sites.intent} IS NOT NULL`,
    )
    .orderBy(sites.id);
}

/** The channel each change of the catalogue is announced on at its commit (migration 0024). */
export const CATALOG_CHANNEL = 'robowatch_catalog';

/**
 * How many times the catalogue changed (the `catalog_version` row a trigger counts up at
 * each commit that changes it); null where that row is missing, which makes every read
 * a full one.
 */
export async function loadCatalogVersion(db: Database): Promise<number | null> {
  const [row] = await db
    .select({ version: catalogVersion.version })
    .from(catalogVersion)
    .where(eq(catalogVersion.id, 1));
  return row?.version ?? null;
}

/** One site's row, by id or by origin. */
export async function findDirectoryRow(
  db: Database,
  key: { id: number } | { origin: string },
): Promise<DirectoryRow | undefined> {
  const [row] = await db
    .select(directoryColumns)
    .from(sites)
    .where('id' in key ? eq(sites.id, key.id) : eq(sites.origin, key.origin));
  return row;
}

/**
 * The names of the sites added in the UI or API among `origins` (null: it has none), read
 * from their settings as stored, without resolving them; a site the UI or API does not
 * manage (the file's, or one removed) is not among them.
 */
export async function loadManagedNames(
  db: Database,
  origins: readonly string[],
): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  for (let i = 0; i < origins.length; i += SITES_PAGE) {
    const rows = await queryRows<{ origin: string; name: string | null }>(
      db,
      sql`SELECT origin, settings->>'name' AS name FROM sites
          WHERE origin = ANY(${sql.param(origins.slice(i, i + SITES_PAGE))}::text[])
            AND settings IS NOT NULL AND removed_at IS NULL`,
    );
    for (const row of rows) names.set(row.origin, row.name);
  }
  return names;
}

/**
 * Adds a site managed in the UI or API, or takes over its row when it has one (a site
 * removed before, or one the file no longer lists): its history carries on. Returns its id.
 */
export async function saveManagedSite(
  db: Database,
  origin: string,
  settings: Record<string, unknown>,
): Promise<number> {
  const [row] = await db
    .insert(sites)
    .values({ origin, settings })
    .onConflictDoUpdate({
      target: sites.origin,
      set: { settings, removedAt: null, pausedAt: null },
    })
    .returning({ id: sites.id });
  return row!.id;
}

/** Replaces a managed site's settings. */
export async function updateSiteSettings(
  db: Database,
  id: number,
  settings: Record<string, unknown>,
): Promise<void> {
  await db.update(sites).set({ settings }).where(eq(sites.id, id));
}

/** Pauses a site (null: resumes it). */
export async function setSitePaused(db: Database, id: number, at: Date | null): Promise<void> {
  await db.update(sites).set({ pausedAt: at }).where(eq(sites.id, id));
}

/** Stops watching a managed site; its history stays. */
export async function removeManagedSite(db: Database, id: number, at: Date): Promise<void> {
  await db.update(sites).set({ removedAt: at, pausedAt: null }).where(eq(sites.id, id));
}

/** The settings made in the UI or API for every site, as stored (null: never set). */
export async function loadSharedSettings(db: Database): Promise<SharedSettingsRows> {
  const rows = await db.select().from(sharedSettings);
  const value = (key: string) => rows.find((r) => r.key === key)?.value ?? null;
  return { presets: value('presets'), channels: value('channels') };
}

/**
 * Sets one crawler preset (null: deletes it) in one statement, so that two writers
 * changing different presets both land.
 */
export async function savePreset(
  db: Database,
  name: string,
  agents: readonly string[] | null,
): Promise<void> {
  const change =
    agents === null
      ? sql`${sharedSettings.value} - ${name}::text`
      : sql`${sharedSettings.value} || jsonb_build_object(${name}::text, ${JSON.stringify(agents)}::jsonb)`;
  await db
    .insert(sharedSettings)
    .values({ key: 'presets', value: agents === null ? {} : { [name]: agents } })
    .onConflictDoUpdate({
      target: sharedSettings.key,
      set: { value: change, updatedAt: sql`now()` },
    });
}

/** Replaces the default channels made in the UI or API. */
export async function saveChannels(db: Database, channels: Record<string, unknown>): Promise<void> {
  await db
    .insert(sharedSettings)
    .values({ key: 'channels', value: channels })
    .onConflictDoUpdate({
      target: sharedSettings.key,
      set: { value: channels, updatedAt: sql`now()` },
    });
}

/** A site's row by origin, or undefined. */
export async function findSite(
  db: Database,
  origin: string,
): Promise<{ id: number; origin: string } | undefined> {
  const [row] = await db
    .select({ id: sites.id, origin: sites.origin })
    .from(sites)
    .where(eq(sites.origin, origin));
  return row;
}

/** A site's row by id, or undefined. */
export async function findSiteById(
  db: Database,
  id: number,
): Promise<{ id: number; origin: string } | undefined> {
  const [row] = await db
    .select({ id: sites.id, origin: sites.origin })
    .from(sites)
    .where(eq(sites.id, id));
  return row;
}

/** The number of rows in each table (for tests and the benchmark). */
export async function countRows(db: Database): Promise<Record<string, number>> {
  const tables = ['sites', 'bodies', 'snapshots', 'checks'];
  const counts: Record<string, number> = {};
  // Verdicts are stored a snapshot at a time: count their cells.
  const [verdicts] = await queryRows<{ n: number }>(
    db,
    sql`SELECT COALESCE(sum(cardinality(array_remove(cells, -1))), 0)::int AS n FROM verdict_sets`,
  );
  counts['verdicts'] = verdicts!.n;
  // Change events are stored a snapshot at a time too: count them.
  const [events] = await queryRows<{ n: number }>(
    db,
    sql`SELECT COALESCE(sum(json_array_length(events)), 0)::int AS n FROM snapshots`,
  );
  counts['change_events'] = events!.n;
  for (const table of tables) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql.raw(`SELECT count(*)::int AS n FROM ${table}`),
    );
    counts[table] = row!.n;
  }
  return counts;
}

/**
 * When the trouble that snapshot `snapshotId` is part of began: the first state after the
 * site's last 2xx (access), and the first 2xx after its last 2xx that was a robots.txt
 * file (file). Null when no such state came before: the site was never ok.
 */
export async function loadIncidentStart(
  db: Database,
  siteId: number,
  snapshotId: number,
): Promise<IncidentStart> {
  const [row] = await queryRows<{ access: string | Date | null; file: string | Date | null }>(
    db,
    incidentStartOf(sql`${siteId}::int`, sql`${snapshotId}::bigint`),
  );
  return { access: rowDate(row?.access), file: rowDate(row?.file) };
}

/** The query behind loadIncidentStart, for a site and snapshot given as SQL expressions. */
export function incidentStartOf(siteId: SQL, snapshotId: SQL): SQL {
  // Within the snapshot's own chain: the live one, or the one made from the archive.
  const source = sql`coalesce((SELECT c.source FROM snapshots c WHERE c.id = ${snapshotId}), 'live')`;
  return sql`SELECT
      (SELECT min(s.first_seen_at) FROM snapshots s
        WHERE s.site_id = ${siteId} AND s.id <= ${snapshotId} AND s.source = ${source}
          AND s.id > (SELECT max(o.id) FROM snapshots o WHERE o.site_id = ${siteId}
            AND o.id <= ${snapshotId} AND o.source = ${source}
            AND o.status BETWEEN 200 AND 299)) AS access,
      (SELECT min(s.first_seen_at) FROM snapshots s
        WHERE s.site_id = ${siteId} AND s.id <= ${snapshotId} AND s.source = ${source}
          AND s.status BETWEEN 200 AND 299
          AND s.id > (SELECT max(o.id) FROM snapshots o WHERE o.site_id = ${siteId}
            AND o.id <= ${snapshotId} AND o.source = ${source}
            AND o.status BETWEEN 200 AND 299
            AND coalesce(o.file_condition, 'robots') IN ('robots', 'cut'))) AS file`;
}

/** The origins of the sites added in the UI or API and not removed. */
export async function activeManagedOrigins(db: Database): Promise<Set<string>> {
  const rows = await db
    .select({ origin: sites.origin })
    .from(sites)
    .where(and(isNotNull(sites.settings), isNull(sites.removedAt)));
  return new Set(rows.map((r) => r.origin));
}

/** Rows per statement when importing a list. */
const IMPORT_BATCH = 2_000;

/**
 * Adds sites as the UI or API does (or brings removed ones back, their history kept), all
 * in one transaction: a list is imported whole or not at all.
 */
export async function importManagedSites(
  db: Database,
  rows: readonly { origin: string; settings: Record<string, unknown> }[],
  onProgress: (written: number) => void,
): Promise<number> {
  return db.transaction(async (tx) => {
    let written = 0;
    for (let i = 0; i < rows.length; i += IMPORT_BATCH) {
      const batch = rows.slice(i, i + IMPORT_BATCH);
      // Two parameters a batch (the origins as an array, the settings as one JSON text),
      // not two per row: drizzle building a 2,000-row VALUES list, and the server parsing
      // it, were more than half a 20,000-site import's CPU (on the embedded database, 7.3–8.4
      // s of CPU before, 3.2–4.0 after, the command's start-up included).
      await tx.execute(sql`
        INSERT INTO sites (origin, settings)
        SELECT o.origin, s.settings
        FROM unnest(${batchParam(
          batch.map((r) => r.origin),
          'text[]',
        )}) WITH ORDINALITY AS o(origin, n)
        JOIN jsonb_array_elements(${JSON.stringify(batch.map((r) => r.settings))}::jsonb)
          WITH ORDINALITY AS s(settings, n) USING (n)
        ON CONFLICT (origin) DO UPDATE
          SET settings = excluded.settings, removed_at = NULL, paused_at = NULL`);
      written += batch.length;
      onProgress(written);
    }
    return written;
  });
}

/**
 * Records a check robowatch refused to make (its address guard): since when it refuses
 * (kept from the first), why, and this attempt. The alerts are queued, in the same
 * transaction, only when the refusal begins: a site refused every day alerts once.
 */
export async function recordRefusal(
  db: Database,
  refusal: NewRefusal,
): Promise<{ since: Date; began: boolean }> {
  return db.transaction(async (tx) => {
    const at = refusal.at.toISOString();
    const [row] = await queryRows<{ since: Date | string; began: boolean }>(
      tx,
      sql`
        WITH before AS (
          SELECT id, refused_since AS was FROM sites WHERE id = ${refusal.siteId} FOR UPDATE)
        UPDATE sites SET refused_since = COALESCE(sites.refused_since, ${at}::timestamptz),
          refused_reason = ${refusal.reason}, refused_at = ${at}::timestamptz
        FROM before WHERE sites.id = before.id
        RETURNING sites.refused_since AS since, before.was IS NULL AS began`,
    );
    if (row === undefined) throw new Error(`there is no site ${refusal.siteId}`);
    if (row.began)
      await insertAlerts(
        tx,
        refusal.alerts,
        { siteId: refusal.siteId, snapshotId: refusal.snapshotId, previousId: null },
        refusal.at,
      );
    return { since: new Date(row.since), began: row.began };
  });
}

/** Since when robowatch refuses to check a site, and why; null when it does not. */
export async function loadRefusal(db: Database, siteId: number): Promise<Refusal | null> {
  const [row] = await db
    .select({ since: sites.refusedSince, reason: sites.refusedReason, at: sites.refusedAt })
    .from(sites)
    .where(eq(sites.id, siteId));
  if (row?.since === null || row?.since === undefined) return null;
  return { since: row.since, reason: row.reason ?? '', at: row.at ?? row.since };
}

/** The site is checked again: robowatch no longer refuses it. */
export async function clearRefusal(db: Database, siteId: number): Promise<void> {
  await db
    .update(sites)
    .set({ refusedSince: null, refusedReason: null, refusedAt: null })
    .where(eq(sites.id, siteId));
}
