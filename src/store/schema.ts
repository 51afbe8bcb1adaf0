/**
 * The database schema. Migrations in migrations/ are generated from this file by
 * drizzle-kit (`npm run db:generate`) and never edited once landed.
 *
 * Growth is designed around the common case: a re-check that sees nothing new writes
 * one `checks` row of a few dozen bytes; bodies are stored once by SHA-256; verdicts
 * are stored per snapshot, so verdict history is a query.
 */
import type { RegistryCause } from '../policy/registry-update.js';
import { sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';
import type { ChangeCause } from '../policy/changes/cause-model.js';
import type { Coverage } from '../policy/coverage.js';
import type { ChangeEvent } from '../policy/changes/events.js';
import type { FileCondition } from '../policy/file-condition.js';
import type { IntentEntry, SiteState, Violation, ViolationGrid } from '../policy/intent.js';
import type { FetchErrorKind, RedirectHop } from '../policy/fetch-result.js';
import type { VerdictCause } from '../policy/verdicts.js';
import type { Role, Scope } from '../policy/access-roles.js';

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
  fromDriver: (value) => new Uint8Array(value),
});

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Change event types few changes have, each with an index of the states that have it
 * (listEvents reads them by it).
 */
const RARE_EVENT_TYPES = [
  'fetch_status_changed',
  'sitemaps_changed',
  'newly_allowed',
] as const satisfies readonly ChangeEvent['type'][];

/** A watched origin. */
export const sites = pgTable('sites', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  origin: text('origin').notNull().unique(),
  createdAt: at('created_at').notNull().defaultNow(),
  /** The state the site is in now. */
  currentSnapshotId: bigint('current_snapshot_id', { mode: 'number' }).references(
    (): AnyPgColumn => snapshots.id,
  ),
  /** Hash of the watches × agents the current snapshot's verdicts were computed for. */
  verdictsKey: text('verdicts_key'),
  /** When the current run of unreachability began (Google's 30-day rule). */
  unreachableSince: at('unreachable_since'),
  /**
   * A site added in the UI or API: its settings as the configuration file writes a site
   * (without url). Null for the file's sites, whose settings are the file's.
   */
  settings: jsonb('settings').$type<Record<string, unknown>>(),
  /** Paused (not checked) since then; null: checked on its schedule. */
  pausedAt: at('paused_at'),
  /** Removed in the UI or API then (its history is kept); null: watched. */
  removedAt: at('removed_at'),
  /**
   * Where the current state stands, kept with it (store/snapshots.ts writes them when the
   * current snapshot changes) so that the overview reads every site's standing from this
   * table alone: its status or error, whether it is stale, what its last good body is, and
   * whether a watched crawler may not fetch a watched URL.
   */
  currentStatus: integer('current_status'),
  currentError: text('current_error'),
  currentStale: boolean('current_stale'),
  currentFileCondition: text('current_file_condition').$type<FileCondition>(),
  blocking: boolean('blocking').notNull().default(false),
  /**
   * Since when robowatch has refused to check the site (its address guard: the host
   * resolves to a private or reserved address), why, and when it last tried; null once a
   * check is made again. Not a state of the site: its current snapshot stays as it was.
   */
  refusedSince: at('refused_since'),
  refusedReason: text('refused_reason'),
  refusedAt: at('refused_at'),
  /**
   * What the owner intends, as set in the UI or API (policy/intent.ts entries); null: the
   * file's (its site entry's, else its top-level intent, else the built-in rule).
   */
  intent: jsonb('intent').$type<IntentEntry[]>(),
  /**
   * The current state judged against the intent, kept with it (written with each
   * evaluation) so that the overview sorts every site by it from this table alone; null
   * until the site is first judged.
   */
  intentState: text('intent_state').$type<SiteState>(),
  /** Since when the site has been in that state. */
  intentSince: at('intent_since'),
  /**
   * What the state was judged for (the verdicts' watches and crawlers, and the intent's
   * rules): a check that finds it differs judges the site again; null after a refusal.
   */
  intentKey: text('intent_key'),
  /**
   * Counts the judgements written for the site: a check that judged a new state from what
   * it read writes it with the state only if no other judgement came between (the state's
   * statement sees other tables as they were when it started, not after a lock it waited
   * for). 0: never judged, so no incident either.
   */
  intentVersion: integer('intent_version').notNull().default(0),
  /**
   * The cells that differ (at most 200), how many there are, why it cannot be checked, and,
   * past 200 cells that make one block, that block (what its alerts and digest say whole),
   * and, not as intended, what crawlers do against the intent in a phrase.
   */
  intentReport: jsonb('intent_report').$type<{
    violations: Violation[];
    violationCount: number;
    judged: number;
    reason: string | null;
    grid?: ViolationGrid;
    /** What crawlers do against the intent, in a phrase (written since it was added). */
    lead?: string;
  }>(),
});

