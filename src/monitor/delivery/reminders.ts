/**
 * Reminders of incidents nobody has acknowledged (notify.remind): what each says and who
 * hears it, the site's incident alerts' recipients as the running configuration has them.
 */
import type { SiteConfig } from '../../config/config.js';
import { incidentAlerts } from '../../policy/incident-alerts.js';
import type { IncidentDraft } from '../../policy/incident-alerts.js';
import type { IncidentRecord } from '../records.js';

/**
 * What a recorded incident's site is told of it at `now`, outside a check (a reminder, an
 * acknowledgment): none when the site is gone.
 */
export function recordedIncidentAlerts(
  site: SiteConfig | undefined,
  incident: IncidentRecord,
  transition: 'reminder' | 'acknowledged',
  now: Date,
  ack?: { readonly by: string; readonly note: string },
): IncidentDraft[] {
  if (site === undefined) return [];
  return incidentAlerts(
    { origin: site.origin, name: site.name },
    site.alerts,
    {
      id: incident.id,
      transition,
      openedAt: incident.openedAt.toISOString(),
      resolvedAt: null,
      state: incident.siteState,
      causes: incident.causes,
      violations: incident.violations,
      violationCount: incident.violationCount,
      ...(incident.grid === null ? {} : { grid: incident.grid }),
      ...(ack === undefined ? {} : { acknowledgedBy: ack.by, note: ack.note }),
      changes: [],
    },
    now,
  );
}

/** What reminding needs from the store. */
export interface ReminderStore {
  /** Queues the reminders due at `now`; returns how many incidents were reminded. */
  remindIncidents(
    now: Date,
    everyMs: number,
    draftsFor: (incident: IncidentRecord) => readonly IncidentDraft[],
  ): Promise<number>;
}

/** Reminds every unacknowledged open incident due at `now` (notify.remind); none when off. */
export async function remindIncidents(
  store: ReminderStore,
  config: { readonly notify: { readonly remindMs: number | null } },
  siteOf: (siteId: number) => SiteConfig | undefined,
  now: Date,
): Promise<number> {
  const every = config.notify.remindMs;
  if (every === null) return 0;
  return store.remindIncidents(now, every, (incident) =>
    recordedIncidentAlerts(siteOf(incident.siteId), incident, 'reminder', now),
  );
}
