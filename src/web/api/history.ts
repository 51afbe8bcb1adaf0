/**
 * A site's history under /api/v1: its snapshots (each distinct state) with their files
 * and models, two compared, its verdicts now and through time, its changes with their
 * causes, its coverage of its sitemaps' URLs, and change events across sites.
 */
import type { Context } from 'hono';
import type { WebEnv } from '../auth.js';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import {
  ChangesDocument,
  CoverageDocument,
  DiffDocument,
  EventsDocument,
  ModelDocument,
  SnapshotDocument,
  SnapshotListDocument,
  VerdictHistoryDocument,
  VerdictsDocument,
  diffDocument,
  modelDocument,
  snapshotDocument,
} from '../../monitor/documents/index.js';
import { readCoverage } from '../../monitor/reads.js';
import { viewDiff } from '../../monitor/views/diff.js';
import { CHANGE_KINDS, isChangeKind, profileOf, viewSite } from '../../monitor/views/site.js';
import { viewVerdictHistory } from '../../monitor/views/verdict-history.js';
import { boundEvents, CHANGE_EVENT_TYPES, isChangeEventType } from '../../policy/changes/events.js';
import { parseRobotsTxt } from '../../robots/index.js';
import { diffPair, optionalId, parseId } from '../sites.js';
import {
  API,
  ID,
  LIST,
  answer,
  apiPart,
  bytes,
  errors,
  limitOf,
  needed,
  query,
  repeatable,
  route,
} from './route.js';
import type { ApiContext } from './route.js';

