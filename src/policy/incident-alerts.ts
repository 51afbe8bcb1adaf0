/**
 * Alerts that follow incidents (the `incidents` alert topic): one when an incident opens,
 * one when it gets worse, one when it resolves; not one per check. Pure: an incident's
 * transition and the site's targets go in, the notifications to queue come out.
 */
import { reachesAnyone } from './alerts.js';
import type { AlertTargets, WebhookTarget } from './alerts.js';
import { wholePages } from './intent.js';
import type { Violation, ViolationGrid } from './intent.js';
import { intentLead } from './incidents.js';

/**
 * What happened to the incident: it opened (or came back), got worse, resolved; or it is
 * still open and nobody has acknowledged it (`reminder`, notify.remind); someone
 * acknowledged it (`acknowledged`: for PagerDuty only).
 */
export type IncidentTransition = 'opened' | 'worse' | 'resolved' | 'reminder' | 'acknowledged';

/**
 * Cells an incident alert lists (a line a page, its crawlers named); the count says how
 * many there are. Enough for a few pages × the search engines, which the default intent
 * judges, so that an alert can name every page and crawler of a usual incident.
 */
export const ALERTED_CELLS = 50;

/**
 * The cells an alert lists: whole pages (each with every crawler it is wrong for), in
 * the order pages come first, up to ALERTED_CELLS; the first page's first cells when it
 * alone has more. A page listed for some of its crawlers would read as spared for the rest.
 */
export function alertedCells<V extends Pick<Violation, 'url'>>(cells: readonly V[]): V[] {
  return wholePages(cells, ALERTED_CELLS);
}

/** An incident's transition as its alert says it. */
export interface IncidentNote {
  readonly id: number;
  readonly transition: IncidentTransition;
  /** ISO 8601 (payloads are JSON). */
  readonly openedAt: string;
  readonly resolvedAt: string | null;
  /** The site's state against its intent now. */
  readonly state: 'as-intended' | 'not-as-intended' | 'cannot-check';
  /** Why it is not as intended, in words (policy/incidents.ts intentCauses). */
  readonly causes: readonly string[];
  readonly violations: readonly Pick<Violation, 'url' | 'agent' | 'expected'>[];
  readonly violationCount: number;
  /** Who acknowledged it, and their note (`acknowledged`). */
  readonly acknowledgedBy?: string;
  readonly note?: string;
  /** What changed in robots.txt at the check that made the transition, in words (titles). */
  readonly changes: readonly string[];
  /**
   * The incident in a phrase (what its subject leads with), said from every cell it knows
   * (up to MAX_VIOLATIONS), where `violations` lists ALERTED_CELLS of them: "/, /pricing
   * and 18 more pages are blocked for Googlebot, …". Absent from alerts queued before it.
   */
  readonly lead?: string;
  /** Every differing cell as one block, when more differ than are listed (said in `lead`). */
  readonly grid?: ViolationGrid;
}

/** An incident alert as queued: the site, the transition, where it points in the web UI. */
export interface IncidentPayload {
  readonly kind: 'incident';
  readonly site: string;
  readonly name?: string;
  readonly siteId: number;
  readonly incident: IncidentNote;
  /** When the check (or the change of intent) that made the transition ran (ISO 8601). */
  readonly at: string;
  readonly format?: WebhookTarget['format'];
}

/** One incident notification to queue, for one channel. */
export type IncidentDraft = Omit<IncidentPayload, 'kind' | 'format' | 'siteId'> &
  (
    | { readonly channel: 'email'; readonly to: readonly string[] }
    | {
        readonly channel: 'webhook';
        readonly url: string;
        readonly format: WebhookTarget['format'];
      }
  );

/**
 * Whether anyone hears of a site's incidents opening or getting worse: its topics include
 * `incidents` and it has a recipient or a webhook (else `incidentAlerts` makes none).
 */
export function hearsOfIncidents(targets: AlertTargets): boolean {
  return (targets.events as readonly string[]).includes('incidents') && reachesAnyone(targets);
}

/**
 * The notifications of one transition, when the site's alerts follow incidents (its
 * topics include `incidents`): one email to its recipients and one POST per webhook.
 */
export function incidentAlerts(
  site: { readonly origin: string; readonly name: string | null },
  targets: AlertTargets,
  incident: IncidentNote,
  at: Date,
): IncidentDraft[] {
  if (!(targets.events as readonly string[]).includes('incidents')) return [];
  const { grid, ...note } = incident;
  const content = {
    site: site.origin,
    ...(site.name === null ? {} : { name: site.name }),
    incident: {
      ...note,
      ...(incident.state === 'as-intended'
        ? {}
        : {
            lead: intentLead(
              incident.state,
              incident.violations,
              incident.violationCount,
              incident.causes[0],
              grid,
            ),
          }),
      violations: alertedCells(incident.violations).map(({ url, agent, expected }) => ({
        url,
        agent,
        expected,
      })),
    },
    at: at.toISOString(),
  };
  const drafts: IncidentDraft[] = [];
  // PagerDuty hears of acknowledgments (it acknowledges its incident too) and has its own
  // escalation instead of reminders; the others hear of reminders, not acknowledgments.
  const paging = incident.transition === 'acknowledged';
  if (targets.email.length > 0 && !paging)
    drafts.push({ ...content, channel: 'email', to: targets.email });
  for (const webhook of targets.webhooks.filter((w) =>
    w.format === 'pagerduty' ? incident.transition !== 'reminder' : !paging,
  ))
    drafts.push({ ...content, channel: 'webhook', url: webhook.url, format: webhook.format });
  return drafts;
}
