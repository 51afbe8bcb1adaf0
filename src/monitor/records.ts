/**
 * The records the monitor exchanges with the store, declared here (with the ports in
 * ports.ts) so that the use cases depend on what they need, and the store adapter
 * implements it (DESIGN.md: adapters implement the monitor's ports).
 */
import type { IncidentStep, LatestIncident } from '../policy/incidents.js';
import type {
  IntentEntry,
  IntentEvaluation,
  SiteState,
  Violation,
  ViolationGrid,
} from '../policy/intent.js';
import type { Coverage } from '../policy/coverage.js';
import type { SitemapFormat } from '../policy/sitemap-reader.js';
import type {
  AlertDraft,
  AlertTargets,
  Delivery,
  OutboxPayload,
  WebhookFormat,
} from '../policy/alerts.js';
import type { ChangeCause, ChangeCauseType } from '../policy/changes/cause-model.js';
import type {
  CoverageAt,
  DigestChange,
  DigestIntent,
  DigestNow,
  RecoveredIncident,
} from '../policy/digest.js';
import type { ChangeEvent } from '../policy/changes/events.js';
import type { BodyCut, FetchErrorKind, RedirectHop } from '../policy/fetch-result.js';
import type { FileCondition } from '../policy/file-condition.js';
import type { VerdictCause, WatchVerdict } from '../policy/verdicts.js';
import type { VerdictSet } from '../policy/verdict-sets.js';
import type { RegistryCause } from '../policy/registry-update.js';
import type { RegistryVersion } from '../policy/registry.js';

/** Where a site stands now: its current snapshot and what checking it next needs. */
export interface CurrentState {
  readonly snapshotId: number;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly bodySha256: string | null;
  /** The URL its answer came from (the site's robots.txt, or a redirect's target). */
  readonly finalUrl: string;
  readonly stale: boolean;
  readonly lastGoodId: number | null;
  readonly lastGoodSha256: string | null;
  /** What the fetcher cut from the last good copy, if it was past 500 KiB. */
  readonly lastGoodCut: BodyCut | null;
  /** Whether the last good copy was cut (also for copies recorded without `lastGoodCut`). */
  readonly lastGoodTruncated: boolean;
  readonly verdictsKey: string | null;
  readonly unreachableSince: Date | null;
  /** What its state against intent was judged for (null: not judged yet, or refused since). */
  readonly intentKey?: string | null;
  /** What its last good body is for crawlers (null without one). */
  readonly fileCondition?: FileCondition | null;
}

/** A site as stored, with where it stands now (null before its first check). */
/** A site's row as the site catalog reads it. */
export interface DirectoryRow {
  readonly id: number;
  readonly origin: string;
  /** Settings of a site added in the UI or API; null for the file's sites. */
  readonly settings: Record<string, unknown> | null;
  readonly pausedAt: Date | null;
  readonly removedAt: Date | null;
  /** The intent set in the UI or API (null: the file's applies). */
  readonly intent: readonly IntentEntry[] | null;
}

/** The settings made in the UI or API for every site, as stored (null: never set). */
export interface SharedSettingsRows {
  /** Crawler presets by name: `{"@shop-bots": ["Googlebot", …]}`. */
  readonly presets: unknown;
  /** The default channels: `{"email": […], "webhooks": [{url, secret?, format?}]}`. */
  readonly channels: unknown;
}

export interface StoredSite {
  readonly id: number;
  readonly origin: string;
  readonly current: CurrentState | null;
  /** Since when robowatch has refused to check it (its address guard), and why; or null. */
  readonly refused: Refusal | null;
  /** How many judgements were written for it (0: never judged, so no incident either). */
  readonly intentVersion?: number;
}

/**
 * What a new state's judgement is decided from, read with the state before it: the
 * site's state against intent and its latest incident, and the count of judgements that
 * says whether another came between.
 */
export interface JudgementBasis {
  readonly version: number;
  readonly state: SiteState | null;
  readonly since: Date | null;
  readonly latest: LatestIncident | null;
}

/**
 * A new state's judgement written in the state's own statement, when its transition
 * needs no alert: the site's state and report, and the incident it opens or updates.
 * Written only if the site's judgements still number `version` (else the state is not
 * recorded either, and the check is made again).
 */