/**
 * An episode of a site not being as its owner intends (DESIGN.md: "incident"): opened
 * when it leaves `as-intended`, resolved when it is back; a relapse within the flap
 * window reopens the same row. Its alerts are its transitions.
 */
export const incidents = pgTable(
  'incidents',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    state: text('state').$type<'open' | 'resolved'>().notNull(),
    openedAt: at('opened_at').notNull(),
    resolvedAt: at('resolved_at'),
    /** The site's state against intent now (while open) or last (once resolved). */
    siteState: text('site_state').$type<Exclude<SiteState, 'as-intended'>>().notNull(),
    /** Why, in the words people read: the rules that decide the cells that differ, or the reason it cannot be checked. */
    causes: jsonb('causes').$type<string[]>().notNull(),
    /** The cells that differ now (at most 200) and how many there are. */
    violations: jsonb('violations').$type<Violation[]>().notNull(),
    violationCount: integer('violation_count').notNull(),
    /**
     * Past the 200 cells kept, every differing cell as one block when they make one (a
     * file that shuts the search engines out of 40 pages): its reminders say it whole.
     */
    grid: jsonb('grid').$type<ViolationGrid>(),
    /**
     * While open, the incident in a phrase as its alerts' subject says it ("/pricing is
     * blocked for Googlebot"), written with its cells so that a list of incidents reads
     * this line, not every incident's 200 cells; null once resolved, and in rows written
     * before it was kept (read from their cells then). A change to the phrase's wording
     * clears it for open incidents in a migration of its own.
     */
    lead: text('lead'),
    /** The most cells that differed at once during the incident. */
    worstCount: integer('worst_count').notNull(),
    /** How many times it came back within the flap window after it resolved. */
    reopened: integer('reopened').notNull().default(0),
    acknowledgedAt: at('acknowledged_at'),
    acknowledgedBy: text('acknowledged_by'),
    note: text('note'),
    /** When its last notification (open, worse, reminder) was queued. */
    notifiedAt: at('notified_at'),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [index('incidents_site_idx').on(t.siteId, t.id), index('incidents_open_idx').on(t.state)],
);

/** A robots.txt body, stored once. */
export const bodies = pgTable('bodies', {
  sha256: text('sha256').primaryKey(),
  content: bytea('content').notNull(),
  size: integer('size').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});

