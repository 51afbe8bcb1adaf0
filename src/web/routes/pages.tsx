/** The HTML pages: server-rendered, usable without JavaScript. */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isChangeEventType } from '../../policy/changes/events.js';
import type { ChangeEvent } from '../../policy/changes/events.js';
import { viewDiff } from '../../monitor/views/diff.js';
import { redactUrl } from '../../lib/redact.js';
import { isTriageState, viewOverview } from '../../monitor/views/overview.js';
import { isChangeKind, viewSite } from '../../monitor/views/site.js';
import { viewSnapshot } from '../../monitor/views/snapshot.js';
import { viewVerdictHistory } from '../../monitor/views/verdict-history.js';
import type { TesterThread } from '../../monitor/threads/tester-thread.js';
import { feedKey, may } from '../auth.js';
import { actorOf, audited, auditedList, siteRecord } from '../audit.js';
import type { WebEnv } from '../auth.js';
import type { WebDeps } from '../deps.js';
import { DiffPageView } from '../pages/diff.js';
import { OverviewPageView } from '../pages/overview.js';
import { BulkAddPageView } from '../pages/bulk.js';
import { BulkListRefused, addSiteList, bulkWatchPaths } from '../bulk.js';
import { renderAtom } from '../feed.js';
import { CrawlerPageView } from '../pages/crawlers.js';
import { isCrawlerVerdict, viewCrawler } from '../../monitor/views/crawlers.js';
import { pageRenderer } from './render.js';
import { registerSettingsPages } from './settings-pages.js';
import { registerAccountPages } from './account-pages.js';
import { registerAlertPages, registerIntentPages } from './intent-pages.js';
import type { FeedSite } from '../feed.js';
import type { SiteConfig } from '../../config/config.js';
import type { BulkLine } from '../bulk.js';
import { SitePageView } from '../pages/site.js';
import {
  EMPTY_SITE_FORM,
  RemoveSitePageView,
  agentText,
  SiteFormPageView,
  formOf,
  settingsOf,
} from '../pages/site-form.js';
import type { SiteForm } from '../pages/site-form.js';
import { SiteChangeRefused } from '../../monitor/sites/entries.js';
import { SnapshotPageView } from '../pages/snapshot.js';
import { VerdictHistoryPageView } from '../pages/verdict-history.js';
import {
  backfillScheduler,
  diffPair,
  optionalId,
  parseId,
  refusalStatus,
  tagLimit,
} from '../sites.js';
import type { ConfiguredSites } from '../sites.js';
import { registerToolPages } from './tool-pages.js';
import { postedForm } from './form.js';
import { textProblem } from '../../lib/text-bytes.js';

const PER_PAGE = 100;
/** Entries in a feed: the newest changes. */
const FEED_ENTRIES = 50;

function feedSite(id: number, site: SiteConfig): FeedSite {
  return { id, origin: site.origin, name: site.name, agents: site.agents.map((a) => a.token) };
}
/** Changes per page of a site's change list (each with up to five causes). */
const CHANGES_PER_PAGE = 20;
const CHECK_OUTCOMES = new Set(['baseline', 'changed', 'unchanged', 'failed']);

/** Event types from `?type=…` (repeated), keeping only known ones. */
export function eventTypes(values: readonly string[]): ChangeEvent['type'][] {
  return values.flatMap((v) => v.split(',')).filter(isChangeEventType);
}

