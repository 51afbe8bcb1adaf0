/**
 * The records the monitor exchanges with the store, declared here (with the ports in
 * ports.ts) so that the use cases depend on what they need, and the store adapter
 * implements it (DESIGN.md: adapters implement the monitor's ports).
 */
import type { AlertDraft } from '../policy/alerts.js';
import type { ChangeEvent } from '../policy/events.js';
import type { BodyCut, FetchErrorKind, RedirectHop } from '../policy/fetch-result.js';
import type { VerdictCause, WatchVerdict } from '../policy/verdicts.js';

/** Where a site stands now: its current snapshot and what checking it next needs. */
export interface CurrentState {
  readonly snapshotId: number;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly bodySha256: string | null;
  readonly stale: boolean;
  readonly lastGoodId: number | null;
  readonly lastGoodSha256: string | null;
  readonly verdictsKey: string | null;
  readonly unreachableSince: Date | null;
}

/** A site as stored, with where it stands now (null before its first check). */
export interface StoredSite {
  readonly id: number;
  readonly origin: string;
  readonly current: CurrentState | null;
}

/** One check that saw a site's state again. */
export interface CheckRow {
  readonly snapshotId: number;
  readonly checkedAt: Date;
  readonly durationMs: number;
  readonly transient: string | null;
}

/** A new state of a site, with everything that is written with it. */
export interface NewSnapshot {
  readonly siteId: number;
  readonly previousId: number | null;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly errorDetail: string | null;
  readonly redirects: readonly RedirectHop[];
  readonly finalUrl: string;
  /** The 2xx body and its hash, when there is one. */
  readonly body: { readonly sha256: string; readonly bytes: Uint8Array } | null;
  readonly cut: BodyCut | null;
  readonly stale: boolean;
  /** The snapshot whose body is the last good copy; null: this one if it has a body. */
  readonly lastGoodId: number | null;
  readonly firstSeenAt: Date;
  readonly verdicts: readonly WatchVerdict[];
  readonly verdictsKey: string;
  readonly events: readonly ChangeEvent[];
  /** Alerts to queue with it (the outbox), in the same transaction. */
  readonly alerts: readonly AlertDraft[];
  readonly unreachableSince: Date | null;
  readonly check: Omit<CheckRow, 'snapshotId'>;
}

/** A snapshot as history shows it: when it was seen, how often, what it was. */
export interface SnapshotSummary {
  readonly id: number;
  readonly siteId: number;
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
  /** What the fetcher dropped past the limit, when it cut the body. */
  readonly cut: BodyCut | null;
  readonly stale: boolean;
  readonly lastGoodId: number | null;
  readonly redirects: readonly RedirectHop[];
  readonly finalUrl: string;
}

/** A change event as stored: which site, which snapshot introduced it, when. */
export interface StoredEvent {
  readonly id: number;
  readonly siteId: number;
  readonly origin: string;
  readonly snapshotId: number;
  readonly at: Date;
  readonly event: ChangeEvent;
}

/** Which change events to list. */
export interface EventQuery {
  readonly siteId?: number;
  readonly types?: readonly ChangeEvent['type'][];
  readonly snapshotId?: number;
  /** Paging: only events older than this id. */
  readonly beforeId?: number;
  readonly limit: number;
}

/** What the overview shows of one site. */
export interface SiteOverview {
  readonly id: number;
  readonly origin: string;
  /** The current snapshot, or null before the first check. */
  readonly current: {
    readonly id: number;
    readonly status: number | null;
    readonly error: FetchErrorKind | null;
    readonly stale: boolean;
    readonly lastSeen: Date;
  } | null;
  /** The events of the most recent snapshot that brought any, if one did. */
  readonly lastChange: { readonly at: Date; readonly events: readonly ChangeEvent[] } | null;
  /** Per agent of the current snapshot's verdicts: how many watched URLs it may not fetch. */
  readonly disallowed: readonly { agent: string; disallowed: number; watched: number }[];
}

/** One (watch, agent)'s verdict in one snapshot of a site. */
export interface VerdictAt {
  readonly snapshotId: number;
  readonly firstSeen: Date;
  readonly allowed: boolean;
  readonly cause: VerdictCause | null;
  readonly profile: string;
}

/** A digest as recorded: the rendered email, kept for the web UI. */
export interface DigestRecord {
  readonly recipient: string;
  readonly periodStart: Date;
  readonly periodEnd: Date;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** What a digest is built from, for one site and one period. */
export interface SitePeriod {
  readonly events: { at: Date; event: ChangeEvent }[];
  readonly checks: {
    at: Date;
    fetch: { status: number | null; error: FetchErrorKind | null };
    stale: boolean;
  }[];
  readonly verdicts: readonly WatchVerdict[];
  /** The last good copy of the file (what applies now), if any. */
  readonly body: Uint8Array | null;
}

/** A site's check in one period of its schedule. */
export interface PlannedRun {
  readonly siteId: number;
  readonly periodStart: Date;
  readonly periodEnd: Date;
  readonly dueAt: Date;
}

/** A planned run, leased by this process to check. */
export interface LeasedRun {
  readonly siteId: number;
  readonly periodStart: Date;
  readonly periodEnd: Date;
  readonly attempts: number;
}

/** One check of a snapshot, as its page lists them. */
export interface CheckSeen {
  readonly checkedAt: Date;
  readonly durationMs: number;
  readonly transient: string | null;
}
