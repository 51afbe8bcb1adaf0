import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { seesSite } from '../policy/access-roles.js';
import { clip, oneLineText, siteLabel } from '../policy/wording/format.js';
import type { WebEnv } from './auth.js';
import type { SiteConfig } from '../config/config.js';
import type { CatalogEntry, SiteChangeRefused } from '../monitor/sites/entries.js';
import type { SiteRef } from '../monitor/views/site.js';
import type { WebDeps } from './deps.js';
import type { SiteChoices, SiteRefusal } from './pages/components.js';

/**
 * How old the site catalog may be when a page or the API reads it: sites added, edited
 * or paused by another process show within this long (this process's own at once).
 */
const CATALOG_MAX_AGE_MS = 5_000;

/** The tags a request's person is limited to; empty: every site. */
export function tagLimit(c: Context<WebEnv>): readonly string[] {
  return c.get('principal')?.tags ?? [];
}

/**
 * The watched sites with their ids, from the site catalog, as the request's person may
 * see them: a person limited to some tags sees only the sites with one of them, in every
 * list, count and page, and a site they may not see is not there (404).
 */
export function configuredSites(deps: WebDeps) {
  const fresh = () => deps.catalog.fresh(CATALOG_MAX_AGE_MS);
  return {
    async all(c: Context<WebEnv>): Promise<readonly CatalogEntry[]> {
      await fresh();
      const limit = tagLimit(c);
      // Every site, as the catalog holds them: no copy of 100,000 entries a request.
      if (limit.length === 0) return deps.catalog.entries();
      return deps.catalog.entries().filter((e) => seesSite(limit, e.site.tags));
    },
    /**
     * The ids of the sites the request's person sees, for the lists the store filters;
     * undefined when they see every site (removed sites' history included).
     */
    async visibleIds(c: Context<WebEnv>): Promise<number[] | undefined> {
      if (tagLimit(c).length === 0) return undefined;
      return (await this.all(c)).map((e) => e.id);
    },
    /** What the request's person sees of a site's settings; undefined: every site. */
    filter(c: Context<WebEnv>): ((site: SiteConfig) => boolean) | undefined {
      const limit = tagLimit(c);
      return limit.length === 0 ? undefined : (site) => seesSite(limit, site.tags);
    },
    /** `{siteIds}` for a store query of a person limited to some tags, else nothing. */
    async only(c: Context<WebEnv>): Promise<{ siteIds?: number[] }> {
      const siteIds = await this.visibleIds(c);
      return siteIds === undefined ? {} : { siteIds };
    },
    /** A watched site's name; null when it has none or is no longer watched. */
    async nameOf(id: number): Promise<string | null> {
      await fresh();
      return deps.catalog.get(id)?.site.name ?? null;
    },
    /** These sites' names, by id (of the few a list shows, not of every site). */
    async namesOf(ids: Iterable<number>): Promise<Map<number, string | null>> {
      await fresh();
      return new Map([...ids].map((id) => [id, deps.catalog.get(id)?.site.name ?? null]));
    },
    /**
     * The site a filter or a form names: by its id (as links give it) or, as a person
     * types it, by its name (letter case aside), address or host; undefined when empty.
     * When no site the person sees is called so, or several are, `refused` says so with
     * the sites that may be meant: the page is shown again with them and what was typed.
     */
    async chosen(
      c: Context<WebEnv>,
      value: string | undefined,
    ): Promise<{ site: number | undefined; refused: SiteRefusal | undefined }> {
      const text = (value ?? '').trim();
      if (text === '') return { site: undefined, refused: undefined };
      if (/^\d+$/.test(text)) return { site: parseId(text, 'site'), refused: undefined };
      const all = await this.all(c);
      const found = sitesCalled(all, text);
      if (found.length === 1) return { site: found[0]!.id, refused: undefined };
      const typed = clip(oneLineText(text), 80);
      const named = found.length > 1;
      const candidates = named ? found : sitesLike(all, text);
      return {
        site: undefined,
        refused: {
          message: named
            ? `site: ${found.length.toLocaleString('en')} watched sites are named ${JSON.stringify(typed)}: give the address of the one you mean`
            : `site: none of the watched sites is named ${JSON.stringify(typed)} or at that address`,
          typed,
          named,
          candidates: candidates
            .slice(0, CANDIDATES_SHOWN)
            .map((e) => ({ id: e.id, label: siteLabel(e.site.origin, e.site.name) })),
          more: Math.max(0, candidates.length - CANDIDATES_SHOWN),
        },
      };
    },
    /**
     * What a page offers to choose a site from: every site the person sees in a list, or,
     * past SITE_LIST_MAX of them, none (the site is typed); `typed`: the chosen one's
     * address, as the typed form shows it, else what was typed (`asTyped`), kept to mend.
     */
    async choices(
      c: Context<WebEnv>,
      chosen: number | undefined,
      asTyped = '',
    ): Promise<SiteChoices> {
      const all = await this.all(c);
      return {
        options:
          all.length > SITE_LIST_MAX
            ? null
            : all.map((e) => ({ id: e.id, label: siteLabel(e.site.origin, e.site.name) })),
        typed: chosen === undefined ? asTyped : (deps.catalog.get(chosen)?.site.origin ?? ''),
      };
    },
    /** Whether the request's person sees the site with this id. */
    async sees(c: Context<WebEnv>, id: number | null): Promise<boolean> {
      const limit = tagLimit(c);
      if (limit.length === 0) return true;
      if (id === null) return false;
      await fresh();
      const entry = deps.catalog.get(id);
      return entry !== undefined && seesSite(limit, entry.site.tags);
    },
    /** A site by the id in a URL: 404 unless the store has it and the person sees it. */
    async resolve(c: Context<WebEnv>, param: string | undefined): Promise<SiteRef> {
      const id = parseId(param, 'site');
      const found = await deps.store.findSiteById(id);
      if (found === undefined || !(await this.sees(c, id)))
        throw new HTTPException(404, { message: `there is no site ${id}` });
      await fresh();
      return { id: found.id, origin: found.origin, config: deps.catalog.get(id)?.site };
    },
  };
}