export interface StateJudgement {
  readonly version: number;
  readonly state: SiteState;
  readonly since: Date;
  /** What the judgement depends on besides the file; the key is `${keyPrefix}:${snapshot id}`. */
  readonly keyPrefix: string;
  readonly report: {
    readonly violations: readonly Violation[];
    readonly violationCount: number;
    readonly judged: number;
    readonly reason: string | null;
    /** Said of every cell that differs, when not as intended: the incident's lead too. */
    readonly lead?: string;
  };
  readonly at: Date;
  readonly step:
    { readonly kind: 'none' | 'open' } | { readonly kind: 'update'; readonly id: number };
  /** The incident's site state and causes, for `open` and `update`. */
  readonly siteState: 'cannot-check' | 'not-as-intended' | null;
  readonly causes: readonly string[] | null;
}

/** A new state as recorded: its snapshot, and the incident its judgement opened, if any. */
export interface RecordedState {
  readonly snapshotId: number;
  readonly openedIncidentId: number | null;
}

/** robowatch refusing to check a site: its address guard said no. */
export interface Refusal {
  readonly since: Date;
  /** The cause alerted when it began (what was refused, and why). */
  readonly reason: string;
  /** The last check that was refused. */
  readonly at: Date;
}

/** A check robowatch refused to make, with the alerts that say so when it begins. */
export interface NewRefusal {
  readonly siteId: number;
  readonly at: Date;
  readonly reason: string;
  /** The site's current snapshot (what the alerts link to), or null before any. */
  readonly snapshotId: number | null;
  /** Queued only when the refusal begins (the site's row says whether it does). */
  readonly alerts: readonly AlertDraft[];
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
  /**
   * Its verdicts in their stored form (null: none). Encoded when the state is made, so that
   * the states waiting for their write (a hundred at a time in a check) hold one number a
   * verdict rather than 160 verdict objects each: the young collections copied those over
   * and over, and V8 moved them to the old generation (10.8 KB a state).
   */
  readonly verdicts: VerdictSet | null;
  readonly verdictsKey: string;
  /**
   * Its verdicts are for the URLs and crawlers of the state before's, in their order (the
   * same key, each listed once): those are not written again but taken from its set, if
   * the site's key is still this one when it is written.
   */
  readonly axesAsBefore?: boolean;
  /** The AI crawler registry the crawlers came from (its SHA-256), if any did. */
  readonly registry?: string | null;
  readonly events: readonly ChangeEvent[];
  /** Why it differs from the state before (empty for a baseline). */
  readonly causes: readonly ChangeCause[];
  /** What its body is for crawlers; null without a body. */
  readonly fileCondition: FileCondition | null;
  /** Alerts to queue with it (the outbox), in the same transaction. */
  readonly alerts: readonly AlertDraft[];
  readonly unreachableSince: Date | null;
  readonly check: Omit<CheckRow, 'snapshotId'>;
  /** Its judgement, written with it (absent: judged after it is recorded). */
  readonly judgement?: StateJudgement;
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
  /** `archive`: an Internet Archive capture (robowatch backfill), from before live checks began. */
  readonly source: 'live' | 'archive';
  /** An archived snapshot's URL as the archive captured it; null for live ones. */
  readonly originalUrl: string | null;
  /**
   * The AI crawler registry some of its verdicts' crawlers came from (@ai… presets), so
   * that they can be reproduced; null when none did (or before registries were recorded).
   */
  readonly registry?: RegistryVersion | null;
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

/** Which changes of a site to list. */
export interface ChangeQuery {
  /** One site's changes; every watched site's when absent. */
  readonly siteId?: number;
  /** Only these sites' (a person limited to some tags); every site's when absent. */
  readonly siteIds?: readonly number[];
  /** Only changes with a cause of one of these types (all when empty or absent). */
  readonly types?: readonly ChangeCauseType[];
  readonly beforeId?: number;
  readonly limit: number;
}

/** Which change events to list. */
export interface EventQuery {
  readonly siteId?: number;
  /** Only these sites' (a person limited to some tags); every site's when absent. */
  readonly siteIds?: readonly number[];
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
    /** What its file is (the last good copy's, through an outage); null without one. */
    readonly fileCondition: FileCondition | null;
  } | null;
  /** The most recent change: its snapshot, when, and its causes (or, recorded before causes were, its events). */
  readonly lastChange: StoredChange | null;
  /** Per agent of the current snapshot's verdicts: how many watched URLs it may not fetch. */
  readonly disallowed: readonly { agent: string; disallowed: number; watched: number }[];
  /** When the next check is planned (a run not yet done), if one is. */
  readonly nextDueAt: Date | null;
  /** Its state against its owner's intent as last judged (null: not judged yet). */
  readonly intent: {
    readonly state: SiteState;
    readonly since: Date | null;
    readonly violationCount: number;
    readonly reason: string | null;
    /**
     * What crawlers do now that its owner does not intend, as its alerts lead with it
     * ("/pricing is blocked for Googlebot"), or why it cannot be judged; null when as
     * intended.
     */
    readonly lead: string | null;
  } | null;
  /** robowatch refuses to check it now (its address guard): since when, why; or null. */
  readonly refused: { readonly since: Date; readonly reason: string } | null;
}

