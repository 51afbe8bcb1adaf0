/**
 * What owners intend of their sites, and the incidents when a site is not so:
 * /api/v1/sites/{id}/intent (read, replace, reset, accept the current verdicts) and
 * /api/v1/incidents (list, one, acknowledge).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import {
  AckOpenDocument,
  IncidentDocument,
  IncidentListDocument,
  IntentDocument,
  IntentEntryDocument,
  incidentDocument,
  intentDocument,
  intentStateDocument,
} from '../../monitor/documents/index.js';
import type { SiteRef } from '../../monitor/views/site.js';
import { optionalId, parseId } from '../sites.js';
import {
  acceptIntent,
  acknowledge,
  acknowledgeAllOpen,
  changeIntent,
  visibleIncident,
} from '../intent.js';
import { ACK_LIMITS } from '../../monitor/acknowledge.js';
import { actorOf } from '../audit.js';
import type { WebEnv } from '../auth.js';
import {
  API,
  ID,
  answer,
  apiPart,
  errors,
  jsonBody,
  limitOf,
  parseBody,
  query,
  readJson,
  route,
} from './route.js';
import type { ApiContext } from './route.js';

const AcceptBody = z.strictObject({
  url: z.string().max(4000).optional(),
  agent: z.string().max(200).optional(),
});

const AckBody = z.strictObject({
  note: z
    .string({ error: 'must be text: what is being done about it' })
    .trim()
    .min(1, 'must say what is being done about it')
    .max(ACK_LIMITS.note, `must be at most ${ACK_LIMITS.note.toLocaleString('en')} characters`),
  by: z
    .string({ error: 'must be the name of who acknowledges it' })
    .trim()
    .min(1, 'must not be empty')
    .max(ACK_LIMITS.by, `must be at most ${ACK_LIMITS.by} characters`)
    .optional(),
});

export function intentApi({ deps, sites }: ApiContext) {
  const app = apiPart();

  const configured = async (c: Context<WebEnv>, param: string | undefined) => {
    const site = await sites.resolve(c, param);
    if (site.config === undefined)
      throw new HTTPException(404, { message: `${site.origin} is no longer watched` });
    return site as SiteRef & { config: NonNullable<SiteRef['config']> };
  };

  const intentOf = async (c: Context<WebEnv>, id: number) => {
    const site = await configured(c, String(id));
    const [judgement, refused] = await Promise.all([
      deps.store.loadJudgement(id),
      deps.store.loadRefusal(id),
    ]);
    return intentDocument(id, site.config.intent, intentStateDocument(judgement, refused));
  };

  const change = async (c: Context<WebEnv>, id: number, input: unknown, what: string) => {
    await configured(c, String(id)); // 404 for a site this person does not see
    await changeIntent(deps, actorOf(c), id, input, what);
    return intentOf(c, id);
  };

  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/intent`,
      summary:
        'What the owner intends of a site (entries {watch, agents, expect}, the last matching one deciding each cell), where it comes from, and the site’s state against it.',
      request: { params: ID },
      responses: { 200: answer('the intent and the state', IntentDocument), ...errors([400, 404]) },
    }),
    async (c) => c.json(await intentOf(c, parseId(c.req.param('id'), 'site')), 200),
  );

  app.openapi(
    route({
      method: 'put',
      path: `${API}/sites/{id}/intent`,
      summary:
        'Replaces the intent (the list whole) and judges the site again at once, without a fetch; 409 when the configuration file gives the site its own.',
      request: { params: ID, body: jsonBody(z.array(IntentEntryDocument)) },
      responses: {
        200: answer('the intent and the state', IntentDocument),
        ...errors([400, 404, 409], true),
      },
    }),
    async (c) => {
      const { id } = await configured(c, c.req.param('id'));
      const body = await readJson(c, '[{watch, agents, expect}, …]');
      if (!Array.isArray(body))
        throw new HTTPException(400, {
          message: 'the body must be the whole list: [{watch, agents, expect}, …]',
        });
      return c.json(await change(c, id, body, 'intent set from the web'), 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: `${API}/sites/{id}/intent`,
      summary:
        'Forgets the intent set in the UI or API: the configuration file’s (or the built-in rule) applies again.',
      request: { params: ID },
      responses: {
        200: answer('the intent and the state', IntentDocument),
        ...errors([400, 404, 409], true),
      },
    }),
    async (c) => {
      const id = parseId(c.req.param('id'), 'site');
      return c.json(await change(c, id, null, 'intent reset from the web'), 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/sites/{id}/intent/accept`,
      summary:
        'Accept as intended: takes the current verdicts of one cell ({url, agent}), a URL’s row ({url}), a crawler’s column ({agent}) or all ({}) as the intent.',
      request: { params: ID, body: jsonBody(AcceptBody) },
      responses: {
        200: answer('the intent and the state', IntentDocument),
        ...errors([400, 404, 409], true),
      },
    }),
    async (c) => {
      const id = parseId(c.req.param('id'), 'site');
      const scope = parseBody(AcceptBody, await readJson(c, '{url?, agent?}'));
      await configured(c, String(id));
      await acceptIntent(deps, actorOf(c), id, scope);
      return c.json(await intentOf(c, id), 200);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/incidents`,
      summary:
        'Incidents, the newest first: each an episode of a site not being as intended, from when it opened to when it resolved.',
      request: {
        query: z.object({
          site: query('only this site’s (its id)'),
          state: query('open or resolved'),
          limit: query('how many (1 to 500; 100)'),
          before: query('the last id of the previous page'),
        }),
      },
      responses: { 200: answer('the incidents', IncidentListDocument), ...errors([400]) },
    }),
    async (c) => {
      const siteId = optionalId(c.req.query('site'), 'site');
      const before = optionalId(c.req.query('before'), 'before');
      const state = c.req.query('state');
      if (state !== undefined && state !== 'open' && state !== 'resolved')
        throw new HTTPException(400, {
          message: `state must be open or resolved, not "${state.slice(0, 40)}"`,
        });
      const limit = limitOf(c, 100);
      const found = await deps.store.listIncidents({
        ...(siteId === undefined ? {} : { siteId }),
        ...(await sites.only(c)),
        ...(state === undefined ? {} : { state }),
        ...(before === undefined ? {} : { before }),
        limit: limit + 1,
      });
      const page = found.slice(0, limit);
      const now = deps.now();
      const names = await sites.namesOf(page.map((i) => i.siteId));
      // The next page, as the alert log gives it: the same query, older than this one's last.
      const params = new URLSearchParams({
        ...(siteId === undefined ? {} : { site: String(siteId) }),
        ...(state === undefined ? {} : { state }),
        limit: String(limit),
        before: String(page.at(-1)?.id ?? 0),
      });
      return c.json(
        {
          incidents: page.map((i) => incidentDocument(i, now, names.get(i.siteId) ?? null)),
          next: found.length > limit ? `${API}/incidents?${params.toString()}` : null,
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/incidents/ack-open`,
      summary:
        'Acknowledges with one note every open incident no one has acknowledged yet (of the sites the caller sees), the oldest first; those acknowledged already keep their notes.',
      request: { body: jsonBody(AckBody) },
      responses: {
        200: answer('the incidents acknowledged', AckOpenDocument),
        ...errors([400], true),
      },
    }),
    async (c) => {
      const body = parseBody(AckBody, await readJson(c, '{note, by?}'));
      const { acked, skipped } = await acknowledgeAllOpen(deps, sites, c, body);
      const now = deps.now();
      const names = await sites.namesOf(acked.map((i) => i.siteId));
      return c.json(
        {
          incidents: acked.map((i) => incidentDocument(i, now, names.get(i.siteId) ?? null)),
          skipped,
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/incidents/{id}`,
      summary: 'One incident.',
      request: { params: ID },
      responses: { 200: answer('the incident', IncidentDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const id = parseId(c.req.param('id'), 'incident');
      const incident = await visibleIncident(deps, sites, c, id);
      return c.json(
        incidentDocument(incident, deps.now(), await sites.nameOf(incident.siteId)),
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/incidents/{id}/ack`,
      summary:
        'Acknowledges an incident with a note (and who, `by`); a later acknowledgment replaces the note and keeps the first time.',
      request: { params: ID, body: jsonBody(AckBody) },
      responses: {
        200: answer('the incident', IncidentDocument),
        ...errors([400, 404], true),
      },
    }),
    async (c) => {
      const id = parseId(c.req.param('id'), 'incident');
      const body = parseBody(AckBody, await readJson(c, '{note, by?}'));
      await visibleIncident(deps, sites, c, id);
      const incident = await acknowledge(deps, actorOf(c), id, body);
      return c.json(
        incidentDocument(incident, deps.now(), await sites.nameOf(incident.siteId)),
        200,
      );
    },
  );

  return app;
}
