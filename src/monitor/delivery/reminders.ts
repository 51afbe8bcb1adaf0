/**
 * Reminders of incidents nobody has acknowledged (notify.remind): what each says and who
 * hears it, the site's incident alerts' recipients as the running configuration has them.
 */
import type { SiteConfig } from '../../config/config.js';
import { incidentAlerts } from '../../policy/incident-alerts.js';
import type { IncidentDraft } from '../../policy/incident-alerts.js';
import type { IncidentRecord } from '../records.js';

/** A reminder of `incident` at `now` for its site's recipients (none when the site is gone). */
export function reminderDrafts(
  site: SiteConfig | undefined,
  incident: IncidentRecord,
  now: Date,
): IncidentDraft[] {
  if (site === undefined) return [];
  return incidentAlerts(
    { origin: site.origin, name: site.name },
    site.alerts,
    {
      id: incident.id,
      transition: 'reminder',
      openedAt: incident.openedAt.toISOString(),
      resolvedAt: null,
      state: incident.siteState,
      causes: incident.causes,
      violations: incident.violations,
      violationCount: incident.violationCount,
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
    reminderDrafts(siteOf(incident.siteId), incident, now),
  );
}