export type ConfiguredSites = ReturnType<typeof configuredSites>;

/**
 * The most sites a page lists to choose from: past it, the list would weigh more than the
 * page (a hundred thousand sites made 6 MB of it), and the site is typed instead.
 */
export const SITE_LIST_MAX = 500;

/**
 * The sites `text` names: by name (letter case aside), by address or by host (a slash
 * at the end or not).
 */
function sitesCalled(entries: readonly CatalogEntry[], text: string): CatalogEntry[] {
  const name = text.toLowerCase();
  const bare = name.replace(/\/+$/, '');
  return entries.filter(
    (e) =>
      e.site.name?.toLowerCase() === name ||
      e.site.origin === bare ||
      e.site.origin.slice(e.site.origin.indexOf('://') + 3) === bare,
  );
}

/** The most sites a refusal offers as the ones that may be meant. */
const CANDIDATES_SHOWN = 10;

/**
 * The sites `text` may mean when it names none: those whose name or address begins with
 * it (a slash at its end aside, letter case aside), then those that hold it anywhere, each
 * kind in the catalog's order.
 */
function sitesLike(entries: readonly CatalogEntry[], text: string): CatalogEntry[] {
  const part = text.toLowerCase().replace(/\/+$/, '');
  if (part === '') return [];
  const begin: CatalogEntry[] = [];
  const hold: CatalogEntry[] = [];
  for (const e of entries) {
    const name = e.site.name?.toLowerCase() ?? '';
    const { origin } = e.site;
    const host = origin.slice(origin.indexOf('://') + 3);
    if (name.startsWith(part) || host.startsWith(part) || origin.startsWith(part)) begin.push(e);
    else if (name.includes(part) || origin.includes(part)) hold.push(e);
  }
  return [...begin, ...hold];
}

/** Ids are PostgreSQL integers: none is larger. */
export const MAX_ID = 2_147_483_647;

/** A positive whole number from a URL, or a 400 that names the parameter. */
export function parseId(value: string | undefined, what: string): number {
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value))
    throw new HTTPException(400, {
      message: `${what} must be a positive whole number, not "${(value ?? '').slice(0, 40)}"`,
    });
  const id = Number(value);
  if (id > MAX_ID)
    throw new HTTPException(400, {
      message: `${what} must be a whole number from 1 to ${MAX_ID}, not ${value}`,
    });
  return id;
}

/** An optional id parameter: undefined when absent or empty. */
export function optionalId(value: string | undefined, what: string): number | undefined {
  return value === undefined || value === '' ? undefined : parseId(value, what);
}

/** The snapshots a diff compares, from `?from=N&to=M`: either may be left out. */
export function diffPair(query: (name: string) => string | undefined): {
  from?: number;
  to?: number;
} {
  const from = optionalId(query('from'), 'from');
  const to = optionalId(query('to'), 'to');
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/**
 * The daemon that loads a site's history from the Internet Archive (Load history, the
 * API); 409 for a site no longer watched, 503 without a daemon in this process.
 */
export function backfillScheduler(deps: WebDeps, site: SiteRef): NonNullable<WebDeps['scheduler']> {
  if (site.config === undefined)
    throw new HTTPException(409, { message: `${site.origin} is no longer watched` });
  if (deps.scheduler === undefined)
    throw new HTTPException(503, {
      message: `loading history needs the daemon (robowatch start); or run robowatch backfill ${site.origin}`,
    });
  return deps.scheduler;
}

const REFUSAL_STATUS = { invalid: 400, unknown: 404, conflict: 409 } as const;

/** The HTTP status of a refused change: 400 invalid, 404 unknown, 409 in conflict. */
export function refusalStatus(error: SiteChangeRefused): 400 | 404 | 409 {
  return REFUSAL_STATUS[error.why];
}
