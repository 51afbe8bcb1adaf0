/**
 * Sites as documents: the list (where each stands), one site with its settings, what
 * adding many answers, its history from the Internet Archive, and a check's outcome.
 */
import { z } from 'zod';
import { redactUrl } from '../../lib/redact.js';
import { ALERTED_CELLS } from '../../policy/incident-alerts.js';
import { siteAccess } from '../../policy/verdicts.js';
import type { CatalogEntry } from '../sites/entries.js';
import type { Refusal, SnapshotSummary, StoredJudgement } from '../records.js';
import { IntentStateDocument, intentStateDocument, ViolationDocument } from './intent.js';
import type { ArchiveSummary } from '../records-archive.js';
import type { OverviewRow } from '../views/overview.js';
import { profileOf } from '../views/site.js';
import type { SiteRef } from '../views/site.js';
import {
  Access,
  CauseDocument,
  EventDocument,
  FetchError,
  FetchStatusDocument,
  Id,
  LintFindingDocument,
  list,
  Next,
  Timestamp,
} from './common.js';
import { SnapshotDocument, snapshotDocument } from './history.js';

export { outcomeDocument } from './outcome.js';

const Profile = z.enum(['google', 'rfc9309', 'legacy']);

/** robowatch cannot check the site (its address guard): since when, and why. */
const RefusalDocument = z.object({ since: Timestamp, reason: z.string() });

/** A site in the list: where it stands now, its last change, what its crawlers may fetch. */
export const SiteRowDocument = z
  .object({
    id: Id,
    origin: z.string(),
    name: z.string().nullable(),
    tags: list(z.string()),
    managedBy: z.enum(['file', 'api']),
    paused: z.boolean(),
    agents: list(z.string()),
    profile: Profile,
    access: Access.nullable(),
    condition: z
      .string()
      .meta({ description: 'ok, unavailable, unreachable, not-robots, cut, none, refused' }),
    status: z.number().int().nullable(),
    error: FetchError.nullable(),
    fileCondition: z.string().nullable(),
    lastCheckedAt: Timestamp.nullable(),
    currentSnapshotId: Id.nullable(),
    nextCheckAt: Timestamp,
    lastChange: z
      .object({ at: Timestamp, snapshotId: Id, summary: z.string(), more: z.number().int() })
      .nullable(),
    disallowed: list(
      z.object({ agent: z.string(), disallowed: z.number().int(), watched: z.number().int() }),
    ),
    refused: RefusalDocument.nullable(),
    intent: z
      .object({
        state: z.enum(['as-intended', 'not-as-intended', 'cannot-check']),
        since: Timestamp.nullable(),
        violationCount: z.number().int(),
        reason: z.string().nullable(),
        lead: z.string().nullable().meta({
          description:
            'what crawlers do that its owner does not intend, as its alerts lead with it ("/pricing is blocked for Googlebot"), or why it cannot be judged; null when as intended',
        }),
      })
      .nullable()
      .meta({ description: 'its state against what its owner intends; null: not judged yet' }),
  })
  .meta({ id: 'SiteRow' });

export function siteRowDocument(row: OverviewRow, pausedAt: Date | null) {
  const current = row.overview.current;
  return {
    id: row.id,
    origin: row.site.origin,
    name: row.site.name,
    tags: row.site.tags,
    managedBy: row.site.managedBy,
    paused: pausedAt !== null,
    agents: row.site.agents.map((a) => a.token),
    profile: row.site.profile,
    access:
      current === null
        ? null
        : siteAccess({ fetch: current, stale: current.stale }, row.site.profile),
    condition: row.condition,
    status: current?.status ?? null,
    error: current?.error ?? null,
    fileCondition: current?.fileCondition ?? null,
    lastCheckedAt: current?.lastSeen ?? null,
    currentSnapshotId: current?.id ?? null,
    nextCheckAt: row.nextCheckAt,
    lastChange:
      row.lastChange === null
        ? null
        : {
            at: row.lastChange.at,
            snapshotId: row.lastChange.snapshotId,
            summary: row.lastChange.headline,
            more: row.lastChange.more,
          },
    disallowed: row.overview.disallowed,
    refused: row.overview.refused,
    intent: row.overview.intent,
  };
}

export const SiteListDocument = z
  .object({ sites: list(SiteRowDocument), next: Next })
  .meta({ id: 'SiteList' });

/** One site: its settings (where they live), recipients, current snapshot. */
export const SiteDocument = z
  .object({
    id: Id,
    origin: z.string(),
    name: z.string().nullable(),
    tags: list(z.string()),
    configured: z.boolean(),
    managedBy: z.enum(['file', 'api']).nullable(),
    paused: z.boolean(),
    pausedAt: Timestamp.nullable(),
    profile: Profile,
    watches: list(z.string()),
    watchAuto: z
      .boolean()
      .meta({ description: 'watch: auto: chosen from its sitemaps at each check' }),
    agents: list(z.object({ token: z.string(), profile: Profile })),
    schedule: z.string().nullable(),
    sitemaps: z.union([z.enum(['auto', 'off']), list(z.string())]).nullable(),
    notify: z
      .object({
        email: list(z.string()),
        webhooks: list(z.object({ url: z.string(), format: z.string(), signed: z.boolean() })),
        events: list(z.string()),
      })
      .nullable(),
    current: SnapshotDocument.nullable(),
    refused: z
      .object({ since: Timestamp, lastTriedAt: Timestamp, reason: z.string(), message: z.string() })
      .nullable()
      .meta({ description: 'robowatch cannot check it (its host is on a private address)' }),
    intent: IntentStateDocument.meta({
      description: 'the site against what its owner intends: its state and the cells that differ',
    }),
  })
  .meta({ id: 'Site' });

