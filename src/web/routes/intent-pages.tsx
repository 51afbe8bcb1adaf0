/**
 * The pages' side of intent and incidents: "Accept as intended" from a site's matrix,
 * acknowledging an incident, and the Incidents page.
 */
import { ACK_LIMITS } from '../../monitor/acknowledge.js';
import type { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { WebEnv } from '../auth.js';
import { may } from '../auth.js';
import type { WebDeps } from '../deps.js';
import {
  acceptIntent,
  acknowledge,
  acknowledgeAllOpen,
  changeIntent,
  visibleIncident,
} from '../intent.js';
import { actorOf } from '../audit.js';
import { IncidentPageView, IncidentsPageView } from '../pages/intent.js';
import { optionalId, parseId } from '../sites.js';
import { logFilters, readAlert, readAlertLog } from '../alert-log.js';
import { AlertLogPageView, AlertPageView } from '../pages/alerts.js';
import type { ConfiguredSites } from '../sites.js';
import type { SiteRef } from '../../monitor/views/site.js';
import type { Render } from './render.js';
import { postedForm } from './form.js';

/** A form field as text, or undefined when absent or blank. */
function field(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (value.length > max)
    throw new HTTPException(400, { message: `${name}: must be at most ${max} characters` });
  return value.trim();
}

/** How many open incidents the incidents page shows (the newest), and resolved ones a page. */
const OPEN_SHOWN = 500;
const RESOLVED_PER_PAGE = 100;

export function registerIntentPages(
  app: Hono<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  render: Render,
): void {
  app.post('/sites/:id/intent/accept', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const body = await postedForm(c);
    const url = field(body, 'url', 4000);
    const agent = field(body, 'agent', 200);
    await acceptIntent(deps, actorOf(c), site.id, {
      ...(url === undefined ? {} : { url }),
      ...(agent === undefined ? {} : { agent }),
    });
    return c.redirect(`/sites/${site.id}?done=accepted#intent`, 303);
  });

  /** A watched site's intent entries now; 404 for a site no longer watched. */
  const entriesOf = (site: SiteRef) => {
    if (site.config === undefined)
      throw new HTTPException(404, { message: `${site.origin} is no longer watched` });
    return site.config.intent.entries;
  };

  // The intent's entries, changed one at a time (the API replaces the list whole).
  app.post('/sites/:id/intent/entries', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const body = await postedForm(c);
    const watch = field(body, 'watch', 2000);
    const agents = (field(body, 'agents', 2000) ?? '').split(/[\s,]+/).filter(Boolean);
    if (watch === undefined)
      throw new HTTPException(400, {
        message: 'watch: say which watched pages (/pricing, /admin/*)',
      });
    if (agents.length === 0)
      throw new HTTPException(400, { message: 'agents: say which crawlers (Googlebot, @search…)' });
    const entries = [...entriesOf(site), { watch, agents, expect: field(body, 'expect', 20) }];
    await changeIntent(deps, actorOf(c), site.id, entries, 'intent entry added from the web');
    return c.redirect(`/sites/${site.id}?done=intent-added#intent`, 303);
  });

  app.post('/sites/:id/intent/entries/:n/remove', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    const n = Number(c.req.param('n'));
    const entries = entriesOf(site);
    const body = await postedForm(c);
    // Removes the entry the page showed, not whatever is at its place now.
    if (!Number.isInteger(n) || JSON.stringify(entries[n]) !== body.entry)
      throw new HTTPException(409, {
        message:
          'the intent changed since this page was shown: reload it and remove the entry again',
      });
    await changeIntent(
      deps,
      actorOf(c),
      site.id,
      entries.filter((_, i) => i !== n),
      'intent entry removed from the web',
    );
    return c.redirect(`/sites/${site.id}?done=intent-removed#intent`, 303);
  });

  app.post('/sites/:id/intent/reset', async (c) => {
    const site = await sites.resolve(c, c.req.param('id'));
    await changeIntent(deps, actorOf(c), site.id, null, 'intent set in the web removed');
    return c.redirect(`/sites/${site.id}?done=intent-reset#intent`, 303);
  });

  app.post('/incidents/:id/ack', async (c) => {
    const id = parseId(c.req.param('id'), 'incident');
    const body = await postedForm(c);
    const note = field(body, 'note', ACK_LIMITS.note);
    if (note === undefined)
      throw new HTTPException(400, { message: 'note: must say what is being done about it' });
    await visibleIncident(deps, sites, c, id);
    const incident = await acknowledge(deps, actorOf(c), id, {
      note,
      by: field(body, 'by', ACK_LIMITS.by),
    });
    return c.redirect(`/sites/${incident.siteId}?done=acknowledged#intent`, 303);
  });

  // Every open incident no one has acknowledged yet (of the sites this person sees), at once.
  app.post('/incidents/ack-open', async (c) => {
    const body = await postedForm(c);
    const note = field(body, 'note', ACK_LIMITS.note);
    if (note === undefined)
      throw new HTTPException(400, { message: 'note: must say what is being done about it' });
    const { acked } = await acknowledgeAllOpen(deps, sites, c, {
      note,
      by: field(body, 'by', ACK_LIMITS.by),
    });
    return c.redirect(`/incidents?done=acknowledged-all&count=${acked.length}`, 303);
  });

  app.get('/incidents', async (c) => {
    // ?site=ID: one site's incidents; ?state=open|resolved.
    const { site, refused } = await sites.chosen(c, c.req.query('site'));
    const state = c.req.query('state') || undefined;
    if (state !== undefined && state !== 'open' && state !== 'resolved')
      throw new HTTPException(400, {
        message: `state must be open or resolved, not "${state.slice(0, 40)}"`,
      });
    // ?before=ID: the resolved ones older than that (a page of them, without the open ones).
    const before = optionalId(c.req.query('before') || undefined, 'before');
    const bySite = { ...(site === undefined ? {} : { siteId: site }), ...(await sites.only(c)) };
    const [open, found] = await Promise.all([
      state === 'resolved' || before !== undefined || refused !== undefined
        ? []
        : deps.store.listIncidentHeads({ ...bySite, state: 'open', limit: OPEN_SHOWN + 1 }),
      (state === 'open' && before === undefined) || refused !== undefined
        ? []
        : deps.store.listIncidentHeads({
            ...bySite,
            state: 'resolved',
            ...(before === undefined ? {} : { before }),
            limit: RESOLVED_PER_PAGE + 1,
          }),
    ]);
    const resolved = found.slice(0, RESOLVED_PER_PAGE);
    const shown = [...open.slice(0, OPEN_SHOWN), ...resolved];
    return render(
      c,
      <IncidentsPageView
        open={open.slice(0, OPEN_SHOWN)}
        resolved={resolved}
        now={deps.now()}
        canEdit={may(c, 'write')}
        signedIn={c.get('signedIn')}
        done={c.req.query('done')}
        doneCount={Number(c.req.query('count') ?? 0) || 0}
        sites={await sites.choices(c, site, c.req.query('site'))}
        site={site}
        refused={refused}
        state={before === undefined ? state : 'resolved'}
        names={await sites.namesOf(shown.map((i) => i.siteId))}
        openCut={open.length > OPEN_SHOWN}
        older={found.length > RESOLVED_PER_PAGE ? (resolved.at(-1)?.id ?? null) : null}
      />,
      refused === undefined ? 200 : 400,
    );
  });

  app.get('/incidents/:id', async (c) => {
    const id = parseId(c.req.param('id'), 'incident');
    const incident = await visibleIncident(deps, sites, c, id);
    return render(
      c,
      <IncidentPageView
        incident={incident}
        now={deps.now()}
        canEdit={may(c, 'write')}
        signedIn={c.get('signedIn')}
        name={await sites.nameOf(incident.siteId)}
      />,
    );
  });
}

