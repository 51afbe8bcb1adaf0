/**
 * "Accept as intended" and acknowledging an incident, as the API and the pages both do
 * them: the intent changed through the site catalog, the site judged again at once.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { WebEnv } from './auth.js';
import type { ConfiguredSites } from './sites.js';
import { acceptAsIntended } from '../policy/intent.js';
import { AckRefused, acknowledgeIncident, acknowledgeOpen } from '../monitor/acknowledge.js';
import type { AckDeps } from '../monitor/acknowledge.js';
import type { AcceptScope } from '../policy/intent.js';
import type { IncidentRecord } from '../monitor/records.js';
import type { WebDeps } from './deps.js';
import { catalogChange } from './api/route.js';
import type { Actor } from '../monitor/accounts.js';
import { actorOf, audited } from './audit.js';

/** Replaces a site's intent (null: the file's again) and judges it again at once. */
export async function changeIntent(
  deps: WebDeps,
  actor: Actor,
  siteId: number,
  input: unknown,
  what: string,
): Promise<void> {
  const before = deps.catalog.get(siteId);
  const entry = await catalogChange(() => deps.catalog.setIntent(siteId, input));
  deps.logger.info({ site: entry.site.origin, id: siteId, by: actor.name }, what);
  await audited(deps, actor, {
    action: input === null ? 'intent.reset' : 'intent.set',
    siteId,
    target: entry.site.origin,
    before:
      before === undefined
        ? null
        : { from: before.site.intent.from, entries: before.site.intent.entries },
    after: { from: entry.site.intent.from, entries: entry.site.intent.entries },
  });
  await deps.rejudge?.(entry.site);
}

/** Takes the current verdicts of the cells in scope as intended. */
export async function acceptIntent(
  deps: WebDeps,
  actor: Actor,
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
  await changeIntent(deps, actor, siteId, entries, 'accepted as intended from the web');
}

/** An incident the request's person may see (its site is theirs); 404 otherwise. */
export async function visibleIncident(
  deps: WebDeps,
  sites: ConfiguredSites,
  c: Context<WebEnv>,
  id: number,
): Promise<IncidentRecord> {
  const incident = await deps.store.getIncident(id);
  if (incident === undefined || !(await sites.sees(c, incident.siteId)))
    throw new HTTPException(404, { message: `there is no incident ${id}` });
  return incident;
}

/** What acknowledging needs of the web's parts. */
function ackDeps(deps: WebDeps): AckDeps & { readonly store: WebDeps['store'] } {
  return {
    store: deps.store,
    siteOf: (siteId) => deps.catalog.get(siteId)?.site,
    audit: (who, entry) => audited(deps, who, entry),
    logger: deps.logger,
    now: () => deps.now(),
  };
}

/**
 * Acknowledges every open incident no one has yet, of the sites the person sees, with one
 * note (monitor/acknowledge.ts); the notifications go at once.
 */
export async function acknowledgeAllOpen(
  deps: WebDeps,
  sites: ConfiguredSites,
  c: Context<WebEnv>,
  ack: { readonly note: string; readonly by?: string | undefined },
): Promise<{ acked: IncidentRecord[]; skipped: number }> {
  try {
    const done = await acknowledgeOpen(ackDeps(deps), actorOf(c), ack, await sites.only(c));
    if (done.acked.length > 0) deps.scheduler?.deliverNow();
    return done;
  } catch (error) {
    if (error instanceof AckRefused) throw new HTTPException(400, { message: error.message });
    throw error;
  }
}

/** Acknowledges an incident with a note (monitor/acknowledge.ts); 404 when there is none. */
export async function acknowledge(
  deps: WebDeps,
  actor: Actor,
  id: number,
  ack: { readonly note: string; readonly by?: string | undefined },
): Promise<IncidentRecord> {
  try {
    const incident = await acknowledgeIncident(ackDeps(deps), actor, id, ack);
    deps.scheduler?.deliverNow();
    return incident;
  } catch (error) {
    if (error instanceof AckRefused)
      throw new HTTPException(error.why === 'missing' ? 404 : 400, { message: error.message });
    throw error;
  }
}
