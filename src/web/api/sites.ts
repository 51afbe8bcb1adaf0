/**
 * /api/v1/sites: the list with where each site stands, one site with its settings,
 * adding (one, or a list), editing, pausing and removing sites, checking one now, and its
 * history from the Internet Archive.
 */
import type { Context } from 'hono';
import type { WebEnv } from '../auth.js';
import { HTTPException } from 'hono/http-exception';
import { stream } from 'hono/streaming';
import { z } from 'zod';
import { oneLine } from '../../lib/errors.js';
import type { RunSummary } from '../../monitor/check/batch.js';
import { BACKFILL_EVERY, readBackfillOptions } from '../../monitor/archive/backfill.js';
import {
  ArchiveDocument,
  BulkDocument,
  CheckDocument,
  SiteAddedDocument,
  SiteDocument,
  SiteListDocument,
  archiveDocument,
  outcomeDocument,
  siteDocument,
  siteRowDocument,
} from '../../monitor/documents/index.js';
import { TRIAGE_STATES, isTriageState } from '../../monitor/views/overview.js';
import { viewSiteList } from '../../monitor/views/site-list.js';
import type { SiteRef } from '../../monitor/views/site.js';
import { siteSchema, siteSettings } from '../../config/schema.js';
import { BulkListRefused, addSiteList } from '../bulk.js';
import { backfillScheduler, optionalId, tagLimit } from '../sites.js';
import {
  API,
  ID,
  answer,
  apiPart,
  catalogChange,
  errors,
  jsonBody,
  limitOf,
  lines,
  parseBody,
  query,
  readJson,
  route,
} from './route.js';
import type { ApiContext } from './route.js';
import { actorOf, audited, auditedList, siteRecord } from '../audit.js';
import { textProblem } from '../../lib/text-bytes.js';

/** POST /api/v1/checks: the sites to check now, by id. */
const CheckManyBody = z.object({
  sites: z.array(z.number().int().positive()).min(1).max(1_000_000),
});

/** POST /api/v1/sites/{id}/backfill: which captures to load (each checked by readBackfillOptions). */
const BACKFILL_SHAPE = '{"since"?, "until"?, "every"?}';
const BackfillBody = z.strictObject(
  {
    since: z.string({ error: 'must be a day as text (YYYY-MM-DD)' }).optional(),
    until: z.string({ error: 'must be a day as text (YYYY-MM-DD)' }).optional(),
    every: z.string({ error: `must be one of ${BACKFILL_EVERY.join(', ')}` }).optional(),
  },
  // Only its own type's error: an unknown field keeps zod's line, which names it.
  {
    error: (issue) =>
      issue.code === 'invalid_type' ? `must be an object: ${BACKFILL_SHAPE}` : undefined,
  },
);