/** The alert log's pages: the list (by site, channel, state) and one alert as sent. */
export function registerAlertPages(
  app: Hono<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  render: Render,
): void {
  app.get('/alerts', async (c) => {
    const { site, refused } = await sites.chosen(c, c.req.query('site'));
    const before = optionalId(c.req.query('before') || undefined, 'before');
    const filters = logFilters(c.req.query('channel'), c.req.query('state'));
    const log =
      refused !== undefined
        ? []
        : await readAlertLog(deps, {
            ...(site === undefined ? {} : { siteId: site }),
            ...(await sites.only(c)),
            ...(before === undefined ? {} : { before }),
            ...filters,
            limit: PER_PAGE + 1,
          });
    const page = log.slice(0, PER_PAGE);
    const params = new URLSearchParams(c.req.query());
    if (site !== undefined) params.set('site', String(site)); // as typed: by its id
    params.set('before', String(page[page.length - 1]?.entry.id ?? 0));
    return render(
      c,
      <AlertLogPageView
        log={page}
        sites={await sites.choices(c, site, c.req.query('site'))}
        site={site}
        refused={refused}
        channel={filters.channel}
        state={filters.state}
        older={log.length > PER_PAGE ? `/alerts?${params.toString()}` : null}
        signedIn={c.get('signedIn')}
      />,
      refused === undefined ? 200 : 400,
    );
  });

  app.get('/alerts/:id', async (c) => {
    const one = await readAlert(deps, parseId(c.req.param('id'), 'alert'), (id) =>
      sites.sees(c, id),
    );
    return render(
      c,
      <AlertPageView entry={one} contents={one.contents} signedIn={c.get('signedIn')} />,
    );
  });
}

const PER_PAGE = 50;
