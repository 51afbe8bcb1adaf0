/** The JSON API under /api/v1: the same read models as the pages, and checking a site now. */
import { TREND_BY, viewTrends } from '../../monitor/view-trends.js';
import type { TrendBy } from '../../monitor/view-trends.js';
import { viewCoverage } from '../../monitor/view-coverage.js';
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { boundEvents, CHANGE_EVENT_TYPES } from '../../policy/events.js';
import { siteAccess } from '../../policy/verdicts.js';
import { parseRobotsTxt } from '../../robots/index.js';
import { diffDocument, viewDiff } from '../../monitor/view-diff.js';
import { snapshotDocument } from '../../monitor/view-snapshot.js';
import {
  TRIAGE_STATES,
  isTriageState,
  siteFilter,
  siteStateBitsOf,
  stateBit,
  viewOverview,
} from '../../monitor/view-overview.js';
import { CHANGE_KINDS, isChangeKind, profileOf, viewSite } from '../../monitor/view-site.js';
import { outcomeDocument } from '../../monitor/check-site.js';
import { readBackfillOptions } from '../../monitor/backfill.js';
import { viewVerdictHistory } from '../../monitor/view-verdict-history.js';
import { testRobots } from '../../monitor/test-robots.js';
import { TesterRefused } from '../../monitor/tester-thread.js';
import type { TesterThread } from '../../monitor/tester-thread.js';
import { requireWriteAccess } from '../auth.js';
import { channelTestRequest, openApiDocument, testRequest } from '../openapi.js';
import { BulkListRefused, addSiteList } from '../bulk.js';
import {
  CRAWLER_VERDICTS,
  isCrawlerVerdict,
  viewCrawler,
  viewCrawlerGroups,
  viewCrawlers,
} from '../../monitor/view-crawlers.js';
import { failingDocument, notificationsNow, sendChannelTest } from '../notifications.js';
import type { NotificationChannel } from '../../monitor/view-notifications.js';
import { oneLine } from '../../lib/errors.js';
import { redactUrl } from '../../lib/redact.js';
import { SiteChangeRefused } from '../../monitor/site-catalog.js';
import type { SiteRef } from '../../monitor/view-site.js';
import type { WebEnv } from '../auth.js';
import type { WebDeps } from '../deps.js';
import { backfillScheduler, diffPair, optionalId, parseId } from '../sites.js';
import type { ConfiguredSites } from '../sites.js';
import { checkTestSize, parseAgents, parseUrls, refusal } from '../tester-input.js';
import { eventTypes } from './pages.js';

const MAX_LIMIT = 500;

/** A request's JSON body, or a 400 that says what it should be. */
async function readJson(c: Context, shape: string): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new HTTPException(400, { message: `the body must be JSON: ${shape}` });
  }
}

/** Runs a change of the sites; a refusal becomes its HTTP error, with its one line. */
async function catalogChange<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof SiteChangeRefused)
      throw new HTTPException(error.status, { message: error.message });
    throw error;
  }
}

/** A channel as the API shows it: a webhook's URL by its origin only (its path may be a secret). */
function channelDocument(c: NotificationChannel) {
  return {
    id: c.id,
    kind: c.kind,
    site: c.site,
    to: c.shown,
    format: c.format,
    signed: c.signed,
    events: c.events,
    failing: c.failing === null ? null : failingDocument(c.failing),
  };
}

function limitOf(c: Context, fallback: number): number {
  const raw = c.req.query('limit');
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
    throw new HTTPException(400, {
      message: `limit must be a whole number from 1 to ${MAX_LIMIT}, not "${raw}"`,
    });
  return n;
}