export function registerPages(
  app: Hono<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  tester: TesterThread,
): void {
  const token = deps.config.web.token;
  /** Feed links carry the feeds' read-only key when a token guards everything else. */
  const feedQuery = token === undefined ? '' : `?key=${feedKey(token)}`;
  /** A page, its times shown in the configured time zone with how long ago. */
  const render = pageRenderer(deps);
  registerSettingsPages(app, deps, sites, render);
  registerAccountPages(app, deps, render);
  registerIntentPages(app, deps, sites, render);
  registerAlertPages(app, deps, sites, render);

  app.get('/', async (c) => {
    const query = c.req.query('q') ?? '';
    const tag = c.req.query('tag') || undefined;
    const stateParam = c.req.query('state') ?? '';
    // An unknown state or order (an old bookmark) shows every site rather than an error.
    const state = isTriageState(stateParam) ? stateParam : undefined;
    const sort = c.req.query('sort') === 'listed' ? 'listed' : 'problems';
    const page = Number(c.req.query('page') ?? '1') || 1;
    const now = deps.now();
    const all = await sites.all(c);
    const paused = new Set(all.filter((e) => e.pausedAt !== null).map((e) => e.id));
    const failing = deps.store.failingChannels();
    const view = await viewOverview(deps.store, all, {
      query,
      ...(tag === undefined ? {} : { tag }),
      ...(state === undefined ? {} : { state }),
      order: sort === 'listed' ? 'given' : 'problems',
      counts: true,
      page,
      perPage: PER_PAGE,
      now,
      timezone: deps.config.schedule.timezone,
      blockedIntent: true,
    });
    return render(
      c,
      <OverviewPageView
        view={view}
        query={query}
        tag={tag}
        state={state}
        sort={sort}
        // Channels and stored sites that fail are every site's business: not a limited person's.
        failing={tagLimit(c).length === 0 ? await failing : []}
        feedQuery={feedQuery}
        signedIn={c.get('signedIn')}
        now={now}
        canEdit={may(c, 'write')}
        paused={paused}
        removed={c.req.query('removed')}
        problems={tagLimit(c).length === 0 ? deps.catalog.problems() : []}
      />,
    );
  });

  // Atom feeds of changes: every watched site's, and one site's (newest 50).
  const feedBase = (c: Context<WebEnv>) => deps.config.web.publicUrl ?? new URL(c.req.url).origin;
  const atom = (c: Context<WebEnv>, xml: string) =>
    c.body(xml, 200, { 'content-type': 'application/atom+xml; charset=utf-8' });
  app.get('/feed.atom', async (c) => {
    const entries = new Map((await sites.all(c)).map((e) => [e.id, e.site]));
    const changes = await deps.store.listChanges({ ...(await sites.only(c)), limit: FEED_ENTRIES });
    return atom(
      c,
      renderAtom({
        base: feedBase(c),
        self: `/feed.atom${feedQuery}`,
        page: '/',
        title: 'robowatch: robots.txt changes',
        now: deps.now(),
        changes: changes.flatMap((change) => {
          const site = change.siteId === undefined ? undefined : entries.get(change.siteId);
          return site === undefined ? [] : [{ change, site: feedSite(change.siteId!, site) }];
        }),
      }),
    );
  });
  app.get('/sites/:id/feed.atom', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const changes = await deps.store.listChanges({ siteId: site.id, limit: FEED_ENTRIES });
    const who: FeedSite = {
      id: site.id,
      origin: site.origin,
      name: site.config?.name ?? null,
      agents: site.config?.agents.map((a) => a.token) ?? [],
    };
    return atom(
      c,
      renderAtom({
        base: feedBase(c),
        self: `/sites/${site.id}/feed.atom${feedQuery}`,
        page: `/sites/${site.id}`,
        title: `robowatch: ${who.name ?? site.origin} robots.txt changes`,
        now: deps.now(),
        changes: changes.map((change) => ({ change, site: who })),
      }),
    );
  });

  // One crawler across every site (the list and the presets: routes/settings-pages.tsx).
  app.get('/crawlers/:agent', async (c) => {
    const agent = c.req.param('agent');
    const verdictParam = c.req.query('verdict') ?? '';
    const verdict = isCrawlerVerdict(verdictParam) ? verdictParam : undefined;
    const view = await viewCrawler(deps.store, await sites.all(c), agent, {
      page: Number(c.req.query('page') ?? '1') || 1,
      perPage: PER_PAGE,
      now: deps.now(),
      ...(verdict === undefined ? {} : { verdict }),
    });
    return render(
      c,
      <CrawlerPageView view={view} verdict={verdict} signedIn={c.get('signedIn')} />,
    );
  });

  // Adding and editing sites: the forms post here; the API does the same over JSON.
  const formDefaults = () => {
    const { siteDefaults } = deps.catalog.file;
    const targets = deps.catalog.config.notify.defaults;
    return {
      watch: siteDefaults.watchAuto ? ['auto'] : siteDefaults.watchPaths,
      agents: siteDefaults.agents.map(agentText).join(', '),
      schedule: siteDefaults.schedule,
      sitemaps:
        siteDefaults.sitemaps === 'auto'
          ? "auto: robots.txt's Sitemap: lines, else /sitemap.xml"
          : siteDefaults.sitemaps === 'off'
            ? 'off'
            : siteDefaults.sitemaps.join(', '),
      email: targets.email.join(', '),
      webhooks: targets.webhooks.map((w) => redactUrl(w.url)).join(', '),
      allowPrivate: deps.config.fetch.allowPrivateAddresses,
    };
  };
  const readSiteForm = async (c: Context<WebEnv>): Promise<SiteForm> => {
    const body = await postedForm(c);
    const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    return {
      url: text('url'),
      name: text('name'),
      tags: text('tags'),
      watch: text('watch'),
      agents: text('agents'),
      profile: text('profile'),
      schedule: text('schedule'),
      sitemaps: text('sitemaps'),
      email: text('email'),
      webhooks: text('webhooks'),
    };
  };
  const formPage = (
    c: Context<WebEnv>,
    editing: { id: number; origin: string } | undefined,
    form: SiteForm,
    error?: SiteChangeRefused,
  ) =>
    render(
      c,
      <SiteFormPageView
        editing={editing}
        form={form}
        error={error?.message}
        defaults={formDefaults()}
        signedIn={c.get('signedIn')}
      />,
      error === undefined ? 200 : refusalStatus(error),
    );
  /** A site the UI may edit or remove (added in the UI or API), or the refusal. */
  const editable = async (c: Context<WebEnv>, param: string | undefined) => {
    const site = await sites.resolve(c, param);
    const entry = deps.catalog.get(site.id);
    if (entry === undefined)
      throw new HTTPException(404, { message: `${site.origin} is not watched` });
    if (entry.settings === null)
      throw new HTTPException(409, {
        message: `${site.origin} is listed in ${deps.catalog.file.file}: edit it there`,
      });
    return { ...entry, settings: entry.settings };
  };

  // Many at once: a pasted or uploaded list, each line added or refused on its own.
  const bulkPage = (
    c: Context<WebEnv>,
    text: string,
    outcome: { error?: string; results?: BulkLine[] },
  ) =>
    render(
      c,
      <BulkAddPageView
        text={text}
        error={outcome.error}
        results={outcome.results}
        signedIn={c.get('signedIn')}
        watch={bulkWatchPaths(deps.catalog)}
      />,
      outcome.error === undefined ? 200 : 400,
    );
  app.get('/sites/bulk', (c) => {
    return bulkPage(c, '', {});
  });
  app.post('/sites/bulk', async (c) => {
    const body = await postedForm(c);
    const file = body['file'];
    const pasted = typeof body['sites'] === 'string' ? body['sites'] : '';
    let text = pasted;
    if (file instanceof File && file.size > 0) {
      // A zipped or Latin-1 list is said to be one, not read as lines of garbage.
      const bytes = new Uint8Array(await file.arrayBuffer());
      const problem = textProblem(bytes);
      if (problem !== undefined) return bulkPage(c, pasted, { error: `the file ${problem}` });
      text = new TextDecoder().decode(bytes);
    }
    try {
      const results = await addSiteList(deps.catalog, text, tagLimit(c));
      await auditedList(deps, actorOf(c), results);
      deps.logger.info(
        { added: results.filter((r) => r.outcome === 'added').length, lines: results.length },
        'sites added from a list on the web',
      );
      // What was refused stays in the box, to be fixed and sent again.
      const refused = new Set(results.filter((r) => r.outcome === 'refused').map((r) => r.line));
      const kept = text
        .split(/\r?\n/)
        .filter((_, i) => refused.has(i + 1))
        .join('\n');
      return bulkPage(c, kept, { results });
    } catch (error) {
      if (error instanceof BulkListRefused) return bulkPage(c, pasted, { error: error.message });
      throw error;
    }
  });

  app.get('/sites/new', (c) => {
    return formPage(c, undefined, EMPTY_SITE_FORM);
  });

  app.post('/sites/new', async (c) => {
    const form = await readSiteForm(c);
    let entry;
    try {
      entry = await deps.catalog.add({ url: form.url, ...settingsOf(form, false) }, tagLimit(c));
    } catch (error) {
      if (error instanceof SiteChangeRefused) return formPage(c, undefined, form, error);
      throw error;
    }
    deps.logger.info({ site: entry.site.origin, id: entry.id }, 'site added from the web');
    await audited(deps, actorOf(c), {
      action: 'site.add',
      siteId: entry.id,
      target: entry.site.origin,
      after: siteRecord(entry),
    });
    // Its baseline at once: its page opens on what its robots.txt allows now.
    const outcome = await deps.checkNow(entry.site).catch(() => undefined);
    return c.redirect(`/sites/${entry.id}?checked=${outcome?.kind ?? 'failed'}`, 303);
  });

  app.get('/sites/:id/edit', async (c) => {
    const entry = await editable(c, c.req.param('id'));
    return formPage(
      c,
      { id: entry.id, origin: entry.site.origin },
      formOf(entry.site.origin, entry.settings),
    );
  });

  app.post('/sites/:id/edit', async (c) => {
    const entry = await editable(c, c.req.param('id'));
    const form = await readSiteForm(c);
    try {
      const updated = await deps.catalog.update(
        entry.id,
        settingsOf(form, true, entry.settings),
        tagLimit(c),
      );
      await audited(deps, actorOf(c), {
        action: 'site.edit',
        siteId: entry.id,
        target: entry.site.origin,
        before: siteRecord(entry),
        after: siteRecord(updated),
      });
      // New watched URLs or crawlers: what the current file means for them, at once.
      await deps.rejudge?.(updated.site);
    } catch (error) {
      if (error instanceof SiteChangeRefused)
        return formPage(c, { id: entry.id, origin: entry.site.origin }, form, error);
      throw error;
    }
    deps.logger.info({ site: entry.site.origin, id: entry.id }, 'site edited from the web');
    return c.redirect(`/sites/${entry.id}?done=edited`, 303);
  });

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const)
    app.post(`/sites/:id/${action}`, async (c) => {
      const site = await sites.resolve(c, c.req.param('id'));
      try {
        await deps.catalog.setPaused(site.id, paused);
      } catch (error) {
        if (error instanceof SiteChangeRefused)
          throw new HTTPException(refusalStatus(error), { message: error.message });
        throw error;
      }
      deps.logger.info({ site: site.origin, id: site.id }, `site ${action}d from the web`);
      await audited(deps, actorOf(c), {
        action: paused ? 'site.pause' : 'site.resume',
        siteId: site.id,
        target: site.origin,
      });
      return c.redirect(`/sites/${site.id}?done=${action}d`, 303);
    });

  app.get('/sites/:id/remove', async (c) => {
    const entry = await editable(c, c.req.param('id'));
    return render(
      c,
      <RemoveSitePageView id={entry.id} origin={entry.site.origin} signedIn={c.get('signedIn')} />,
    );
  });

  app.post('/sites/:id/remove', async (c) => {
    const entry = await editable(c, c.req.param('id'));
    await deps.catalog.remove(entry.id);
    await audited(deps, actorOf(c), {
      action: 'site.remove',
      siteId: entry.id,
      target: entry.site.origin,
      before: siteRecord(entry),
    });
    deps.logger.info(
      { site: entry.site.origin, id: entry.id },
      'site removed from the web (its history is kept)',
    );
    return c.redirect(`/?removed=${encodeURIComponent(entry.site.origin)}`, 303);
  });

  app.get('/sites/:id', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const kinds = (c.req.queries('kind') ?? []).flatMap((k) => k.split(',')).filter(isChangeKind);
    const crawlers = c.req.query('crawlers') ?? '';
    const blockingOnly = c.req.query('blocking') === '1';
    const now = deps.now();
    const view = await viewSite(deps.store, site, {
      now,
      timezone: deps.config.schedule.timezone,
      kinds,
      changesBefore: optionalId(c.req.query('before'), 'before'),
      changesPerPage: CHANGES_PER_PAGE,
      snapshotRows: 50,
      crawlers: crawlers.split(/[\s,]+/),
      blockingOnly,
    });
    const checked = c.req.query('checked');
    const [archive, pending, audit] = await Promise.all([
      deps.store.archiveSummary(site.id),
      deps.scheduler?.backfillsPending() ?? new Map<number, 'waiting' | 'running'>(),
      may(c, 'admin') ? deps.accounts?.listAudit({ siteId: site.id, limit: 10 }) : undefined,
    ]);
    return render(
      c,
      <SitePageView
        archive={{
          ...archive,
          loading: pending.get(site.id) ?? null,
          canLoad: deps.scheduler !== undefined,
        }}
        view={view}
        kinds={kinds}
        crawlers={crawlers}
        blockingOnly={blockingOnly}
        now={now}
        canCheck={may(c, 'write')}
        checked={checked !== undefined && CHECK_OUTCOMES.has(checked) ? checked : undefined}
        done={c.req.query('done')}
        pausedAt={deps.catalog.get(site.id)?.pausedAt ?? null}
        file={deps.catalog.file.file}
        signedIn={c.get('signedIn')}
        feedQuery={feedQuery}
        audit={audit}
      />,
    );
  });

  app.post('/sites/:id/backfill', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    await backfillScheduler(deps, site).queueBackfill({ siteId: site.id });
    deps.logger.info({ site: site.origin }, 'history load from the Internet Archive queued');
    await audited(deps, actorOf(c), {
      action: 'site.backfill',
      siteId: site.id,
      target: site.origin,
    });
    return c.redirect(`/sites/${site.id}?done=backfill`, 303);
  });

  app.post('/sites/:id/check', async (c) => {
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
    return c.redirect(`/sites/${site.id}?checked=${outcome.kind}`, 303);
  });

  app.get('/sites/:id/snapshots/:snapshot', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const view = await viewSnapshot(
      deps.store,
      site,
      parseId(c.req.param('snapshot'), 'snapshot'),
      50,
    );
    if (view === undefined)
      throw new HTTPException(404, {
        message: `${site.origin} has no snapshot ${c.req.param('snapshot')}`,
      });
    const line = Number(c.req.query('line') ?? '1');
    return render(
      c,
      <SnapshotPageView
        site={site}
        view={view}
        from={Number.isSafeInteger(line) && line > 0 ? line : 1}
        signedIn={c.get('signedIn')}
        archiveUrl={deps.config.archive.url}
      />,
    );
  });

  app.get('/sites/:id/diff', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const view = await viewDiff(
      deps.store,
      site,
      diffPair((name) => c.req.query(name)),
    );
    const page = Number(c.req.query('page') ?? '1') || 1;
    return render(
      c,
      <DiffPageView site={site} view={view} page={page} signedIn={c.get('signedIn')} />,
    );
  });

  app.get('/sites/:id/verdicts', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const url = c.req.query('url');
    const agent = c.req.query('agent');
    if (!url || !agent) throw new HTTPException(400, { message: 'give both url and agent' });
    const { runs } = await viewVerdictHistory(deps.store, site, url, agent);
    return render(
      c,
      <VerdictHistoryPageView
        site={site}
        url={url}
        agent={agent}
        runs={runs}
        signedIn={c.get('signedIn')}
      />,
    );
  });

  registerToolPages(app, deps, sites, tester, render);
}
