/**
 * A site's history as documents: its snapshots (each distinct state), the parsed model of
 * a snapshot's file, the diff between two, its verdicts and their history, its changes
 * with their causes, and change events across sites.
 */
import { z } from 'zod';
import { boundEvents } from '../../policy/changes/events.js';
import { siteAccess } from '../../policy/verdicts.js';
import type { RobotsTxt } from '../../robots/index.js';
import type { SnapshotSummary } from '../records.js';
import type { DiffView } from '../views/diff.js';
import { profileOf } from '../views/site.js';
import type { SiteRef } from '../views/site.js';
import { CoverageChangeDocument } from './coverage.js';
import {
  Access,
  CauseDocument,
  EventDocument,
  FetchError,
  Id,
  LintFindingDocument,
  list,
  Next,
  RegistryVersionDocument,
  Timestamp,
  VerdictCauseDocument,
  VerdictDocument,
} from './common.js';

/** One distinct state of a site's robots.txt. */
export const SnapshotDocument = z
  .object({
    id: Id,
    siteId: Id,
    previousId: Id.nullable(),
    firstSeen: Timestamp,
    lastSeen: Timestamp,
    checks: z.number().int().meta({ description: 'checks that saw it (captures, when archived)' }),
    access: Access,
    status: z.number().int().nullable(),
    error: FetchError.nullable(),
    errorDetail: z.string().nullable(),
    stale: z.boolean(),
    size: z.number().int().nullable(),
    truncated: z.boolean(),
    sha256: z.string().nullable(),
    finalUrl: z.string(),
    redirects: list(z.object({ url: z.string(), status: z.number().int(), location: z.string() })),
    lastGoodId: Id.nullable(),
    registry: RegistryVersionDocument.nullable(),
    source: z.enum(['live', 'archive']),
    originalUrl: z.string().nullable(),
  })
  .meta({ id: 'Snapshot' });

/** A snapshot as the API and `--json` outputs give it. */
export function snapshotDocument(s: SnapshotSummary, site: SiteRef) {
  return {
    id: s.id,
    siteId: s.siteId,
    previousId: s.previousId,
    firstSeen: s.firstSeen,
    lastSeen: s.lastSeen,
    checks: s.checks,
    access: siteAccess({ fetch: s, stale: s.stale }, profileOf(site)),
    status: s.status,
    error: s.error,
    errorDetail: s.errorDetail,
    stale: s.stale,
    size: s.size,
    truncated: s.truncated,
    sha256: s.sha256,
    finalUrl: s.finalUrl,
    redirects: s.redirects,
    lastGoodId: s.lastGoodId,
    registry: s.registry ?? null,
    // An Internet Archive capture (robowatch backfill): its first and last capture times
    // are firstSeen and lastSeen, its captures `checks`.
    source: s.source,
    originalUrl: s.originalUrl,
  };
}

export const SnapshotListDocument = z
  .object({ snapshots: list(SnapshotDocument), next: Next })
  .meta({ id: 'SnapshotList' });

/** A snapshot's file as the site's profile reads it. */
export const ModelDocument = z
  .object({
    snapshotId: Id,
    profile: z.enum(['google', 'rfc9309', 'legacy']),
    groups: list(
      z.object({
        line: z.number().int(),
        agents: list(z.object({ value: z.string(), token: z.string() })),
        rules: list(
          z.object({
            directive: z.enum(['allow', 'disallow']),
            pattern: z.string(),
            line: z.number().int(),
          }),
        ),
      }),
    ),
    sitemaps: list(z.object({ url: z.string(), line: z.number().int() }).catchall(z.any())),
    others: list(z.object({ key: z.string(), value: z.string(), line: z.number().int() })),
    lint: list(LintFindingDocument),
    lineCount: z.number().int(),
    byteLength: z.number().int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'Model' });

export function modelDocument(snapshotId: number, model: RobotsTxt) {
  return {
    snapshotId,
    profile: model.profile,
    groups: model.groups.map((g) => ({
      line: g.line,
      agents: g.agents.map((a) => ({ value: a.value, token: a.token })),
      rules: g.rules.map((r) => ({ directive: r.directive, pattern: r.pattern, line: r.line })),
    })),
    sitemaps: model.sitemaps,
    others: model.others,
    lint: model.lint,
    lineCount: model.lineCount,
    byteLength: model.byteLength,
    truncated: model.truncated,
  };
}

/** What changed between two snapshots: causes, events, the file's lines, the URL set. */
export const DiffDocument = z
  .object({
    site: z.string(),
    from: SnapshotDocument,
    to: SnapshotDocument,
    events: list(EventDocument),
    causes: list(CauseDocument),
    patch: z.string().meta({ description: 'the unified diff of the two files' }),
    coverage: CoverageChangeDocument.nullable(),
  })
  .meta({ id: 'Diff' });

export function diffDocument(view: DiffView, site: SiteRef) {
  return {
    site: site.origin,
    from: snapshotDocument(view.from, site),
    to: snapshotDocument(view.to, site),
    events: boundEvents(view.events),
    causes: view.causes,
    patch: view.patch.map((l) => l.text).join('\n'),
    coverage: view.coverage ?? null,
  };
}

export const VerdictsDocument = z
  .object({ snapshotId: Id.nullable(), verdicts: list(VerdictDocument) })
  .meta({ id: 'Verdicts' });

/** One watched URL × crawler through time: runs of the same verdict and cause. */
export const VerdictHistoryDocument = z
  .object({
    url: z.string(),
    agent: z.string(),
    runs: list(
      z.object({
        allowed: z.boolean(),
        cause: VerdictCauseDocument.nullable(),
        since: Timestamp,
        fromSnapshotId: Id,
        until: Timestamp.nullable(),
        snapshots: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'VerdictHistory' });

export const ChangeDocument = z
  .object({
    at: Timestamp,
    archived: z.boolean().optional(),
    snapshotId: Id,
    previousId: Id.nullable(),
    causes: list(CauseDocument),
  })
  .meta({ id: 'Change' });

export const ChangesDocument = z
  .object({ changes: list(ChangeDocument), next: Next })
  .meta({ id: 'Changes' });

export const EventsDocument = z
  .object({
    events: list(
      EventDocument.and(z.object({ id: Id, siteId: Id, snapshotId: Id, at: Timestamp })),
    ),
    next: Next,
  })
  .meta({ id: 'Events' });

export type SnapshotDocument = z.infer<typeof SnapshotDocument>;
export type DiffDocument = z.infer<typeof DiffDocument>;