export function registerApi(
  app: Hono<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  tester: TesterThread,
): void {
  const api = `/api/v1`;
  const snapshotOf = async (param: string | undefined) => {
    const id = parseId(param, 'snapshot');
    const snapshot = await deps.store.findSnapshot(id);
    if (snapshot === undefined)
      throw new HTTPException(404, { message: `there is no snapshot ${id}` });
    const site = await sites.resolve(String(snapshot.siteId));
    return { snapshot, site };
  };

  // Paged by id: `after` is the last id of the previous page, so that a page is found
  // without counting the ones before it and stays put while sites are added.
  app.get(`${api}/sites`, async (c) => {
    const limit = limitOf(c, 100);
    const after = optionalId(c.req.query('after'), 'after') ?? 0;
    const query = c.req.query('q') ?? '';
    const tag = c.req.query('tag') ?? '';
    const stateParam = c.req.query('state') ?? '';
    if (stateParam !== '' && !isTriageState(stateParam))
      throw new HTTPException(400, {
        message: `state must be one of ${TRIAGE_STATES.join(', ')}, not "${stateParam.slice(0, 40)}"`,
      });
    const state = stateParam === '' ? undefined : stateParam;
    const matches = siteFilter(query, tag === '' ? undefined : tag);
    let all = await sites.all();
    if (state !== undefined) {
      // The state filter needs every site's standing; the keyset paging stays by id.
      const bits = await siteStateBitsOf(deps.store, all, deps.now());
      const bit = stateBit(state);
      all = all.filter((_, i) => (bits[i]! & bit) !== 0);
    }
    const matching = all
      .filter(({ id, site }) => id > after && matches(site))
      .sort((a, b) => a.id - b.id);
    const page = matching.slice(0, limit);
    const pausedAt = new Map(page.map((e) => [e.id, e.pausedAt]));
    const view = await viewOverview(deps.store, page, {
      query: '',
      page: 1,
      perPage: limit,
      now: deps.now(),
      timezone: deps.config.schedule.timezone,
      strip: false,
    });
    const last = page[page.length - 1];
    const next =
      matching.length > limit && last !== undefined
        ? `${api}/sites?${new URLSearchParams({ ...(query === '' ? {} : { q: query }), ...(tag === '' ? {} : { tag }), ...(state === undefined ? {} : { state }), limit: String(limit), after: String(last.id) }).toString()}`
        : null;
    return c.json({
      sites: view.rows.map((r) => {
        const current = r.overview.current;
        return {
          id: r.id,
          origin: r.site.origin,
          name: r.site.name,
          tags: r.site.tags,
          managedBy: r.site.managedBy,
          paused: (pausedAt.get(r.id) ?? null) !== null,
          agents: r.site.agents.map((a) => a.token),
          profile: r.site.profile,
          access:
            current === null
              ? null
              : siteAccess({ fetch: current, stale: current.stale }, r.site.profile),
          condition: r.condition,
          status: current?.status ?? null,
          error: current?.error ?? null,
          fileCondition: current?.fileCondition ?? null,
          lastCheckedAt: current?.lastSeen ?? null,
          currentSnapshotId: current?.id ?? null,
          nextCheckAt: r.nextCheckAt,
          lastChange:
            r.lastChange === null
              ? null
              : {
                  at: r.lastChange.at,
                  snapshotId: r.lastChange.snapshotId,
                  summary: r.lastChange.headline,
                  more: r.lastChange.more,
                },
          disallowed: r.overview.disallowed,
          refused: r.overview.refused,
        };
      }),
      next,
    });
  });

  const siteDocument = async (site: SiteRef) => {
    const [[latest], refused] = await Promise.all([
      deps.store.listSnapshots(site.id, 1),
      deps.store.loadRefusal(site.id),
    ]);
    const entry = deps.catalog.get(site.id);
    return {
      id: site.id,
      origin: site.origin,
      name: site.config?.name ?? null,
      tags: site.config?.tags ?? [],
      configured: site.config !== undefined,
      managedBy: site.config?.managedBy ?? null,
      paused: (entry?.pausedAt ?? null) !== null,
      pausedAt: entry?.pausedAt ?? null,
      profile: profileOf(site),
      watches: site.config?.watches ?? [],
      /** watch: auto: the watches are chosen from its sitemaps at each check. */
      watchAuto: site.config?.watchAuto === true,
      agents: site.config?.agents ?? [],
      schedule: site.config?.schedule ?? null,
      /** Where its URL set comes from: auto, off, or the sitemaps' URLs. */
      sitemaps: site.config?.sitemaps ?? null,
      notify:
        site.config === undefined
          ? null
          : {
              email: site.config.alerts.email,
              // A webhook's URL may hold its secret: only its origin is shown.
              webhooks: site.config.alerts.webhooks.map((w) => ({
                url: redactUrl(w.url),
                format: w.format,
                signed: w.secret !== undefined,
              })),
              events: site.config.alerts.events,
            },
      current: latest === undefined ? null : snapshotDocument(latest, site),
      /** robowatch cannot check it (its address guard): `current` is what it last saw. */
      refused:
        refused === null
          ? null
          : {
              since: refused.since,
              lastTriedAt: refused.at,
              reason: refused.reason,
              message: `robowatch could not check this site: ${refused.reason}, and robowatch does not fetch private or reserved addresses (fetch.allowPrivateAddresses allows it)`,
            },
    };
  };

  app.get(`${api}/sites/:id`, async (c) => {
    return c.json(await siteDocument(await sites.resolve(c.req.param('id'))));
  });

  // Sites added here are the product's own (kept in the database); the file's sites are
  // the file's: they can be paused and checked, not edited or removed.
  app.post(`${api}/sites`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const entry = await catalogChange(() =>
      readJson(c, '{url, name?, tags?, watch?, agents?, profile?, schedule?, notify?}').then(
        (body) => deps.catalog.add(body),
      ),
    );
    deps.logger.info({ site: entry.site.origin, id: entry.id }, 'site added from the web');
    // Its baseline, at once: the answer says what the site's robots.txt allows now.
    let check: ReturnType<typeof outcomeDocument> | { error: string };
    try {
      check = outcomeDocument(await deps.checkNow(entry.site));
    } catch (error) {
      check = { error: oneLine(error) };
    }
    const site = await sites.resolve(String(entry.id));
    return c.json({ ...(await siteDocument(site)), check }, 201, {
      location: `${api}/sites/${entry.id}`,
    });
  });

  app.patch(`${api}/sites/:id`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const id = parseId(c.req.param('id'), 'site');
    const entry = await catalogChange(async () =>
      deps.catalog.update(
        id,
        await readJson(c, '{name?, tags?, watch?, …}; null removes a setting'),
      ),
    );
    deps.logger.info({ site: entry.site.origin, id }, 'site edited from the web');
    return c.json(await siteDocument(await sites.resolve(String(id))));
  });

  app.delete(`${api}/sites/:id`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const id = parseId(c.req.param('id'), 'site');
    await catalogChange(() => deps.catalog.remove(id));
    deps.logger.info({ id }, 'site removed from the web (its history is kept)');
    return c.body(null, 204);
  });

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const)
    app.post(`${api}/sites/:id/${action}`, async (c) => {
      requireWriteAccess(c, deps.config.web.token);
      const id = parseId(c.req.param('id'), 'site');
      const entry = await catalogChange(() => deps.catalog.setPaused(id, paused));
      deps.logger.info(
        { site: entry.site.origin, id },
        `site ${paused ? 'paused' : 'resumed'} from the web`,
      );
      return c.json(await siteDocument(await sites.resolve(String(id))));
    });

  // A list of sites (one origin per line, or CSV) as the body: each line added or refused.
  app.post(`${api}/sites/bulk`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const text = await c.req.text();
    let results;
    try {
      results = await addSiteList(deps.catalog, text);
    } catch (error) {
      if (error instanceof BulkListRefused)
        throw new HTTPException(400, { message: error.message });
      throw error;
    }
    deps.logger.info(
      { added: results.filter((r) => r.outcome === 'added').length, lines: results.length },
      'sites added from a list through the API',
    );
    return c.json({
      added: results.filter((r) => r.outcome === 'added').length,
      refused: results.filter((r) => r.outcome === 'refused').length,
      lines: results,
    });
  });

  // Per month, the share of sites blocking each crawler, operator or purpose.
  app.get(`${api}/trends`, async (c) => {
    const by = c.req.query('by') ?? 'agent';
    if (!(TREND_BY as readonly string[]).includes(by))
      throw new HTTPException(400, { message: `by: "${by}" is not one of ${TREND_BY.join(', ')}` });
    const since = c.req.query('since');
    if (since !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(since))
      throw new HTTPException(400, { message: `since: "${since}" is not a month (YYYY-MM)` });
    const trends = await viewTrends(
      deps.store,
      (await sites.all()).map((e) => e.site),
      deps.catalog.config,
      {
        by: by as TrendBy,
        weighted: c.req.query('weighted') === '1',
        now: deps.now(),
        ...(since === undefined ? {} : { from: new Date(`${since}-01T00:00:00Z`) }),
      },
    );
    return c.json({ by, trends });
  });

  app.get(`${api}/crawlers`, async (c) =>
    c.json({
      crawlers: await viewCrawlers(deps.store),
      groups: await viewCrawlerGroups(deps.store, deps.catalog.file.registry.active.registry),
    }),
  );

  app.get(`${api}/crawlers/:agent`, async (c) => {
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
    const view = await viewCrawler(deps.store, await sites.all(), c.req.param('agent'), {
      page,
      perPage: limitOf(c, 100),
      now: deps.now(),
      ...(verdictParam === '' ? {} : { verdict: verdictParam }),
    });
    return c.json({
      agent: view.agent,
      counts: view.counts,
      sites: view.rows.map((r) => ({
        id: r.id,
        origin: r.site.origin,
        name: r.site.name,
        verdict: r.verdict,
        disallowed: r.disallowed,
        watched: r.watched,
      })),
      total: view.total,
      page: view.page,
      pages: view.pages,
    });
  });

  // Crawler presets: the built-in ones, the file's, and those made here (which PUT and
  // DELETE change). "@shop-bots" or "shop-bots" in the path.
  const presetName = (c: Context<WebEnv>) => {
    const name = c.req.param('name') ?? '';
    return name.startsWith('@') ? name : `@${name}`;
  };
  app.get(`${api}/presets`, (c) => c.json({ presets: deps.catalog.presets() }));

  // The AI crawler registry in use: its version, where it is refreshed from, its crawlers.
  app.get(`${api}/registry`, (c) => {
    const { active, url, refresh } = deps.catalog.file.registry;
    return c.json({
      version: active.version,
      url,
      refresh: url === null ? null : refresh,
      agents: active.registry.agents.map((a) => ({
        token: a.token,
        name: a.name,
        operator: a.operator,
        preset: a.operatorSlug === null ? null : `@operator:${a.operatorSlug}`,
        purposes: a.purposes,
        respectsRobotsTxt: a.respectsRobotsTxt,
      })),
    });
  });
  app.put(`${api}/presets/:name`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const name = presetName(c);
    const body = await readJson(c, '{"agents": ["Googlebot", …]}');
    const preset = await catalogChange(() => deps.catalog.setPreset(name, body));
    deps.logger.info({ preset: name, agents: preset.agents.length }, 'preset saved from the API');
    return c.json(preset);
  });
  app.delete(`${api}/presets/:name`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const name = presetName(c);
    await catalogChange(() => deps.catalog.deletePreset(name));
    deps.logger.info({ preset: name }, 'preset deleted from the API');
    return c.body(null, 204);
  });

  // The default recipients and webhooks: the file's (read-only) and those added here.
  const defaultsDocument = () => {
    const { file, added } = deps.catalog.defaultChannels();
    const hooks = (list: readonly { url: string; format?: string; secret?: string }[]) =>
      list.map((w) => ({
        url: redactUrl(w.url),
        format: w.format ?? 'json',
        signed: w.secret !== undefined,
      }));
    return {
      file: { email: file.email, webhooks: hooks(file.webhooks) },
      added: { email: added.email, webhooks: hooks(added.webhooks) },
    };
  };
  app.get(`${api}/notifications/defaults`, (c) => c.json(defaultsDocument()));
  app.put(`${api}/notifications/defaults`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const body = await readJson(c, '{"email": [...], "webhooks": [{"url", "secret"?, "format"?}]}');
    await catalogChange(() => deps.catalog.setDefaultChannels(body));
    deps.logger.info({}, 'default recipients saved from the API');
    return c.json(defaultsDocument());
  });

  app.get(`${api}/openapi.json`, (c) => c.json(openApiDocument()));

  // Where alerts go, and whether they get there.
  app.get(`${api}/notifications`, async (c) => {
    const view = await notificationsNow(deps, sites);
    return c.json({
      email: view.email,
      channels: view.channels.map(channelDocument),
      failing: view.failing.map(failingDocument),
    });
  });

  app.post(`${api}/notifications/test`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const body = await readJson(c, '{"channel": "<id from GET /api/v1/notifications>"}');
    const parsed = channelTestRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HTTPException(400, {
        message: `${issue.path.join('.') || 'body'}: ${issue.message}`,
      });
    }
    const result = await sendChannelTest(deps, sites, parsed.data.channel);
    if (!result.sent) throw new HTTPException(502, { message: result.message });
    return c.json({
      sent: true,
      channel: channelDocument(result.channel),
      message: result.message,
    });
  });

  // The site's URL set (from its sitemaps) evaluated for each crawler: the current
  // snapshot's, or ?snapshot=ID's.
  app.get(`${api}/sites/:id/coverage`, async (c) => {
    const site = await sites.resolve(c.req.param('id'));
    const asked = optionalId(c.req.query('snapshot'), 'snapshot');
    const snapshot =
      asked === undefined
        ? (await deps.store.listSnapshots(site.id, 1))[0]
        : await deps.store.getSnapshot(site.id, asked);
    if (snapshot === undefined)
      throw new HTTPException(404, {
        message:
          asked === undefined
            ? `${site.origin} has not been checked yet`
            : `there is no snapshot ${asked} of ${site.origin}`,
      });
    const document = await viewCoverage(deps.store, snapshot.id);
    if (document === undefined)
      throw new HTTPException(404, {
        message:
          site.config?.sitemaps === 'off'
            ? `${site.origin} has no coverage: its sitemaps are off (set sitemaps: auto, or list them)`
            : `${site.origin} has no coverage of snapshot ${snapshot.id} yet: it is computed after a check`,
      });
    return c.json(document);
  });

  app.get(`${api}/sites/:id/snapshots`, async (c) => {
    const site = await sites.resolve(c.req.param('id'));
    const limit = limitOf(c, 50);
    const page = await deps.store.listSnapshots(
      site.id,
      limit + 1,
      optionalId(c.req.query('before'), 'before'),
    );
    const shown = page.slice(0, limit);
    return c.json({
      snapshots: shown.map((s) => snapshotDocument(s, site)),
      next:
        page.length > limit
          ? `${api}/sites/${site.id}/snapshots?limit=${limit}&before=${shown[shown.length - 1]!.id}`
          : null,
    });
  });

  app.get(`${api}/snapshots/:id`, async (c) => {
    const { snapshot, site } = await snapshotOf(c.req.param('id'));
    return c.json(snapshotDocument(snapshot, site));
  });

  // The bytes as served, as inert text: never rendered by a browser as HTML or script.
  app.get(`${api}/snapshots/:id/body`, async (c) => {
    const { snapshot } = await snapshotOf(c.req.param('id'));
    if (snapshot.sha256 === null)
      throw new HTTPException(404, {
        message: `snapshot ${snapshot.id} has no body (${snapshot.status ?? snapshot.error})`,
      });
    const body = await deps.store.loadBody(snapshot.sha256);
    return c.body(new Uint8Array(body), 200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-security-policy': "sandbox; default-src 'none'",
      'content-disposition': `inline; filename="robots-${snapshot.id}.txt"`,
    });
  });

  app.get(`${api}/snapshots/:id/model`, async (c) => {
    const { snapshot, site } = await snapshotOf(c.req.param('id'));
    if (snapshot.sha256 === null)
      throw new HTTPException(404, {
        message: `snapshot ${snapshot.id} has no body (${snapshot.status ?? snapshot.error})`,
      });
    const model = parseRobotsTxt(await deps.store.loadBody(snapshot.sha256), {
      profile: profileOf(site),
      ...(snapshot.cut ? { cut: snapshot.cut } : {}),
    });
    return c.json({
      snapshotId: snapshot.id,
      profile: model.profile,
      groups: model.groups.map((g) => ({
        line: g.line,
        agents: g.agents.map((a) => ({ value: a.value, token: a.token })),
        rules: g.rules.map((r) => ({ directive: r.directive, pattern: r.pattern, line: r.line })),
      })),
      sitemaps: model.sitemaps,
      others: model.others,
      lint: model.lint,
      lineCount: model.lineCount,
      byteLength: model.byteLength,
      truncated: model.truncated,
    });
  });

  app.get(`${api}/sites/:id/diff`, async (c) => {
    const site = await sites.resolve(c.req.param('id'));
    const view = await viewDiff(
      deps.store,
      site,
      diffPair((name) => c.req.query(name)),
    );
    if ('missing' in view)
      throw new HTTPException(404, { message: `nothing to compare: ${view.missing}` });
    return c.json(diffDocument(view, site));
  });

  app.get(`${api}/sites/:id/verdicts`, async (c) => {
    const site = await sites.resolve(c.req.param('id'));
    const [latest] = await deps.store.listSnapshots(site.id, 1);
    return c.json({
      snapshotId: latest?.id ?? null,
      verdicts: latest === undefined ? [] : await deps.store.loadVerdicts(latest.id),
    });
  });

  app.get(`${api}/sites/:id/verdicts/history`, async (c) => {
    const site = await sites.resolve(c.req.param('id'));
    const url = c.req.query('url');
    const agent = c.req.query('agent');
    if (!url || !agent) throw new HTTPException(400, { message: 'give both url and agent' });
    const { runs } = await viewVerdictHistory(deps.store, site, url, agent);
    return c.json({ url, agent, runs });
  });

  // A site's changes, newest first, each with its causes: what people read.
  app.get(`${api}/sites/:id/changes`, async (c) => {
    const site = await sites.resolve(c.req.param('id'));
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
    return c.json({
      changes: view.changes,
      next:
        view.olderChanges === null ? null : `${api}/sites/${site.id}/changes?${params.toString()}`,
    });
  });

  app.get(`${api}/events`, async (c) => {
    const siteParam = c.req.query('site');
    const site = siteParam === undefined ? undefined : await sites.resolve(siteParam);
    const requested = (c.req.queries('type') ?? []).flatMap((t) => t.split(','));
    const types = eventTypes(requested);
    if (types.length < requested.length)
      throw new HTTPException(400, {
        message: `type must be among ${CHANGE_EVENT_TYPES.join(', ')}`,
      });
    const limit = limitOf(c, 100);
    const rows = await deps.store.listEvents({
      ...(site === undefined ? {} : { siteId: site.id }),
      types,
      ...(c.req.query('before') === undefined
        ? {}
        : { beforeId: parseId(c.req.query('before'), 'before') }),
      limit: limit + 1,
    });
    const shown = rows.slice(0, limit);
    const params = new URLSearchParams();
    if (site !== undefined) params.set('site', String(site.id));
    if (types.length > 0) params.set('type', types.join(','));
    params.set('limit', String(limit));
    if (rows.length > limit) params.set('before', String(shown[shown.length - 1]!.id));
    return c.json({
      events: shown.map((e) => ({
        id: e.id,
        siteId: e.siteId,
        snapshotId: e.snapshotId,
        at: e.at,
        ...boundEvents([e.event])[0]!,
      })),
      next: rows.length > limit ? `${api}/events?${params.toString()}` : null,
    });
  });

  app.post(`${api}/sites/:id/check`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const site = await sites.resolve(c.req.param('id'));
    if (site.config === undefined)
      throw new HTTPException(409, { message: `${site.origin} is no longer configured` });
    const outcome = await deps.checkNow(site.config);
    return c.json(outcomeDocument(outcome));
  });

  // The site's history from the Internet Archive: what it holds, and loading more.
  const archiveDocument = async (site: SiteRef) => {
    const [summary, pending] = await Promise.all([
      deps.store.archiveSummary(site.id),
      deps.scheduler?.backfillsPending() ?? new Map<number, 'waiting' | 'running'>(),
    ]);
    return { ...summary, loading: pending.get(site.id) ?? null };
  };
  app.get(`${api}/sites/:id/archive`, async (c) =>
    c.json(await archiveDocument(await sites.resolve(c.req.param('id')))),
  );
  app.post(`${api}/sites/:id/backfill`, async (c) => {
    requireWriteAccess(c, deps.config.web.token);
    const site = await sites.resolve(c.req.param('id'));
    const scheduler = backfillScheduler(deps, site);
    const text = await c.req.text();
    let body: Record<string, unknown> = {};
    try {
      body = text.trim() === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      throw new HTTPException(400, {
        message: 'the body must be JSON: {"since"?, "until"?, "every"?}',
      });
    }
    const field = (name: string) => {
      const value = body[name];
      if (value !== undefined && typeof value !== 'string')
        throw new HTTPException(400, { message: `${name}: must be a string` });
      return value;
    };
    const job = { since: field('since'), until: field('until'), every: field('every') };
    try {
      readBackfillOptions(job);
    } catch (error) {
      throw new HTTPException(400, { message: (error as Error).message });
    }
    await scheduler.queueBackfill({
      siteId: site.id,
      ...(job.since === undefined ? {} : { since: job.since }),
      ...(job.until === undefined ? {} : { until: job.until }),
      ...(job.every === undefined ? {} : { every: job.every }),
    });
    deps.logger.info(
      { site: site.origin, ...job },
      'history load from the Internet Archive queued',
    );
    return c.json(await archiveDocument(site), 202);
  });

  // The digests of the last `since` as they would be sent now: `robowatch digest --print`
  // beside a daemon that holds the embedded database asks for them here.
  app.get(`${api}/digests/preview`, async (c) => {
    const since = parseDuration(c.req.query('since') ?? '7d');
    const now = deps.now();
    const start = new Date(Math.floor((now.getTime() - since) / 3_600_000) * 3_600_000);
    const digests = await deps.previewDigests({ start, end: now }, c.req.query('to'));
    return c.json({
      period: { start, end: now },
      digests: digests.map((d) => ({
        recipient: d.recipient,
        subject: d.rendered.subject,
        text: d.rendered.text,
      })),
    });
  });

  // Evaluating a proposed file changes nothing: it needs what reading needs.
  app.post(`${api}/test`, async (c) => {
    let input: unknown;
    try {
      input = await c.req.json();
    } catch {
      throw new HTTPException(400, {
        message: 'the body must be JSON: {robotstxt, agents, urls, site?}',
      });
    }
    const parsed = testRequest.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HTTPException(400, {
        message: `${issue.path.join('.') || 'body'}: ${issue.message}`,
      });
    }
    const { robotstxt, agents, urls, site: siteId } = parsed.data;
    const site = siteId === undefined ? undefined : await sites.resolve(String(siteId));
    const body = new TextEncoder().encode(robotstxt);
    const test = {
      origin: site?.origin,
      body,
      agents: parseAgents(
        agents.map((a) => (typeof a === 'string' ? a : `${a.token} ${a.profile ?? 'google'}`)),
      ),
      urls: parseUrls(urls, site?.origin),
    };
    checkTestSize(body.length, test.urls.length, test.agents.length);
    try {
      return c.json(await testRobots(deps.store, test, (i) => tester.evaluate(i)));
    } catch (error) {
      throw error instanceof TesterRefused ? refusal(c, error) : error;
    }
  });
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "7d" → milliseconds, or a 400 that says what a duration looks like. */
function parseDuration(value: string): number {
  const match = /^(\d{1,6})([mhdw])$/.exec(value);
  if (!match)
    throw new HTTPException(400, {
      message: `since must be a duration such as 7d, 24h or 2w, not "${value}"`,
    });
  return Number(match[1]) * UNITS[match[2]!]!;
}