/** A notification channel whose messages are failing: retried, and shown until they go. */
export interface FailingChannel {
  readonly channel: 'email' | 'webhook';
  /** A webhook's URL (it may hold a secret: show it redacted); null for email (its server). */
  readonly destination: string | null;
  /** When the oldest waiting notification was queued. */
  readonly since: Date;
  /** How many notifications wait. */
  readonly waiting: number;
  /** Why the latest attempt failed. */
  readonly error: string;
}

/** One crawler over every site: on how many it is blocked from every, some, or no watched URL. */
export interface CrawlerCounts {
  readonly agent: string;
  readonly blocked: number;
  readonly partly: number;
  readonly allowed: number;
}

/** A group of crawlers (an AI purpose, an operator) across sites: see loadGroupCounts. */
export interface GroupCounts {
  readonly name: string;
  readonly blocked: number;
  readonly partly: number;
  readonly allowed: number;
}

/**
 * Where every site stands, for the overview's counts, state filter and order: the sites
 * grouped by their current state's standing (a few groups for 100,000 sites), and those
 * whose state newly blocked a watched URL lately.
 */
export interface SiteStandings {
  readonly groups: readonly {
    /** The current state; null before the first check. */
    readonly current: {
      readonly status: number | null;
      readonly error: FetchErrorKind | null;
      readonly stale: boolean;
      readonly fileCondition: FileCondition | null;
    } | null;
    /** Whether a watched crawler may not fetch a watched URL now. */
    readonly blocking: boolean;
    /** Its state against its owner's intent (null: not judged yet). */
    readonly intent: SiteState | null;
    readonly ids: readonly number[];
  }[];
  /** Sites with a state first seen since the time asked that newly blocked a watched URL. */
  readonly newBlocks: ReadonlySet<number>;
  /** Sites robowatch refuses to check now (its address guard). */
  readonly refused: ReadonlySet<number>;
}

/** A new state of a site, with why it differs from the one before. */
export interface StoredChange {
  /** Whose change it is (read by the lists of every site's changes). */
  readonly siteId?: number;
  readonly snapshotId: number;
  readonly previousId: number | null;
  readonly at: Date;
  /** `archive`: between two Internet Archive captures (never alerted). */
  readonly source?: 'live' | 'archive';
  /** Null for a state recorded before robowatch explained changes (see `events`). */
  readonly causes: readonly ChangeCause[] | null;
  readonly events: readonly ChangeEvent[];
}

/** One (watch, agent)'s verdict in one snapshot of a site. */
export interface VerdictAt {
  readonly snapshotId: number;
  readonly firstSeen: Date;
  readonly allowed: boolean;
  readonly cause: VerdictCause | null;
  readonly profile: string;
}

