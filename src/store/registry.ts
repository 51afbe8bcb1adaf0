/**
 * The AI crawler registries robowatch has used, and what each update meant for each site.
 */
import { and, desc, gte, inArray, lt, sql } from 'drizzle-orm';
import type { RegistryFinding, RegistryUpdateRecord, StoredRegistry } from '../monitor/records.js';
import type { Database } from './db.js';
import type { RegistryVersion } from '../policy/registry.js';
import { insertAlerts } from './outbox.js';
import { registryFindings, registryVersions } from './schema.js';

/** The registry recorded last (the one in use); null before the first. */
export async function latestRegistry(db: Database): Promise<StoredRegistry | null> {
  const [row] = await db
    .select()
    .from(registryVersions)
    .orderBy(desc(registryVersions.recordedAt), desc(registryVersions.id))
    .limit(1);
  return row === undefined ? null : storedOf(row);
}

/** The version of the registry recorded last, without its JSON (the upkeep asks often). */
export async function latestRegistryVersion(db: Database): Promise<RegistryVersion | null> {
  const [row] = await db
    .select({
      sha256: registryVersions.sha256,
      source: registryVersions.source,
      date: registryVersions.date,
      agents: registryVersions.agents,
    })
    .from(registryVersions)
    .orderBy(desc(registryVersions.recordedAt), desc(registryVersions.id))
    .limit(1);
  return row ?? null;
}

function storedOf(row: typeof registryVersions.$inferSelect): StoredRegistry {
  return {
    id: row.id,
    version: { sha256: row.sha256, source: row.source, date: row.date, agents: row.agents },
    content: row.content,
    recordedAt: row.recordedAt,
  };
}

/** Findings one INSERT writes. */
const FINDINGS_PER_STATEMENT = 1_000;

/**
 * Records a registry as the one in use, with what it means for each site and the alerts
 * that says, in one transaction. A registry in use already (another process recorded it
 * first) is not recorded again: false, and nothing else is written.
 */
export async function recordRegistry(db: Database, update: RegistryUpdateRecord): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(registryVersions)
      .values({
        sha256: update.version.sha256,
        source: update.version.source,
        date: update.version.date,
        agents: update.version.agents,
        content: update.content,
        recordedAt: update.now,
      })
      // A registry used before (the shipped one again, once registry.url is dropped) is
      // in use again from now; one that is in use already was recorded by another process.
      .onConflictDoUpdate({
        target: registryVersions.sha256,
        set: { recordedAt: update.now },
        setWhere: sql`${registryVersions.id} <> (SELECT id FROM registry_versions ORDER BY recorded_at DESC, id DESC LIMIT 1)`,
      })
      .returning({ id: registryVersions.id });
    if (row === undefined) return false;
    // In slices: a registry update may find something on each of 100,000 sites, and one
    // statement's parameters are bounded.
    for (let start = 0; start < update.findings.length; start += FINDINGS_PER_STATEMENT)
      await tx.insert(registryFindings).values(
        update.findings.slice(start, start + FINDINGS_PER_STATEMENT).map((f) => ({
          siteId: f.siteId,
          versionId: row.id,
          cause: f.cause,
          createdAt: update.now,
        })),
      );
    for (const finding of update.findings)
      await insertAlerts(
        tx,
        finding.alerts,
        { siteId: finding.siteId, snapshotId: finding.snapshotId, previousId: null },
        update.now,
      );
    return true;
  });
}

/** The registry updates' findings for these sites in [start, end), oldest first. */
export async function loadRegistryFindings(
  db: Database,
  siteIds: readonly number[],
  start: Date,
  end: Date,
): Promise<RegistryFinding[]> {
  if (siteIds.length === 0) return [];
  const rows = await db
    .select({
      siteId: registryFindings.siteId,
      cause: registryFindings.cause,
      at: registryFindings.createdAt,
    })
    .from(registryFindings)
    .where(
      and(
        inArray(registryFindings.siteId, [...siteIds]),
        gte(registryFindings.createdAt, start),
        lt(registryFindings.createdAt, end),
      ),
    )
    .orderBy(registryFindings.id);
  return rows;
}
