/**
 * Crawlers under /api/v1: each crawler across sites and one on every site, the blocking
 * trends by month, the AI crawler registry in use, and the crawler presets.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { presetSchema } from '../../config/schema.js';
import {
  CrawlerDocument,
  CrawlersDocument,
  PresetDocument,
  PresetsDocument,
  RegistryDocument,
  TrendsDocument,
  crawlerDocument,
  registryDocument,
} from '../../monitor/documents/index.js';
import {
  CRAWLER_VERDICTS,
  isCrawlerVerdict,
  viewCrawler,
  viewCrawlerGroups,
  viewCrawlers,
} from '../../monitor/views/crawlers.js';
import { TREND_BY, viewTrends } from '../../monitor/views/trends.js';
import type { TrendBy } from '../../monitor/views/trends.js';
import type { WebEnv } from '../auth.js';
import {
  AGENT,
  API,
  PRESET_NAME,
  answer,
  apiPart,
  catalogChange,
  errors,
  jsonBody,
  limitOf,
  query,
  readJson,
  route,
} from './route.js';
import type { ApiContext } from './route.js';
import { actorOf, audited } from '../audit.js';

export function crawlersApi({ deps, sites }: ApiContext) {
  const app = apiPart();

  // Per month, the share of sites blocking each crawler, operator or purpose.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/trends`,
      summary:
        'Per month (each site with its state at the month’s end), the share of the sites watching a crawler that block it from every watched URL, from some, from none, or have no robots.txt; by=agent|operator|purpose, since=YYYY-MM, weighted=1 (by rank).',
      request: {
        query: z.object({
          by: query('agent, operator or purpose (agent)'),
          since: query('the first month, YYYY-MM'),
          weighted: query('1: each site weighs by its rank'),
        }),
      },
      responses: { 200: answer('the trends', TrendsDocument), ...errors([400]) },
    }),
    async (c) => {
      const by = c.req.query('by') ?? 'agent';
      if (!(TREND_BY as readonly string[]).includes(by))
        throw new HTTPException(400, {
          message: `by: "${by}" is not one of ${TREND_BY.join(', ')}`,
        });
      const since = c.req.query('since');
      if (since !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(since))
        throw new HTTPException(400, { message: `since: "${since}" is not a month (YYYY-MM)` });
      const trends = await viewTrends(
        deps.store,
        (await sites.all(c)).map((e) => e.site),
        deps.catalog.config,
        {
          by: by as TrendBy,
          weighted: c.req.query('weighted') === '1',
          now: deps.now(),
          ...(since === undefined ? {} : { from: new Date(`${since}-01T00:00:00Z`) }),
        },
      );
      return c.json({ by: by as TrendBy, trends }, 200);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/crawlers`,
      summary:
        'Every crawler watched on some site: on how many sites it is blocked from every, some or no watched URL; and the AI registry’s purposes and operators: on how many sites all their watched crawlers are blocked, some, none.',
      responses: { 200: answer('the crawlers', CrawlersDocument), ...errors([]) },
    }),
    async (c) =>
      c.json(
        {
          crawlers: await viewCrawlers(deps.store),
          groups: await viewCrawlerGroups(deps.store, deps.catalog.file.registry.active.registry),
        },
        200,
      ),
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/crawlers/{agent}`,
      summary: 'One crawler on every watched site, most restrictive first, a page at a time.',
      request: {
        params: AGENT,
        query: z.object({
          verdict: query(`only sites where it is: ${CRAWLER_VERDICTS.join(', ')}`),
          page: query('the page (1 and up)'),
          limit: query('sites per page (1 to 500; 100)'),
        }),
      },
      responses: { 200: answer('the crawler on every site', CrawlerDocument), ...errors([400]) },
    }),
    async (c) => {
      const verdictParam = c.req.query('verdict') ?? '';
      if (verdictParam !== '' && !isCrawlerVerdict(verdictParam))
        throw new HTTPException(400, {
          message: `verdict must be one of ${CRAWLER_VERDICTS.join(', ')}, not "${verdictParam.slice(0, 40)}"`,
        });
      const page = Number(c.req.query('page') ?? '1');
      if (!Number.isInteger(page) || page < 1)
        throw new HTTPException(400, {
          message: `page must be a positive whole number, not "${(c.req.query('page') ?? '').slice(0, 20)}"`,
        });
      const view = await viewCrawler(deps.store, await sites.all(c), c.req.valid('param').agent, {
        page,
        perPage: limitOf(c, 100),
        now: deps.now(),
        ...(verdictParam === '' ? {} : { verdict: verdictParam }),
      });
      return c.json(crawlerDocument(view), 200);
    },
  );

  // The AI crawler registry in use: its version, where it is refreshed from, its crawlers.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/registry`,
      summary:
        'The AI crawler registry in use (the presets @ai, @ai-training, @operator:… come from it): its version (sha256, source, date), the URL it is refreshed from, and each crawler with its operator, purposes and whether it says it obeys robots.txt.',
      responses: { 200: answer('the registry in use', RegistryDocument), ...errors([]) },
    }),
    (c) => {
      const { active, url, refresh } = deps.catalog.file.registry;
      return c.json(registryDocument(active.version, active.registry.agents, url, refresh), 200);
    },
  );

  // Crawler presets: the built-in ones, the file's, and those made here (which PUT and
  // DELETE change). "@shop-bots" or "shop-bots" in the path.
  const presetName = (c: Context<WebEnv>) => {
    const name = c.req.param('name') ?? '';
    return name.startsWith('@') ? name : `@${name}`;
  };
  app.openapi(
    route({
      method: 'get',
      path: `${API}/presets`,
      summary:
        'The crawler presets: built in, from the configuration file, or made here (source), with the sites added here that name each.',
      responses: { 200: answer('the presets', PresetsDocument), ...errors([]) },
    }),
    (c) => c.json({ presets: deps.catalog.presets() }, 200),
  );
  app.openapi(
    route({
      method: 'put',
      path: `${API}/presets/{name}`,
      summary:
        'Makes or replaces a preset made here ("@shop-bots"); the sites that name it watch its crawlers from then on.',
      request: { params: PRESET_NAME, body: jsonBody(presetSchema) },
      responses: { 200: answer('the preset', PresetDocument), ...errors([400, 409], true) },
    }),
    async (c) => {
      const name = presetName(c);
      const body = await readJson(c, '{"agents": ["Googlebot", …]}');
      const before = deps.catalog.presets().find((p) => p.name === name) ?? null;
      const preset = await catalogChange(() => deps.catalog.setPreset(name, body));
      await audited(deps, actorOf(c), {
        action: 'preset.set',
        target: preset.name,
        before: before === null ? null : { agents: before.agents },
        after: { agents: preset.agents },
      });
      deps.logger.info({ preset: name, agents: preset.agents.length }, 'preset saved from the API');
      return c.json(preset, 200);
    },
  );
  app.openapi(
    route({
      method: 'delete',
      path: `${API}/presets/{name}`,
      summary: 'Deletes a preset made here that no site names.',
      request: { params: PRESET_NAME },
      responses: { 204: { description: 'deleted' }, ...errors([404, 409], true) },
    }),
    async (c) => {
      const name = presetName(c);
      const before = deps.catalog.presets().find((p) => p.name === name) ?? null;
      await catalogChange(() => deps.catalog.deletePreset(name));
      await audited(deps, actorOf(c), {
        action: 'preset.delete',
        target: name,
        before: before === null ? null : { agents: before.agents },
      });
      deps.logger.info({ preset: name }, 'preset deleted from the API');
      return c.body(null, 204);
    },
  );

  return app;
}