/** A digest as recorded: the rendered email, kept for the web UI and sent from there. */
export interface DigestRecord {
  /** An email address, or a webhook's label (its URL without what may be secret). */
  readonly recipient: string;
  readonly periodStart: Date;
  readonly periodEnd: Date;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** A recorded digest with its structured form (what webhooks receive). */
export interface RecordedDigest extends DigestRecord {
  /** Null for digests recorded before robowatch kept it. */
  readonly data: unknown;
}

/** Where a recorded digest is sent. */
export type DigestDelivery =
  | { readonly channel: 'email'; readonly to: string }
  | { readonly channel: 'webhook'; readonly url: string; readonly format: WebhookFormat };

/** What a digest is built from, for one site and one period. */
export interface SitePeriod {
  /** Its new states in the period (baselines aside), oldest first. */
  readonly changes: DigestChange[];
  readonly checks: {
    at: Date;
    fetch: { status: number | null; error: FetchErrorKind | null };
    stale: boolean;
    /** What the file it found is for crawlers; null without a body. */
    fileCondition: FileCondition | null;
  }[];
  readonly verdicts: readonly WatchVerdict[];
  /** The last good copy of the file (what applies now), if any. */
  readonly body: Uint8Array | null;
  /** Its current state; null before its first check. */
  readonly now: DigestNow | null;
  /** Each crawler's allowed sitemap URLs at the period's start and now (null: none computed). */
  readonly coverage: { start: CoverageAt | null; end: CoverageAt | null };
  /** robowatch refuses to check it now (its address guard), since when and why; or null. */
  readonly refused: { readonly since: Date; readonly reason: string } | null;
  /** Its state against its owner's intent as last judged; null before its first judgement. */
  readonly intent: DigestIntent | null;
  /** Its incidents resolved in the period (and not open again), oldest first. */
  readonly recovered: RecoveredIncident[];
}

/** One check of a snapshot, as its page lists them. */
export interface CheckSeen {
  readonly checkedAt: Date;
  readonly durationMs: number;
  readonly transient: string | null;
}

/**
 * When a site's current trouble began, for recoveries: the first state after its last
 * ok one (`access`), and the first 2xx state after its last robots.txt file (`file`);
 * null when there was no such state before (the site was never ok).
 */
export interface IncidentStart {
  readonly access: Date | null;
  readonly file: Date | null;
}

/** A sitemap file as read last time: its validators and what it listed. */
export interface KnownSitemap {
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly format: SitemapFormat;
  /** Page URLs (a urlset, feed or text file) or sitemaps (an index), as listed. */
  readonly entries: readonly string[];
}

/** A sitemap file to remember after a discovery (one read whole, or unchanged). */
export interface SitemapFileRecord extends KnownSitemap {
  readonly url: string;
}

/** A site's URL set as stored: its paths, and how it came about. */
export interface StoredUrlSet {
  readonly id: number;
  readonly sha256: string;
  readonly paths: readonly string[];
  readonly firstSeenAt: Date;
  readonly lastSeenAt: Date;
  readonly added: number;
  readonly removed: number;
  readonly report: UrlSetReport;
}

/** What a refresh of a site's URL set read, and what was wrong. */
export interface UrlSetReport {
  readonly otherOrigins: number;
  readonly overCap: number;
  readonly problems: readonly string[];
  readonly files: readonly {
    readonly url: string;
    readonly depth: number;
    readonly status: number | null;
    readonly format: SitemapFormat | null;
    readonly entries: number;
    readonly notModified: boolean;
    readonly problems: readonly string[];
  }[];
}

/** A site's coverage as stored: for a snapshot over a URL set. */
export interface StoredCoverage {
  readonly snapshotId: number;
  readonly urlSetId: number;
  readonly computedAt: Date;
  readonly coverage: Coverage;
}

/** A snapshot's coverage in a site's history: when, the set's size, each crawler's allowed URLs. */
export interface CoveragePoint {
  readonly at: Date;
  readonly urls: number;
  readonly allowed: Readonly<Record<string, number>>;
}

/** An AI crawler registry as recorded: its version and its JSON. */
export interface StoredRegistry {
  readonly id: number;
  readonly version: RegistryVersion;
  readonly content: Uint8Array;
  readonly recordedAt: Date;
}

/** What one site makes of a registry update, and the alerts it sends. */
export interface RegistryFindingDraft {
  readonly siteId: number;
  /** The site's current snapshot (the alerts link to it). */
  readonly snapshotId: number;
  readonly cause: RegistryCause;
  readonly alerts: readonly AlertDraft[];
}

/** A registry to record as the one in use, with its findings. */
export interface RegistryUpdateRecord {
  readonly version: RegistryVersion;
  readonly content: Uint8Array;
  readonly findings: readonly RegistryFindingDraft[];
  readonly now: Date;
}

/** A registry update's finding for a site, as the digest reads it. */
export interface RegistryFinding {
  readonly siteId: number;
  readonly cause: RegistryCause;
  readonly at: Date;
}

/** A site judged against its intent, to record with the incident it opens, changes or resolves. */
export interface NewJudgement {
  readonly siteId: number;
  /** The state judged; null when robowatch refused to check the site (its state stays). */
  readonly snapshotId: number | null;
  /** What it was judged for (null: judge again at the next check). */
  readonly key: string | null;
  readonly evaluation: IntentEvaluation;
  readonly at: Date;
  /** A relapse within this long of a resolution reopens the incident. */
  readonly flapWindowMs: number;
  /**
   * Who hears of the incident's transitions (when its topics include `incidents`), and
   * what changed in robots.txt at the check that judged it, in words.
   */
  readonly alerts?: {
    readonly site: { readonly origin: string; readonly name: string | null };
    readonly targets: AlertTargets;
    readonly changes: readonly string[];
  };
}

/** What recording a judgement did to the site's incidents. */
export interface JudgementRecorded {
  readonly step: IncidentStep['kind'];
  /** The incident opened, changed or resolved; null for `none`. */
  readonly incidentId: number | null;
  readonly worse: boolean;
}

/** An incident as a list of them shows it: its line, without its cells. */
export interface IncidentHead {
  readonly id: number;
  readonly siteId: number;
  readonly origin: string;
  readonly state: 'open' | 'resolved';
  readonly siteState: 'not-as-intended' | 'cannot-check';
  readonly openedAt: Date;
  readonly resolvedAt: Date | null;
  readonly causes: readonly string[];
  readonly violationCount: number;
  /**
   * While open, the incident in a phrase as its alerts' subject says it ("/pricing is
   * blocked for Googlebot"), or what crawlers do while it cannot be judged; null once
   * resolved.
   */
  readonly lead: string | null;
  readonly worstCount: number;
  readonly reopened: number;
  readonly acknowledgedAt: Date | null;
  readonly acknowledgedBy: string | null;
  readonly note: string | null;
}

/** An incident as its page and the API show it: with the cells that differ. */
export interface IncidentRecord extends IncidentHead {
  readonly violations: readonly Violation[];
  /** Past the cells kept, every differing cell as one block, when they make one. */
  readonly grid: ViolationGrid | null;
}

/** Which incidents a list shows. */
export interface IncidentQuery {
  readonly siteId?: number;
  /** Only these sites' (a person limited to some tags); every site's when absent. */
  readonly siteIds?: readonly number[];
  readonly state?: 'open' | 'resolved';
  /** Only those older than this incident (the last id of the page before). */
  readonly before?: number;
  readonly limit: number;
}

/** A site's state against its intent, as stored with it. */
export interface StoredJudgement {
  readonly state: SiteState;
  readonly since: Date | null;
  readonly violations: readonly Violation[];
  readonly violationCount: number;
  readonly judged: number;
  readonly reason: string | null;
  /** Past the cells kept, every differing cell as one block, when they make one. */
  readonly grid?: ViolationGrid;
}

/** Which entries of the alert log to read. */
export interface AlertLogQuery {
  readonly siteId?: number;
  /** Only these sites' (a person limited to some tags); every site's when absent. */
  readonly siteIds?: readonly number[];
  readonly channel?: 'email' | 'webhook';
  /** Entries with a delivery in this state. */
  readonly state?: 'queued' | 'sent' | 'failed';
  /** One entry, by the id of its first delivery. */
  readonly id?: number;
  /** Entries older than this id (paging, newest first). */
  readonly before?: number;
  readonly limit: number;
}

/** One delivery of a notification: where it went, and how that went. */
export interface AlertLogDelivery extends Pick<
  Delivery,
  'id' | 'key' | 'channel' | 'destination' | 'payload' | 'attempts'
> {
  readonly sentAt: Date | null;
  readonly nextAttemptAt: Date;
  /** The receiver's last refusal, while it fails. */
  readonly error: string | null;
}

/** One notification in the alert log: an alert, an incident alert or a digest. */
export interface AlertLogEntry {
  /** The id of its first delivery. */
  readonly id: number;
  readonly siteId: number | null;
  readonly origin: string | null;
  readonly createdAt: Date;
  readonly payload: OutboxPayload;
  /** For a digest: its subject as recorded. */
  readonly digestSubject: string | null;
  readonly deliveries: readonly AlertLogDelivery[];
}

/** What a delivery said: its subject, and the email's parts or the webhook's body. */
export interface RenderedDelivery {
  readonly subject: string;
  readonly email?: { readonly text: string; readonly html: string };
  readonly body?: string;
}
