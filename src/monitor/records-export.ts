/** Rows as exports and trends read them, a site at a time. */
import type { ChangeCause } from '../policy/changes/cause-model.js';
import type { VerdictCause } from '../policy/verdicts.js';

/** Rows of the recorded history, as `robowatch export` reads them (store/export.ts). */
export interface SnapshotRow {
  readonly site: string;
  readonly snapshotId: number;
  readonly previousId: number | null;
  readonly firstSeen: Date;
  readonly lastSeen: Date;
  readonly checks: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly sha256: string | null;
  readonly size: number | null;
  readonly truncated: boolean;
  readonly stale: boolean;
  readonly finalUrl: string;
  readonly fileCondition: string | null;
  readonly source: string;
  readonly originalUrl: string | null;
  readonly registrySha256: string | null;
}

export interface CheckExportRow {
  readonly site: string;
  readonly snapshotId: number;
  readonly checkedAt: Date;
  readonly durationMs: number;
  readonly transient: string | null;
}

export interface VerdictExportRow {
  readonly site: string;
  readonly snapshotId: number;
  readonly firstSeen: Date;
  readonly url: string;
  readonly agent: string;
  readonly profile: string;
  readonly allowed: boolean;
  readonly cause: VerdictCause | null;
  /** `live`, or `archive` (robowatch backfill). */
  readonly source: string;
  readonly registrySha256: string | null;
}

export interface CauseExportRow {
  readonly site: string;
  readonly snapshotId: number;
  readonly previousId: number | null;
  readonly at: Date;
  readonly cause: ChangeCause;
  /** `live`, or `archive`: between two Internet Archive captures (never alerted). */
  readonly source: string;
}

/** A state of a site as the store gives it for trends. */
export interface TrendRow {
  readonly origin: string;
  readonly at: Date;
  readonly status: number | null;
  readonly error: string | null;
  readonly stale: boolean;
  readonly counts: readonly { agent: string; disallowed: number; watched: number }[];
}