export function sitesApi({ deps, sites }: ApiContext) {
  const app = apiPart();

  /** One site as GET /sites/{id} answers it. */
  const siteOf = async (site: SiteRef) => {
    const [[latest], refused, judgement] = await Promise.all([
      deps.store.listSnapshots(site.id, 1),
      deps.store.loadRefusal(site.id),
      deps.store.loadJudgement(site.id),
    ]);
    return siteDocument(site, deps.catalog.get(site.id), latest, refused, judgement);
  };
  const siteById = async (c: Context<WebEnv>, id: number) =>
    siteOf(await sites.resolve(c, String(id)));

  // Paged by id: `after` is the last id of the previous page, so that a page is found
  // without counting the ones before it and stays put while sites are added.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites`,
      summary: 'The sites in id order, a page at a time, with where each stands.',
      request: {
        query: z.object({
          q: query('matches origins and names, ignoring case'),
          tag: query('only sites with this tag'),
          state: query(`only sites in this state: ${TRIAGE_STATES.join(', ')}`),
          limit: query('how many (1 to 500; 100)'),
          after: query('the last id of the previous page'),
        }),
      },
      responses: {
        200: answer('the sites; next is the URL of the next page, or null', SiteListDocument),
        ...errors([400]),
      },
    }),
    async (c) => {
      const limit = limitOf(c, 100);
      const after = optionalId(c.req.query('after'), 'after') ?? 0;
      const q = c.req.query('q') ?? '';
      const tag = c.req.query('tag') ?? '';
      const stateParam = c.req.query('state') ?? '';
      if (stateParam !== '' && !isTriageState(stateParam))
        throw new HTTPException(400, {
          message: `state must be one of ${TRIAGE_STATES.join(', ')}, not "${stateParam.slice(0, 40)}"`,
        });
      const state = stateParam === '' ? undefined : stateParam;
      const slice = await viewSiteList(
        deps.store,
        await sites.all(c),
        {
          q,
          ...(tag === '' ? {} : { tag }),
          ...(state === undefined ? {} : { state }),
          after,
          limit,
        },
        { now: deps.now(), timezone: deps.config.schedule.timezone },
      );
      const last = slice.rows.at(-1)?.row;
      const params = {
        ...(q === '' ? {} : { q }),
        ...(tag === '' ? {} : { tag }),
        ...(state === undefined ? {} : { state }),
        limit: String(limit),
      };
      const next =
        slice.more && last !== undefined
          ? `${API}/sites?${new URLSearchParams({ ...params, after: String(last.id) }).toString()}`
          : null;
      return c.json(
        { sites: slice.rows.map((r) => siteRowDocument(r.row, r.pausedAt)), next },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}`,
      summary:
        'One site: name, tags, where its settings live, paused, watches, agents, recipients, its current snapshot, and `refused` while robowatch cannot check it (its host is on a private address).',
      request: { params: ID },
      responses: { 200: answer('the site', SiteDocument), ...errors([400, 404]) },
    }),
    async (c) => c.json(await siteOf(await sites.resolve(c, c.req.param('id'))), 200),
  );

  // Sites added here are the product's own (kept in the database); the file's sites are
  // the file's: they can be paused and checked, not edited or removed.
  app.openapi(
    route({
      method: 'post',
      path: `${API}/sites`,
      summary:
        'Adds a site (as the configuration file writes one) and checks it at once: 201 with its baseline.',
      request: { body: jsonBody(siteSchema) },
      responses: {
        201: answer('the site, with `check`: its first check', SiteAddedDocument),
        ...errors([400, 409], true),
      },
    }),
    async (c) => {
      const body = await readJson(
        c,
        '{url, name?, tags?, watch?, agents?, profile?, schedule?, notify?}',
      );
      const entry = await catalogChange(() => deps.catalog.add(body, tagLimit(c)));
      deps.logger.info({ site: entry.site.origin, id: entry.id }, 'site added from the web');
      await audited(deps, actorOf(c), {
        action: 'site.add',
        siteId: entry.id,
        target: entry.site.origin,
        after: siteRecord(entry),
      });
      // Its baseline, at once: the answer says what the site's robots.txt allows now.
      let check: ReturnType<typeof outcomeDocument> | { error: string };
      try {
        check = outcomeDocument(await deps.checkNow(entry.site));
      } catch (error) {
        check = { error: oneLine(error) };
      }
      return c.json({ ...(await siteById(c, entry.id)), check }, 201, {
        location: `${API}/sites/${entry.id}`,
      });
    },
  );

  app.openapi(
    route({
      method: 'patch',
      path: `${API}/sites/{id}`,
      summary:
        'Edits a site added in the UI or API: each key replaces the site’s, null restores the default.',
      request: { params: ID, body: jsonBody(siteSettings.partial()) },
      responses: { 200: answer('the site', SiteDocument), ...errors([400, 404, 409], true) },
    }),
    async (c) => {
      const { id } = await sites.resolve(c, c.req.param('id'));
      const body = await readJson(c, '{name?, tags?, watch?, …}; null removes a setting');
      const before = siteRecord(deps.catalog.get(id));
      const entry = await catalogChange(() => deps.catalog.update(id, body, tagLimit(c)));
      deps.logger.info({ site: entry.site.origin, id }, 'site edited from the web');
      await audited(deps, actorOf(c), {
        action: 'site.edit',
        siteId: id,
        target: entry.site.origin,
        before,
        after: siteRecord(entry),
      });
      // New watched URLs or crawlers: what the current file means for them, at once.
      await deps.rejudge?.(entry.site);
      return c.json(await siteById(c, id), 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: `${API}/sites/{id}`,
      summary: 'Stops watching a site added in the UI or API; its history stays.',
      request: { params: ID },
      responses: { 204: { description: 'removed' }, ...errors([400, 404, 409], true) },
    }),
    async (c) => {
      const { id } = await sites.resolve(c, c.req.param('id'));
      const before = deps.catalog.get(id);
      await catalogChange(() => deps.catalog.remove(id));
      deps.logger.info({ id }, 'site removed from the web (its history is kept)');
      await audited(deps, actorOf(c), {
        action: 'site.remove',
        siteId: id,
        target: before?.site.origin ?? null,
        before: siteRecord(before),
      });
      return c.body(null, 204);
    },
  );

  for (const [action, paused, summary] of [
    ['pause', true, 'Pauses any site: not checked on its schedule, still shown.'],
    ['resume', false, 'Resumes a paused site.'],
  ] as const)
    app.openapi(
      route({
        method: 'post',
        path: `${API}/sites/{id}/${action}`,
        summary,
        request: { params: ID },
        responses: { 200: answer('the site', SiteDocument), ...errors([400, 404], true) },
      }),
      async (c) => {
        const { id } = await sites.resolve(c, c.req.param('id'));
        const entry = await catalogChange(() => deps.catalog.setPaused(id, paused));
        await audited(deps, actorOf(c), {
          action: paused ? 'site.pause' : 'site.resume',
          siteId: id,
          target: entry.site.origin,
        });
        deps.logger.info(
          { site: entry.site.origin, id },
          `site ${paused ? 'paused' : 'resumed'} from the web`,
        );
        return c.json(await siteById(c, id), 200);
      },
    );

  // A list of sites (one origin per line, or CSV) as the body: each line added or refused.
  app.openapi(
    route({
      method: 'post',
      path: `${API}/sites/bulk`,
      summary:
        'Adds many sites: the body is a list (text/plain or text/csv), one origin per line or CSV with origin, name, tags, watches; each line added or refused on its own.',
      responses: {
        200: answer('each line added or refused', BulkDocument),
        ...errors([400], true),
      },
    }),
    async (c) => {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const problem = textProblem(bytes);
      if (problem !== undefined) throw new HTTPException(400, { message: `the list ${problem}` });
      const text = new TextDecoder().decode(bytes);
      let results;
      try {
        results = await addSiteList(deps.catalog, text, tagLimit(c));
      } catch (error) {
        if (error instanceof BulkListRefused)
          throw new HTTPException(400, { message: error.message });
        throw error;
      }
      const added = results.filter((r) => r.outcome === 'added').length;
      deps.logger.info({ added, lines: results.length }, 'sites added from a list through the API');
      await auditedList(deps, actorOf(c), results);
      const refused = results.filter((r) => r.outcome === 'refused').length;
      return c.json({ added, refused, lines: results }, 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/sites/{id}/check`,
      summary:
        'Checks the site now: `kind` baseline, changed, unchanged, or refused (robowatch did not fetch a private address: `refused` says why, nothing is recorded of the site).',
      request: { params: ID },
      responses: {
        200: answer('the outcome, its change events and causes', CheckDocument),
        ...errors([400, 404, 409], true),
      },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      if (site.config === undefined)
        throw new HTTPException(409, { message: `${site.origin} is no longer configured` });
      const outcome = await deps.checkNow(site.config);
      await audited(deps, actorOf(c), {
        action: 'site.check',
        siteId: site.id,
        target: site.origin,
        after: { outcome: outcome.kind },
      });
      return c.json(outcomeDocument(outcome), 200);
    },
  );

  /**
   * Many sites checked now, in this process (`robowatch check` beside a running daemon):
   * one line of JSON per site as its check completes, in completion order, then one line
   * with the run's summary. A client that goes away stops the run: no further check
   * begins (those begun are recorded).
   */
  app.openapi(
    route({
      method: 'post',
      path: `${API}/checks`,
      summary:
        'Checks many sites now, as `robowatch check` does: body {"sites": [id, …]}. Answers newline-delimited JSON, one Check per site as it completes, then {"summary": {checked, baseline, changed, unchanged, events, causes, failures: [{site, reason}]}}.',
      request: { body: jsonBody(CheckManyBody) },
      responses: {
        200: {
          description: 'one Check a line, as each completes; the summary last',
          content: { 'application/x-ndjson': { schema: CheckDocument } },
        },
        ...errors([400, 404, 503], true),
      },
    }),
    async (c) => {
      const { sites: ids } = parseBody(CheckManyBody, await readJson(c, '{"sites": [id, …]}'));
      // As the person sees them: a site they may not see is not there.
      const seen = new Map((await sites.all(c)).map((e) => [e.id, e]));
      const chosen = [...new Set(ids)].map((id) => {
        const entry = seen.get(id);
        if (entry === undefined)
          throw new HTTPException(404, { message: `there is no site ${id}` });
        return entry.site;
      });
      if (deps.checkMany === undefined)
        throw new HTTPException(503, { message: 'this process does not check sites' });
      const checkMany = deps.checkMany.bind(deps);
      const run = new AbortController();
      c.header('content-type', 'application/x-ndjson');
      return lines(
        stream(c, async (out) => {
          out.onAbort(() => run.abort());
          let written = Promise.resolve();
          const line = (value: unknown) => {
            const text = `${JSON.stringify(value)}\n`;
            written = written.then(async () => {
              if (!out.aborted) await out.write(text);
            });
          };
          let summary: RunSummary;
          try {
            summary = await checkMany(
              chosen,
              (outcome) => line(outcomeDocument(outcome)),
              run.signal,
            );
          } catch (error) {
            // The answer began with 200: what stopped the run is its last line.
            deps.logger.error({ error: oneLine(error) }, 'the checks asked for stopped');
            line({ error: { status: 500, message: oneLine(error) } });
            await written;
            return;
          }
          line({ summary });
          await written;
          await audited(deps, actorOf(c), {
            action: 'sites.check',
            siteId: chosen.length === 1 ? (ids[0] ?? null) : null,
            target: chosen.length === 1 ? chosen[0]!.origin : `${chosen.length} sites`,
            after: {
              checked: summary.checked,
              changed: summary.changed,
              failures: summary.failures.length,
              stopped: run.signal.aborted,
            },
          });
        }),
      );
    },
  );

  // The site's history from the Internet Archive: what it holds, and loading more.
  const archiveOf = async (site: SiteRef) => {
    const [summary, pending] = await Promise.all([
      deps.store.archiveSummary(site.id),
      deps.scheduler?.backfillsPending() ?? new Map<number, 'waiting' | 'running'>(),
    ]);
    return archiveDocument(summary, pending.get(site.id) ?? null);
  };
  app.openapi(
    route({
      method: 'get',
      path: `${API}/sites/{id}/archive`,
      summary:
        'Its history from the Internet Archive: captures read, left out, archived snapshots, first and last capture time, and whether more is loading.',
      request: { params: ID },
      responses: {
        200: answer('what the archive gave, and whether more loads', ArchiveDocument),
        ...errors([400, 404]),
      },
    }),
    async (c) => c.json(await archiveOf(await sites.resolve(c, c.req.param('id'))), 200),
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/sites/{id}/backfill`,
      summary:
        'Loads its history before robowatch watched it from the Internet Archive (the daemon does it, spaced as archive.requestsPerMinute asks). Body: {since?, until?: YYYY-MM-DD, every?: change|day|week|month}.',
      request: { params: ID, body: { ...jsonBody(BackfillBody), required: false } },
      responses: {
        202: answer('queued: what the archive gave so far', ArchiveDocument),
        ...errors([400, 404, 409, 503], true),
      },
    }),
    async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      // No body (or an empty one) loads with the defaults; any other must be the object.
      const job = parseBody(BackfillBody, await readJson(c, BACKFILL_SHAPE, { empty: {} }));
      try {
        readBackfillOptions(job);
      } catch (error) {
        throw new HTTPException(400, { message: (error as Error).message });
      }
      await backfillScheduler(deps, site).queueBackfill({
        siteId: site.id,
        ...(job.since === undefined ? {} : { since: job.since }),
        ...(job.until === undefined ? {} : { until: job.until }),
        ...(job.every === undefined ? {} : { every: job.every }),
      });
      deps.logger.info(
        { site: site.origin, ...job },
        'history load from the Internet Archive queued',
      );
      await audited(deps, actorOf(c), {
        action: 'site.backfill',
        siteId: site.id,
        target: site.origin,
        after: job,
      });
      return c.json(await archiveOf(site), 202);
    },
  );

  return app;
}
