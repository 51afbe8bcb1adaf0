/** A site's history as people read it: daily states, timeline segments, verdict flips. Pure. */
import type { Profile } from '../robots/index.js';
import type { Access } from './access.js';
import type { FetchErrorKind } from './fetch-result.js';
import { siteAccess } from './verdicts.js';
import type { VerdictCause } from './verdicts.js';

/** The states a site's checks saw on one day (UTC, YYYY-MM-DD). */
export interface DayStates {
  readonly day: string;
  readonly states: readonly {
    readonly status: number | null;
    readonly error: FetchErrorKind | null;
    readonly stale: boolean;
    readonly checks: number;
  }[];
}

/** A day's worst access, or `none` when nothing was checked that day. */
export interface DayAccess {
  readonly day: string;
  readonly access: Access | 'none';
  readonly checks: number;
}

const SEVERITY: Record<Access, number> = { ok: 0, unavailable: 1, unreachable: 2 };
const DAY_MS = 24 * 60 * 60 * 1000;

/** The last `count` days up to `end` (UTC), oldest first, each with the worst access seen. */
export function dailyAccess(
  days: readonly DayStates[],
  profile: Profile,
  end: Date,
  count: number,
): DayAccess[] {
  const byDay = new Map(days.map((d) => [d.day, d.states]));
  const last = Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate());
  const result: DayAccess[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const day = new Date(last - i * DAY_MS).toISOString().slice(0, 10);
    const states = byDay.get(day) ?? [];
    let access: Access | 'none' = 'none';
    let checks = 0;
    for (const state of states) {
      const seen = siteAccess({ fetch: state, stale: state.stale }, profile);
      if (access === 'none' || SEVERITY[seen] > SEVERITY[access]) access = seen;
      checks += state.checks;
    }
    result.push({ day, access, checks });
  }
  return result;
}

/** A snapshot as the timeline needs it. */
export interface TimelineSnapshot {
  readonly id: number;
  readonly firstSeen: Date;
  readonly lastSeen: Date;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly stale: boolean;
  /** `archive`: an Internet Archive capture, from before the live checks (which come after). */
  readonly source?: 'live' | 'archive';
}

/** A stretch of time one snapshot was the site's state. */
export interface TimelineSegment {
  readonly snapshotId: number;
  readonly start: Date;
  /** When the next snapshot was first seen; `end` for the current one. */
  readonly end: Date;
  readonly access: Access;
  /** Change events that the snapshot introduced. */
  readonly events: number;
  /** Seen by the Internet Archive, not by robowatch. */
  readonly archived: boolean;
}

/** Consecutive snapshots as segments of time, oldest first, coloured by the site's access. */
export function timelineSegments(
  snapshots: readonly TimelineSnapshot[],
  events: ReadonlyMap<number, number>,
  profile: Profile,
  end: Date,
): TimelineSegment[] {
  // The archived states (all before the first check), then the live ones; each in id order.
  const live = (s: TimelineSnapshot) => (s.source === 'archive' ? 0 : 1);
  const ordered = [...snapshots].sort((a, b) => live(a) - live(b) || a.id - b.id);
  return ordered.map((snapshot, i) => ({
    snapshotId: snapshot.id,
    start: snapshot.firstSeen,
    end:
      ordered[i + 1]?.firstSeen ?? new Date(Math.max(end.getTime(), snapshot.lastSeen.getTime())),
    access: siteAccess({ fetch: snapshot, stale: snapshot.stale }, profile),
    events: events.get(snapshot.id) ?? 0,
    archived: snapshot.source === 'archive',
  }));
}

/** One (watch, agent)'s verdict in one snapshot. */
export interface VerdictInSnapshot {
  readonly snapshotId: number;
  readonly firstSeen: Date;
  readonly allowed: boolean;
  readonly cause: VerdictCause | null;
}

/** A run of snapshots over which a verdict and its cause stayed the same. */
export interface VerdictRun {
  readonly allowed: boolean;
  readonly cause: VerdictCause | null;
  readonly since: Date;
  readonly fromSnapshotId: number;
  /** When the next run began; null for the current one. */
  readonly until: Date | null;
  readonly snapshots: number;
}

function sameCause(a: VerdictCause | null, b: VerdictCause | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.type === 'access') return b.type === 'access' && a.access === b.access;
  return (
    b.type === 'rule' && a.directive === b.directive && a.pattern === b.pattern && a.line === b.line
  );
}

/**
 * Folds a verdict's history (oldest first) into runs: a new run begins when the verdict
 * flips, or when the rule (or access state) responsible for it changes.
 */
export function verdictRuns(history: readonly VerdictInSnapshot[]): VerdictRun[] {
  const runs: VerdictRun[] = [];
  for (const v of history) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.allowed === v.allowed && sameCause(last.cause, v.cause)) {
      runs[runs.length - 1] = { ...last, snapshots: last.snapshots + 1 };
      continue;
    }
    if (last !== undefined) runs[runs.length - 1] = { ...last, until: v.firstSeen };
    runs.push({
      allowed: v.allowed,
      cause: v.cause,
      since: v.firstSeen,
      fromSnapshotId: v.snapshotId,
      until: null,
      snapshots: 1,
    });
  }
  return runs;
}
