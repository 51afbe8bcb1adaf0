/**
 * Intent and incidents as documents: a site's intent (as written, where it comes from),
 * its state against it (the cells that differ, why), and its incidents.
 */
import { z } from 'zod';
import type { SiteIntent } from '../../config/config.js';
import { formatDuration } from '../../policy/wording/words.js';
import { intentLead } from '../../policy/incidents.js';
import type { IncidentRecord, Refusal, StoredJudgement } from '../records.js';
import { Id, list, Next, Timestamp, VerdictCauseDocument } from './common.js';

const Expectation = z.enum(['allowed', 'disallowed']);

export const IntentEntryDocument = z
  .object({
    watch: z.string().meta({ description: 'a watched path or URL, or a path prefix ending in *' }),
    agents: list(z.string()).meta({ description: 'crawler tokens or presets (@search, …)' }),
    expect: Expectation,
  })
  .meta({ id: 'IntentEntry' });

export const ViolationDocument = z
  .object({
    url: z.string(),
    agent: z.string(),
    expected: Expectation,
    cause: VerdictCauseDocument.nullable().meta({
      description: 'what decides the verdict now: the rule, or the access state',
    }),
  })
  .meta({ id: 'Violation' });

/** A site's state against its intent. */
export const IntentStateDocument = z
  .object({
    state: z
      .enum(['as-intended', 'not-as-intended', 'cannot-check'])
      .nullable()
      .meta({ description: 'null: not checked (or judged) yet' }),
    since: Timestamp.nullable(),
    violations: list(ViolationDocument).meta({
      description: 'the cells that differ (at most 200)',
    }),
    violationCount: z.number().int(),
    judged: z.number().int().meta({ description: 'watched cells an intent entry matched' }),
    reason: z.string().nullable().meta({ description: 'why it cannot be checked' }),
    lead: z.string().nullable().meta({
      description:
        'the state in a phrase, said of every cell that differs, as an alert’s subject says it; null when as intended or not judged yet',
    }),
  })
  .meta({ id: 'IntentState' });

export function intentStateDocument(
  judgement: StoredJudgement | null,
  refused: Refusal | null,
): z.input<typeof IntentStateDocument> {
  if (refused !== null) {
    const reason = `robowatch refused to fetch its robots.txt (${refused.reason}); fetch.allowPrivateAddresses allows it`;
    return {
      state: 'cannot-check',
      since: refused.since.toISOString(),
      violations: [],
      violationCount: 0,
      judged: 0,
      reason,
      lead: reason,
    };
  }
  if (judgement === null)
    return {
      state: null,
      since: null,
      violations: [],
      violationCount: 0,
      judged: 0,
      reason: null,
      lead: null,
    };
  return {
    state: judgement.state,
    since: judgement.since?.toISOString() ?? null,
    violations: judgement.violations,
    violationCount: judgement.violationCount,
    judged: judgement.judged,
    reason: judgement.reason,
    lead:
      judgement.state === 'as-intended'
        ? null
        : intentLead(
            judgement.state,
            judgement.violations,
            judgement.violationCount,
            judgement.reason ?? undefined,
            judgement.grid,
          ),
  };
}

/** GET and PUT /api/v1/sites/{id}/intent. */
export const IntentDocument = z
  .object({
    site: Id,
    from: z.enum(['built-in', 'file', 'site-file', 'web']).meta({
      description:
        'built-in: the default rule; file: the top-level intent; site-file: the site’s own in the file (edit it there); web: set in the UI or API',
    }),
    editable: z.boolean().meta({ description: 'whether the UI and API may change it' }),
    entries: list(IntentEntryDocument),
    state: IntentStateDocument,
  })
  .meta({ id: 'Intent' });

export function intentDocument(
  siteId: number,
  intent: SiteIntent,
  state: z.input<typeof IntentStateDocument>,
): z.input<typeof IntentDocument> {
  return {
    site: siteId,
    from: intent.from,
    editable: intent.from !== 'site-file',
    entries: intent.entries,
    state,
  };
}

export const IncidentDocument = z
  .object({
    id: Id,
    site: Id,
    origin: z.string(),
    name: z
      .string()
      .nullable()
      .meta({ description: "the site's name, as its alerts and pages call it; null: none" }),
    state: z.enum(['open', 'resolved']),
    siteState: z.enum(['not-as-intended', 'cannot-check']),
    openedAt: Timestamp,
    resolvedAt: Timestamp.nullable(),
    duration: z.string().meta({ description: 'how long it lasted (or has lasted), in words' }),
    acknowledgedAt: Timestamp.nullable(),
    acknowledgedBy: z.string().nullable(),
    note: z.string().nullable(),
    causes: list(z.string()),
    violations: list(ViolationDocument),
    violationCount: z.number().int(),
    lead: z.string().nullable().meta({
      description:
        'the open incident in a phrase, said of every cell that differs, as its alerts’ subject says it; null once resolved',
    }),
    worstCount: z.number().int(),
    reopened: z.number().int().meta({ description: 'relapses within the flap window' }),
  })
  .meta({ id: 'Incident' });

export function incidentDocument(
  incident: IncidentRecord,
  now: Date,
  /** The site's name (the catalog's), null when it has none or is no longer watched. */
  name: string | null,
): z.input<typeof IncidentDocument> {
  const end = incident.resolvedAt ?? now;
  return {
    id: incident.id,
    site: incident.siteId,
    origin: incident.origin,
    name,
    state: incident.state,
    siteState: incident.siteState,
    openedAt: incident.openedAt.toISOString(),
    resolvedAt: incident.resolvedAt?.toISOString() ?? null,
    duration: formatDuration(Math.max(0, end.getTime() - incident.openedAt.getTime())),
    acknowledgedAt: incident.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: incident.acknowledgedBy,
    note: incident.note,
    causes: incident.causes,
    violations: incident.violations,
    violationCount: incident.violationCount,
    lead: incident.lead,
    worstCount: incident.worstCount,
    reopened: incident.reopened,
  };
}

export const IncidentListDocument = z
  .object({ incidents: list(IncidentDocument), next: Next })
  .meta({ id: 'IncidentList' });

/** The incidents acknowledged at once, and how many open ones kept their notes. */
export const AckOpenDocument = z
  .object({
    incidents: list(IncidentDocument),
    skipped: z.number().int().meta({
      description:
        'open incidents someone had acknowledged already, or acknowledged while this ran: their notes kept',
    }),
  })
  .meta({ id: 'AckOpen' });
