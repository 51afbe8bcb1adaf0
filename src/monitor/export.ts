/**
 * Exporting the recorded history for research: snapshots, checks, verdicts, causes and
 * bodies as flat rows with typed columns, whatever the file format. Every row says what
 * produced it: the site's profile, robowatch's version (the engine), and for verdicts the
 * AI crawler registry their crawlers came from. Rows stream from the store a page at a
 * time, so memory stays bounded whatever the history's size.
 */
import { explainCause } from '../policy/wording/explain.js';
import type {
  CauseExportRow,
  CheckExportRow,
  SnapshotRow,
  VerdictExportRow,
} from './records-export.js';

export const EXPORTS = [
  'snapshots',
  'checks',
  'verdicts',
  'causes',
  'bodies',
  'trends',
  'audit',
] as const;
import type { AuditEntry } from './records-accounts.js';

export type ExportKind = (typeof EXPORTS)[number];

/** A column's type, as Parquet stores it (CSV and JSON lines write the value as text/JSON). */
export type ColumnType =
  'STRING' | 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP' | 'BYTE_ARRAY';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

/** A row: a value per column, null where there is none. */
export type ExportRow = Record<string, string | number | boolean | Date | Uint8Array | null>;

const col = (name: string, type: ColumnType): Column => ({ name, type });
const PRODUCED = [col('profile', 'STRING'), col('engine', 'STRING')];

/** Each export's columns, in order. */
export const COLUMNS: Readonly<Record<ExportKind, readonly Column[]>> = {
  snapshots: [
    col('site', 'STRING'),
    col('snapshot_id', 'INT64'),
    col('previous_id', 'INT64'),
    col('first_seen', 'TIMESTAMP'),
    col('last_seen', 'TIMESTAMP'),
    col('checks', 'INT32'),
    col('status', 'INT32'),
    col('error', 'STRING'),
    col('sha256', 'STRING'),
    col('size', 'INT32'),
    col('truncated', 'BOOLEAN'),
    col('stale', 'BOOLEAN'),
    col('final_url', 'STRING'),
    col('file_condition', 'STRING'),
    // live: seen by robowatch; archive: an Internet Archive capture (checks: its captures).
    col('source', 'STRING'),
    col('original_url', 'STRING'),
    ...PRODUCED,
    col('registry_sha256', 'STRING'),
  ],
  checks: [
    col('site', 'STRING'),
    col('snapshot_id', 'INT64'),
    col('checked_at', 'TIMESTAMP'),
    col('duration_ms', 'INT32'),
    col('transient', 'STRING'),
    ...PRODUCED,
  ],
  verdicts: [
    col('site', 'STRING'),
    col('snapshot_id', 'INT64'),
    col('first_seen', 'TIMESTAMP'),
    col('url', 'STRING'),
    col('agent', 'STRING'),
    col('allowed', 'BOOLEAN'),
    col('cause', 'STRING'),
    col('rule_line', 'INT32'),
    col('rule', 'STRING'),
    col('source', 'STRING'),
    ...PRODUCED,
    col('registry_sha256', 'STRING'),
  ],
  causes: [
    col('site', 'STRING'),
    col('snapshot_id', 'INT64'),
    col('previous_id', 'INT64'),
    col('at', 'TIMESTAMP'),
    col('type', 'STRING'),
    col('title', 'STRING'),
    col('flipped_pairs', 'INT32'),
    col('cause_json', 'STRING'),
    col('source', 'STRING'),
    ...PRODUCED,
  ],
  bodies: [col('sha256', 'STRING'), col('size', 'INT32'), col('content', 'BYTE_ARRAY')],
  // Shares as fractions (0 to 1); `sites` is a weight sum when weighted (never here).
  trends: [
    col('group', 'STRING'),
    col('month', 'STRING'),
    col('sites', 'INT32'),
    col('full', 'DOUBLE'),
    col('partly', 'DOUBLE'),
    col('none', 'DOUBLE'),
    col('no_robots_txt', 'DOUBLE'),
    col('engine', 'STRING'),
    col('registry_sha256', 'STRING'),
  ],
  audit: [
    col('id', 'INT64'),
    col('at', 'TIMESTAMP'),
    col('actor', 'STRING'),
    col('via', 'STRING'),
    col('address', 'STRING'),
    col('action', 'STRING'),
    col('site_id', 'INT32'),
    col('origin', 'STRING'),
    col('target', 'STRING'),
    col('before', 'STRING'),
    col('after', 'STRING'),
  ],
};

/** An audit entry as a row: its values before and after as JSON text (secrets hidden already). */
export function auditRecord(entry: AuditEntry): ExportRow {
  return {
    id: entry.id,
    at: entry.at,
    actor: entry.actor,
    via: entry.via,
    address: entry.address,
    action: entry.action,
    site_id: entry.siteId,
    origin: entry.origin,
    target: entry.target,
    before: entry.before === null ? null : JSON.stringify(entry.before),
    after: entry.after === null ? null : JSON.stringify(entry.after),
  };
}

/** What the rows are turned with: each site's profile now, and robowatch's version. */
export interface ExportContext {
  readonly profileOf: (site: string) => string | null;
  readonly engine: string;
}

export function snapshotRecord(r: SnapshotRow, c: ExportContext): ExportRow {
  return {
    site: r.site,
    snapshot_id: r.snapshotId,
    previous_id: r.previousId,
    first_seen: r.firstSeen,
    last_seen: r.lastSeen,
    checks: r.checks,
    status: r.status,
    error: r.error,
    sha256: r.sha256,
    size: r.size,
    truncated: r.truncated,
    stale: r.stale,
    final_url: r.finalUrl,
    file_condition: r.fileCondition,
    source: r.source,
    original_url: r.originalUrl,
    profile: c.profileOf(r.site),
    engine: c.engine,
    registry_sha256: r.registrySha256,
  };
}

export function checkRecord(r: CheckExportRow, c: ExportContext): ExportRow {
  return {
    site: r.site,
    snapshot_id: r.snapshotId,
    checked_at: r.checkedAt,
    duration_ms: r.durationMs,
    transient: r.transient,
    profile: c.profileOf(r.site),
    engine: c.engine,
  };
}

export function verdictRecord(r: VerdictExportRow, c: ExportContext): ExportRow {
  const cause = r.cause;
  return {
    site: r.site,
    snapshot_id: r.snapshotId,
    first_seen: r.firstSeen,
    url: r.url,
    agent: r.agent,
    allowed: r.allowed,
    // A rule decided, the access state did (robots.txt unreachable or gone), or nothing.
    cause: cause === null ? 'no-rule' : cause.type === 'rule' ? 'rule' : cause.access,
    rule_line: cause?.type === 'rule' ? cause.line : null,
    rule:
      cause?.type === 'rule'
        ? `${cause.directive === 'allow' ? 'Allow' : 'Disallow'}: ${cause.pattern}`
        : null,
    source: r.source,
    profile: r.profile,
    engine: c.engine,
    registry_sha256: r.registrySha256,
  };
}

export function causeRecord(r: CauseExportRow, c: ExportContext): ExportRow {
  return {
    site: r.site,
    snapshot_id: r.snapshotId,
    previous_id: r.previousId,
    at: r.at,
    type: r.cause.type,
    title: explainCause(r.cause, { agents: [], at: r.at }, 0).title,
    flipped_pairs: r.cause.pairs.filter((p) => p.flipped).length,
    cause_json: JSON.stringify(r.cause),
    source: r.source,
    profile: c.profileOf(r.site),
    engine: c.engine,
  };
}