/** One distinct consecutive state of a site's robots.txt. */
export const snapshots = pgTable(
  'snapshots',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    /** The state before this one. */
    previousId: bigint('previous_id', { mode: 'number' }).references(
      (): AnyPgColumn => snapshots.id,
    ),
    status: integer('status'),
    error: text('error'),
    errorDetail: text('error_detail'),
    /** Only for 2xx: what else a server answers is not robots.txt. */
    bodySha256: text('body_sha256').references(() => bodies.sha256),
    truncated: boolean('truncated').notNull().default(false),
    /** Bytes dropped past the limit, and the line breaks among them (for the lint finding). */
    droppedBytes: integer('dropped_bytes'),
    droppedLineBreaks: integer('dropped_line_breaks'),
    droppedComplete: boolean('dropped_complete'),
    redirects: jsonb('redirects')
      .$type<RedirectHop[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    finalUrl: text('final_url').notNull(),
    /** Unreachable for 30 days or more: the last good copy applies (Google, RFC 9309). */
    stale: boolean('stale').notNull().default(false),
    /** The last snapshot up to this one that had a body (itself if it has one). */
    lastGoodId: bigint('last_good_id', { mode: 'number' }).references(
      (): AnyPgColumn => snapshots.id,
    ),
    firstSeenAt: at('first_seen_at').notNull(),
    /** What its body is for crawlers: robots, cut, html, utf16, binary; null without one. */
    fileCondition: text('file_condition').$type<FileCondition>(),
    /**
     * Why it differs from the snapshot before it, as people read it (policy/changes/causes.ts);
     * empty for a baseline, null for snapshots recorded before causes were.
     */
    causes: jsonb('causes').$type<ChangeCause[]>(),
    /**
     * The change events against the snapshot before, in order (policy/changes/events.ts),
     * as one JSON text (PostgreSQL keeps it as written, no tree built on the way in: a
     * changed check writes them and people rarely read them); null when there are none.
     */
    events: json('events').$type<ChangeEvent[]>(),
    /** The types among those events, for reading them by type without their text. */
    eventTypes: text('event_types').array().$type<ChangeEvent['type'][]>(),
    /**
     * How many checks saw this state, and the last one's time: kept with each check write
     * so that pages never count a site's checks (ten years of hourly checks is 87,600).
     */
    checkCount: integer('check_count').notNull().default(0),
    lastCheckedAt: at('last_checked_at'),
    /**
     * Whether this state newly blocked a watched URL for a watched crawler (one of its
     * causes flipped a pair to disallowed): kept by PostgreSQL, for the overview's
     * "newly blocked this week" over every site in one index scan.
     */
    /**
     * `live`: seen by robowatch's own checks, the chain the site's current state ends; or
     * `archive`: a capture of the Internet Archive (robowatch backfill), in a chain of its
     * own before the live one, its first_seen_at the capture time: never alerted, never
     * the site's current state.
     */
    source: text('source').$type<'live' | 'archive'>().notNull().default('live'),
    /** An archived snapshot's URL as the archive captured it (null for live ones). */
    originalUrl: text('original_url'),
    newlyBlocked: boolean('newly_blocked').generatedAlwaysAs(
      sql`COALESCE(jsonb_path_exists(causes, '$[*].pairs[*] ? (@.flipped == true && @.allowed == false)'), false)`,
    ),
  },
  (t) => [
    index('snapshots_site_idx').on(t.siteId, t.id),
    index('snapshots_newly_blocked_idx')
      .on(t.firstSeenAt)
      .where(sql`newly_blocked`),
    // The events feed by a type that few changes have (an outage, a sitemap, a page let in
    // again): its states newest first, without reading every state before the first one
    // that has it (a million states: 0.8 s a page, 1 ms with the index). Types most changes
    // have (rules_changed, newly_disallowed) are found as soon by the states' own order.
    ...RARE_EVENT_TYPES.map((type) =>
      index(`snapshots_${type}_idx`)
        .on(t.id)
        .where(sql.raw(`event_types @> '{${type}}'::text[]`)),
    ),
  ],
);

/**
 * Each Internet Archive capture of a site's robots.txt robowatch has read (robowatch
 * backfill): what it said, so that a run fetches nothing it has and the site's archived
 * snapshots are made again from them. `skipped` says why a capture was left out of the
 * history (an archived redirect whose target the archive lacks).
 */
