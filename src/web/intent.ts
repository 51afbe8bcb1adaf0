/**
 * "Accept as intended" and acknowledging an incident, as the API and the pages both do
 * them: the intent changed through the site catalog, the site judged again at once.
 */
import { HTTPException } from 'hono/http-exception';
import { acceptAsIntended } from '../policy/intent.js';
import { recordedIncidentAlerts } from '../monitor/delivery/reminders.js';
import type { AcceptScope } from '../policy/intent.js';
import type { IncidentRecord } from '../monitor/records.js';
import type { WebDeps } from './deps.js';
import { catalogChange } from './api/route.js';

/** Who acknowledged, when the request does not say (there are no user accounts yet). */
const SOMEONE = 'someone with the admin token';

/** Replaces a site's intent (null: the file's again) and judges it again at once. */
export async function changeIntent(
  deps: WebDeps,
  siteId: number,
  input: unknown,
  what: string,
): Promise<void> {
  const entry = await catalogChange(() => deps.catalog.setIntent(siteId, input));
  deps.logger.info({ site: entry.site.origin, id: siteId }, what);
  await deps.rejudge?.(entry.site);
}

/** Takes the current verdicts of the cells in scope as intended. */
export async function acceptIntent(
  deps: WebDeps,
  siteId: number,
  scope: AcceptScope,
): Promise<void> {
  const entry = deps.catalog.get(siteId);
  if (entry === undefined)
    throw new HTTPException(404, { message: `there is no watched site ${siteId}` });
  const [latest] = await deps.store.listSnapshots(siteId, 1);
  if (latest === undefined)
    throw new HTTPException(409, {
      message: `${entry.site.origin} has not been checked yet: there is nothing to accept`,
    });
  const chosen = (await deps.store.loadVerdicts(latest.id)).filter(
    (v) =>
      (scope.url === undefined || v.url === scope.url) &&
      (scope.agent === undefined || v.agent.toLowerCase() === scope.agent.toLowerCase()),
  );
  if (chosen.length === 0)
    throw new HTTPException(400, {
      message: `no watched cell matches${scope.url === undefined ? '' : ` url ${scope.url}`}${scope.agent === undefined ? '' : ` agent ${scope.agent}`}`,
    });
  const entries = acceptAsIntended(entry.site.intent.entries, chosen, {});
  await changeIntent(deps, siteId, entries, 'accepted as intended from the web');
}

/** Acknowledges an incident with a note; 404 when there is none. */
export async function acknowledge(
  deps: WebDeps,
  id: number,
  ack: { readonly note: string; readonly by?: string | undefined },
): Promise<IncidentRecord> {
  const at = deps.now();
  const by = ack.by ?? SOMEONE;
  // PagerDuty acknowledges its incident too (the other channels are not told).
  const incident = await deps.store.acknowledgeIncident(id, { by, note: ack.note, at }, (found) =>
    recordedIncidentAlerts(deps.catalog.get(found.siteId)?.site, found, 'acknowledged', at, {
      by,
      note: ack.note,
    }),
  );
  if (incident === undefined)
    throw new HTTPException(404, { message: `there is no incident ${id}` });
  deps.logger.info({ incident: id, site: incident.origin }, 'incident acknowledged');
  deps.scheduler?.deliverNow();
  return incident;
}