export function siteDocument(
  site: SiteRef,
  entry: CatalogEntry | undefined,
  latest: SnapshotSummary | undefined,
  refused: Refusal | null,
  judgement: StoredJudgement | null,
) {
  return {
    intent: intentStateDocument(judgement, refused),
    id: site.id,
    origin: site.origin,
    name: site.config?.name ?? null,
    tags: site.config?.tags ?? [],
    configured: site.config !== undefined,
    managedBy: site.config?.managedBy ?? null,
    paused: (entry?.pausedAt ?? null) !== null,
    pausedAt: entry?.pausedAt ?? null,
    profile: profileOf(site),
    watches: site.config?.watches ?? [],
    watchAuto: site.config?.watchAuto === true,
    agents: site.config?.agents ?? [],
    schedule: site.config?.schedule ?? null,
    sitemaps: site.config?.sitemaps ?? null,
    notify:
      site.config === undefined
        ? null
        : {
            email: site.config.alerts.email,
            // A webhook's URL may hold its secret: only its origin is shown.
            webhooks: site.config.alerts.webhooks.map((w) => ({
              url: redactUrl(w.url),
              format: w.format,
              signed: w.secret !== undefined,
            })),
            events: site.config.alerts.events,
          },
    current: latest === undefined ? null : snapshotDocument(latest, site),
    refused:
      refused === null
        ? null
        : {
            since: refused.since,
            lastTriedAt: refused.at,
            reason: refused.reason,
            message: `robowatch could not check this site: ${refused.reason}, and robowatch does not fetch private or reserved addresses (fetch.allowPrivateAddresses allows it)`,
          },
  };
}

/** A check's outcome, as Check now answers it and `robowatch check` reads it back. */
export const CheckDocument = z
  .object({
    site: z.string(),
    siteId: Id,
    kind: z.enum(['baseline', 'changed', 'unchanged', 'refused']),
    snapshotId: Id.nullable(),
    previousId: Id.nullable(),
    status: FetchStatusDocument,
    transient: z.string().nullable(),
    redirect: z.object({ to: z.string(), hops: z.number().int() }).nullable().meta({
      description:
        'robots.txt redirected: the last URL fetched (its answer is the status) and how many redirects led there; null when the site answered itself',
    }),
    events: list(EventDocument),
    causes: list(CauseDocument),
    findings: list(LintFindingDocument),
    verdicts: z.object({ watched: z.number().int(), disallowed: z.number().int() }).nullable(),
    refused: z
      .object({ message: z.string(), since: Timestamp, began: z.boolean() })
      .nullable()
      .meta({ description: 'robowatch did not check it: its address guard refused the host' }),
    intent: z
      .object({
        state: z.enum(['as-intended', 'not-as-intended', 'cannot-check']),
        violationCount: z.number().int(),
        violations: list(ViolationDocument).meta({
          description: `the first cells that differ (at most ${ALERTED_CELLS})`,
        }),
        causes: list(z.string()).meta({ description: 'why, one line per reason' }),
        incident: z
          .object({
            id: Id.nullable(),
            step: z.enum(['opened', 'reopened', 'worse', 'changed', 'resolved']).meta({
              description: 'changed: still open and no worse (fewer cells differ)',
            }),
          })
          .nullable()
          .meta({ description: 'what the check did to the site’s incident; null: nothing' }),
      })
      .nullable()
      .meta({
        description:
          'the site judged against its intent, when this check judged it (a new state, or a change of intent); null otherwise',
      }),
  })
  .meta({ id: 'Check' });

/** A site added: the site, and its first check (or why it could not be made now). */
export const SiteAddedDocument = SiteDocument.extend({
  check: z.union([CheckDocument, z.object({ error: z.string() })]),
}).meta({ id: 'SiteAdded' });

/** A list of sites added: each line added or refused. */
export const BulkDocument = z
  .object({
    added: z.number().int(),
    refused: z.number().int(),
    lines: list(
      z.object({
        line: z.number().int(),
        origin: z.string(),
        outcome: z.enum(['added', 'refused']),
        id: Id.optional(),
        message: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'BulkAdd' });

/** A site's history from the Internet Archive: what is stored, and whether more loads. */
export const ArchiveDocument = z
  .object({
    captures: z.number().int(),
    skipped: z.number().int(),
    snapshots: z.number().int(),
    first: Timestamp.nullable(),
    last: Timestamp.nullable(),
    loading: z.enum(['waiting', 'running']).nullable(),
  })
  .meta({ id: 'Archive' });

export function archiveDocument(summary: ArchiveSummary, loading: 'waiting' | 'running' | null) {
  return { ...summary, loading };
}

export type CheckDocument = z.infer<typeof CheckDocument>;