export const archiveCaptures = pgTable(
  'archive_captures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    /** The archive's capture time, YYYYMMDDhhmmss (UTC), as its URLs name it. */
    timestamp: text('timestamp').notNull(),
    capturedAt: at('captured_at').notNull(),
    originalUrl: text('original_url').notNull(),
    status: integer('status'),
    error: text('error').$type<FetchErrorKind>(),
    errorDetail: text('error_detail'),
    redirects: jsonb('redirects')
      .$type<RedirectHop[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    finalUrl: text('final_url').notNull(),
    bodySha256: text('body_sha256').references(() => bodies.sha256),
    /** The body went on past 500 KiB (the rest was not read). */
    truncated: boolean('truncated').notNull().default(false),
    skipped: text('skipped'),
    fetchedAt: at('fetched_at').notNull(),
  },
  (t) => [unique('archive_captures_site_timestamp_key').on(t.siteId, t.timestamp)],
);

/** One fetch of one site, recorded even when nothing changed. */
export const checks = pgTable(
  'checks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    snapshotId: bigint('snapshot_id', { mode: 'number' })
      .notNull()
      .references(() => snapshots.id),
    checkedAt: at('checked_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** A failure seen and not confirmed on retry ("503", "timeout"): a blip, not a change. */
    transient: text('transient'),
  },
  (t) => [
    index('checks_snapshot_idx').on(t.snapshotId, t.checkedAt),
    // The latest check of any site (the health check's "last check completed").
    index('checks_checked_at_idx').on(t.checkedAt),
  ],
);

/**
 * A snapshot's verdicts as one compact row: its distinct URLs, agents (with their
 * profiles) and causes, and per (URL, agent) cell, in URL-major order, the cause's index
 * (0: no cause, k: causes[k-1]) times two plus 1 if allowed, or -1 for no verdict. A
 * site's 160 verdicts are one row of about 2 KB instead of 160 rows of 250 B; `counts` is
 * what the overview shows (per agent: watched URLs disallowed, of how many).
 */
export const verdictSets = pgTable('verdict_sets', {
  snapshotId: bigint('snapshot_id', { mode: 'number' })
    .primaryKey()
    .references(() => snapshots.id),
  urls: text('urls').array().notNull(),
  agents: text('agents').array().notNull(),
  profiles: text('profiles').array().notNull(),
  causes: jsonb('causes').$type<VerdictCause[]>().notNull(),
  cells: integer('cells').array().notNull(),
  counts: jsonb('counts')
    .$type<{ agent: string; disallowed: number; watched: number }[]>()
    .notNull(),
  /**
   * The AI crawler registry (registry_versions.sha256) the site's crawlers came from, when
   * some came from its presets (@ai…): with it, the verdicts can be reproduced.
   */
  registrySha256: text('registry_sha256'),
});

/** Each AI crawler registry robowatch has used: the shipped copy, and each refresh that changed it. */
export const registryVersions = pgTable('registry_versions', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  sha256: text('sha256').notNull().unique(),
  /** `shipped`, or the URL it was fetched from. */
  source: text('source').notNull(),
  /** The shipped copy's date, or when it was fetched (ISO 8601). */
  date: text('date').notNull(),
  agents: integer('agents').notNull(),
  /** The registry's JSON as read, so that an old verdict's registry can be read again. */
  content: bytea('content').notNull(),
  recordedAt: at('recorded_at').notNull(),
});

/** What a registry update meant for each site (policy/registry-update.ts), for digests and pages. */
export const registryFindings = pgTable(
  'registry_findings',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    versionId: integer('version_id')
      .notNull()
      .references(() => registryVersions.id),
    cause: jsonb('cause').$type<RegistryCause>().notNull(),
    createdAt: at('created_at').notNull(),
  },
  (t) => [index('registry_findings_site_idx').on(t.siteId, t.createdAt)],
);