export function historyApi({ deps, sites }: ApiContext) {
  const app = apiPart();

  const snapshotOf = async (c: Context<WebEnv>, param: string | undefined) => {
    const id = parseId(param, 'snapshot');
    const snapshot = await deps.store.findSnapshot(id);
    // Another site's, for a person who may not see it: not there either.
    if (snapshot === undefined || !(await sites.sees(c, snapshot.siteId)))
      throw new HTTPException(404, { message: `there is no snapshot ${id}` });
    const site = await sites.resolve(c, String(snapshot.siteId));
    return { snapshot, site };
  };
  const noBody = (snapshot: { id: number; status: number | null; error: string | null }) =>
    new HTTPException(404, {
      message: `snapshot ${snapshot.id} has no body (${snapshot.status ?? snapshot.error})`,
    });

  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/snapshots`,
      summary: 'Its snapshots, newest first.',
      request: { params: ID, query: z.object(LIST) },
      responses: { 200: answer('its snapshots', SnapshotListDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      const limit = limitOf(c, 50);
      const page = await deps.store.listSnapshots(
        site.id,
        limit + 1,
        optionalId(c.req.query('before'), 'before'),
      );
      const shown = page.slice(0, limit);
      return c.json(
        {
          snapshots: shown.map((s) => snapshotDocument(s, site)),
          next:
            page.length > limit
              ? `${API}/sites/${site.id}/snapshots?limit=${limit}&before=${shown[shown.length - 1]!.id}`
              : null,
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/snapshots/{id}`,
      summary:
        'One snapshot: fetch details, access, hash, size, redirects, and the AI crawler registry its verdicts were made with (registry: {sha256, source, date, agents} or null).',
      request: { params: ID },
      responses: { 200: answer('the snapshot', SnapshotDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const { snapshot, site } = await snapshotOf(c, c.req.param('id'));
      return c.json(snapshotDocument(snapshot, site), 200);
    },
  );

  // The bytes as served, as inert text: never rendered by a browser as HTML or script.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/snapshots/{id}/body`,
      summary: 'The file as fetched, as text/plain.',
      request: { params: ID },
      responses: {
        200: { description: 'the bytes', content: { 'text/plain': { schema: z.string() } } },
        ...errors([400, 404]),
      },
    }),
    async (c) => {
      const { snapshot } = await snapshotOf(c, c.req.param('id'));
      if (snapshot.sha256 === null) throw noBody(snapshot);
      const body = await deps.store.loadBody(snapshot.sha256);
      return bytes(c, body, {
        'content-type': 'text/plain; charset=utf-8',
        'content-security-policy': "sandbox; default-src 'none'",
        'content-disposition': `inline; filename="robots-${snapshot.id}.txt"`,
      });
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/snapshots/{id}/model`,
      summary: 'The file parsed: groups, rules with lines, sitemaps, other lines, lint findings.',
      request: { params: ID },
      responses: { 200: answer('the model', ModelDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const { snapshot, site } = await snapshotOf(c, c.req.param('id'));
      if (snapshot.sha256 === null) throw noBody(snapshot);
      const model = parseRobotsTxt(await deps.store.loadBody(snapshot.sha256), {
        profile: profileOf(site),
        ...(snapshot.cut ? { cut: snapshot.cut } : {}),
      });
      return c.json(modelDocument(snapshot.id, model), 200);
    },
  );

  // The site's URL set (from its sitemaps) evaluated for each crawler: the current
  // snapshot's, or ?snapshot=ID's.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/coverage`,
      summary:
        'Its URL set (from its sitemaps) evaluated for each crawler: counts, deciding rules with their URL counts, prefixes, samples, and the sitemaps read.',
      request: {
        params: ID,
        query: z.object({ snapshot: query('a snapshot id (default: the current one)') }),
      },
      responses: { 200: answer('its coverage', CoverageDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      const document = await readCoverage(
        deps.store,
        site,
        optionalId(c.req.query('snapshot'), 'snapshot'),
      );
      if ('missing' in document) throw new HTTPException(404, { message: document.missing });
      return c.json(document, 200);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/diff`,
      summary:
        "Two snapshots compared: their change events, causes, unified text diff and, when the site reads its sitemaps, each crawler's allowed sitemap URLs in both (coverage: {from, to, sameUrlSet, agents: [{agent, before, after}]}, or null).",
      request: {
        params: ID,
        query: z.object({
          from: query('a snapshot id (the one before `to` when left out)'),
          to: query('a snapshot id (the latest change when left out)'),
        }),
      },
      responses: { 200: answer('the two compared', DiffDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      const view = await viewDiff(
        deps.store,
        site,
        diffPair((name) => c.req.query(name)),
      );
      if ('missing' in view)
        throw new HTTPException(404, { message: `nothing to compare: ${view.missing}` });
      return c.json(diffDocument(view, site), 200);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/verdicts`,
      summary: 'The verdicts now, with their deciding rules.',
      request: { params: ID },
      responses: { 200: answer('the verdicts now', VerdictsDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      const [latest] = await deps.store.listSnapshots(site.id, 1);
      return c.json(
        {
          snapshotId: latest?.id ?? null,
          verdicts: latest === undefined ? [] : await deps.store.loadVerdicts(latest.id),
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/verdicts/history`,
      summary: 'One watched URL for one crawler through time.',
      request: {
        params: ID,
        query: z.object({ url: needed('the watched URL'), agent: needed('the crawler') }),
      },
      responses: {
        200: answer('runs of the same verdict', VerdictHistoryDocument),
        ...errors([400, 404]),
      },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      const url = c.req.query('url');
      const agent = c.req.query('agent');
      if (!url || !agent) throw new HTTPException(400, { message: 'give both url and agent' });
      const { runs } = await viewVerdictHistory(deps.store, site, url, agent);
      return c.json({ url, agent, runs }, 200);
    },
  );

  // A site's changes, newest first, each with its causes: what people read.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/changes`,
      summary: 'Its changes, newest first, each with its causes.',
      request: {
        params: ID,
        query: z.object({ kind: repeatable('status, file, rules or other (repeatable)'), ...LIST }),
      },
      responses: { 200: answer('its changes', ChangesDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      const requested = (c.req.queries('kind') ?? []).flatMap((k) => k.split(','));
      const kinds = requested.filter(isChangeKind);
      if (kinds.length < requested.length)
        throw new HTTPException(400, {
          message: `kind must be among ${Object.keys(CHANGE_KINDS).join(', ')}`,
        });
      const limit = limitOf(c, 20);
      const view = await viewSite(deps.store, site, {
        now: deps.now(),
        timezone: deps.config.schedule.timezone,
        kinds,
        changesBefore: optionalId(c.req.query('before'), 'before'),
        changesPerPage: limit,
        snapshotRows: 0,
        crawlers: [],
        blockingOnly: false,
      });
      const params = new URLSearchParams({ limit: String(limit) });
      if (kinds.length > 0) params.set('kind', kinds.join(','));
      if (view.olderChanges !== null) params.set('before', String(view.olderChanges));
      return c.json(
        {
          changes: view.changes,
          next:
            view.olderChanges === null
              ? null
              : `${API}/sites/${site.id}/changes?${params.toString()}`,
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/events`,
      summary: 'Change events, newest first, by site and type.',
      request: {
        query: z.object({
          site: query('a site id'),
          type: repeatable('event types, separated by commas'),
          ...LIST,
        }),
      },
      responses: { 200: answer('change events', EventsDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const siteParam = c.req.query('site');
      const site = siteParam === undefined ? undefined : await sites.resolve(c, siteParam);
      const requested = (c.req.queries('type') ?? []).flatMap((t) => t.split(','));
      const types = requested.filter(isChangeEventType);
      if (types.length < requested.length)
        throw new HTTPException(400, {
          message: `type must be among ${CHANGE_EVENT_TYPES.join(', ')}`,
        });
      const limit = limitOf(c, 100);
      const before = c.req.query('before');
      const rows = await deps.store.listEvents({
        ...(site === undefined ? {} : { siteId: site.id }),
        ...(await sites.only(c)),
        types,
        ...(before === undefined ? {} : { beforeId: parseId(before, 'before') }),
        limit: limit + 1,
      });
      const shown = rows.slice(0, limit);
      const params = new URLSearchParams();
      if (site !== undefined) params.set('site', String(site.id));
      if (types.length > 0) params.set('type', types.join(','));
      params.set('limit', String(limit));
      if (rows.length > limit) params.set('before', String(shown[shown.length - 1]!.id));
      return c.json(
        {
          events: shown.map((e) => ({
            id: e.id,
            siteId: e.siteId,
            snapshotId: e.snapshotId,
            at: e.at,
            ...boundEvents([e.event])[0]!,
          })),
          next: rows.length > limit ? `${API}/events?${params.toString()}` : null,
        },
        200,
      );
    },
  );

  return app;
}