/** A digest as sent: one per recipient and period, kept for the web UI. */
export const digests = pgTable(
  'digests',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    recipient: text('recipient').notNull(),
    periodStart: at('period_start').notNull(),
    periodEnd: at('period_end').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    /** The digest as structured data, for webhooks (null for digests recorded before). */
    data: jsonb('data'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [unique('digests_recipient_period_key').on(t.recipient, t.periodStart)],
);

/**
 * Notifications to deliver, written in the transaction that decides them (a new snapshot,
 * a digest), each with its delivery job when the daemon writes it. The daemon's delivery
 * job (or a one-shot command's lease) takes a row, sends it, and marks it sent; a failure
 * is retried later, with backoff, by the job of its next attempt. `key` identifies the notification to its receiver (the
 * email's Message-ID, a webhook header) so that a resend after a crash can be recognised.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    key: text('key').notNull().unique(),
    channel: text('channel').$type<'email' | 'webhook'>().notNull(),
    /** Recipients of an email (comma-separated), or a webhook's URL. */
    destination: text('destination').notNull(),
    /** What to send: { site, events, format? } for an alert, { digestId } for a digest. */
    payload: jsonb('payload').notNull(),
    siteId: integer('site_id').references(() => sites.id),
    snapshotId: bigint('snapshot_id', { mode: 'number' }).references(() => snapshots.id),
    createdAt: at('created_at').notNull(),
    nextAttemptAt: at('next_attempt_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    sentAt: at('sent_at'),
    lastError: text('last_error'),
  },
  (t) => [
    index('outbox_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`sent_at IS NULL`),
    // The alert log of one site, and one entry's deliveries (which share their creation
    // time) found without reading the whole outbox: 90 days of a large fleet's alerts.
    index('outbox_site_idx').on(t.siteId, t.id),
    index('outbox_created_idx').on(t.createdAt),
  ],
);

/**
 * Settings made in the UI or API that apply across sites, one JSON document per key:
 * `presets` (crawler presets by name: their product tokens) and `channels` (the default
 * alert recipients and webhooks, added to the configuration file's).
 */
export const sharedSettings = pgTable('shared_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

/**
 * How many times the site catalogue changed: one row (id 1), counted up by a trigger at
 * the commit of every transaction that adds a site or changes what the catalogue reads
 * (a site's origin, settings, pause, removal or intent; the shared settings). A daemon
 * looks at it every upkeep round and reads the catalogue again only when it moved: the
 * read it replaced scanned the whole `sites` table every 15 s (5 ms of the server's CPU
 * at 3,000 sites, growing with the fleet). The trigger is in the migration
 * (0023_catalog_version.sql), which drizzle's schema cannot express.
 */
export const catalogVersion = pgTable('catalog_version', {
  id: integer('id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
  /** The transaction that last counted (one count per transaction, however many rows). */
  xact: bigint('xact', { mode: 'number' }),
});

/**
 * Lists of lines stored once by SHA-256 of their text: a site's URL set (its sorted
 * paths) or what one sitemap file listed. Gzipped: 100,000 paths are a few hundred KB.
 */
export const urlLists = pgTable('url_lists', {
  sha256: text('sha256').primaryKey(),
  count: integer('count').notNull(),
  /** The lines joined by "\n", gzipped. */
  data: bytea('data').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});

/** A site's URL set over time: a row each time it changes, with how it came about. */
export const urlSets = pgTable(
  'url_sets',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    listSha256: text('list_sha256')
      .notNull()
      .references(() => urlLists.sha256),
    firstSeenAt: at('first_seen_at').notNull(),
    lastSeenAt: at('last_seen_at').notNull(),
    /** Paths since the set before (all of them for the first). */
    added: integer('added').notNull(),
    removed: integer('removed').notNull(),
    /** The sitemaps read and what was wrong, as of the last refresh. */
    report: jsonb('report').notNull(),
  },
  (t) => [index('url_sets_site_idx').on(t.siteId, t.id)],
);

/** Each sitemap file of a site as last read: its validators and what it listed. */
export const sitemapFiles = pgTable(
  'sitemap_files',
  {
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    url: text('url').notNull(),
    etag: text('etag'),
    lastModified: text('last_modified'),
    format: text('format').notNull(),
    listSha256: text('list_sha256')
      .notNull()
      .references(() => urlLists.sha256),
    fetchedAt: at('fetched_at').notNull(),
  },
  (t) => [unique('sitemap_files_site_url').on(t.siteId, t.url)],
);

/** Coverage of a snapshot over a URL set, for the crawlers it was computed for. */
export const coverage = pgTable(
  'coverage',
  {
    snapshotId: bigint('snapshot_id', { mode: 'number' })
      .notNull()
      .references(() => snapshots.id),
    urlSetId: bigint('url_set_id', { mode: 'number' })
      .notNull()
      .references(() => urlSets.id),
    /** The crawlers (and profiles) it was computed for. */
    agentsKey: text('agents_key').notNull(),
    computedAt: at('computed_at').notNull(),
    data: jsonb('data').$type<Coverage>().notNull(),
  },
  (t) => [unique('coverage_key').on(t.snapshotId, t.urlSetId, t.agentsKey)],
);

/**
 * A person who signs in (DESIGN.md: "user"): a role, and optionally only the sites with
 * some tags. Signs in with a password (its scrypt hash), or by single sign-on (the
 * OpenID Connect issuer and subject it was made for), or both.
 */
export const users = pgTable(
  'users',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull().unique(),
    role: text('role').$type<Role>().notNull(),
    /** Only the sites with one of these tags; empty: every site. */
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    /** `scrypt$N$r$p$salt$hash` (lib/passwords.ts); null: single sign-on only. */
    passwordHash: text('password_hash'),
    oidcIssuer: text('oidc_issuer'),
    oidcSubject: text('oidc_subject'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [unique('users_oidc').on(t.oidcIssuer, t.oidcSubject)],
);

/**
 * A signed-in browser: the SHA-256 of its cookie's secret (the secret is never stored),
 * until it expires or is signed out. Removing a user removes its sessions.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    lastSeenAt: at('last_seen_at').notNull(),
    /** How it signed in: `password` or `oidc`. */
    method: text('method').notNull(),
    address: text('address'),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/**
 * A user's API key: its SHA-256 (the key, 32 random bytes, is shown once and never
 * stored), a scope no wider than the user's role, an optional expiry, its last use.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scope: text('scope').$type<Scope>().notNull(),
    hash: text('hash').notNull().unique(),
    /** The key's first characters, to tell keys apart in lists. */
    prefix: text('prefix').notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at'),
    lastUsedAt: at('last_used_at'),
    revokedAt: at('revoked_at'),
  },
  (t) => [index('api_keys_user_idx').on(t.userId)],
);

/** Sign-in attempts, to slow down guessing: by name and by address, over a window. */
export const signInAttempts = pgTable(
  'sign_in_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: at('at').notNull(),
    name: text('name').notNull(),
    address: text('address').notNull(),
    ok: boolean('ok').notNull(),
  },
  (t) => [
    index('sign_in_attempts_name_idx').on(t.name, t.at),
    index('sign_in_attempts_address_idx').on(t.address, t.at),
  ],
);

/**
 * Every change a person or key made (DESIGN.md: "audit log"): who, how they were signed
 * in, from where, what, on which site, and the values before and after (secrets masked).
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: at('at').notNull(),
    /** The user's name, `web.token`, or `robowatch` (a command on this machine). */
    actor: text('actor').notNull(),
    userId: integer('user_id'),
    /** `session`, `key` (and its name), `token`, `local`, `cli`. */
    via: text('via').notNull(),
    address: text('address'),
    action: text('action').notNull(),
    siteId: integer('site_id'),
    /** What it acted on, in words: a site's origin, a user's name, a preset's. */
    target: text('target'),
    before: jsonb('before'),
    after: jsonb('after'),
  },
  (t) => [
    index('audit_log_site_idx').on(t.siteId, t.id),
    index('audit_log_actor_idx').on(t.actor, t.id),
    index('audit_log_at_idx').on(t.at),
  ],
);
