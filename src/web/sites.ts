import { HTTPException } from 'hono/http-exception';
import type { SiteConfig } from '../config/config.js';
import type { SiteRef } from '../monitor/view-site.js';
import type { WebDeps } from './deps.js';

/** The configured sites with their ids, looked up once (the configuration does not change). */
export function configuredSites(deps: WebDeps) {
  let sites: Promise<{ id: number; site: SiteConfig }[]> | undefined;
  const byOrigin = new Map(deps.config.sites.map((s) => [s.origin, s]));
  return {
    all(): Promise<{ id: number; site: SiteConfig }[]> {
      sites ??= deps.store
        .syncSites(deps.config.sites.map((s) => s.origin))
        .then((stored) => {
          const ids = new Map(stored.map((s) => [s.origin, s.id]));
          return deps.config.sites.map((site) => ({ id: ids.get(site.origin)!, site }));
        })
        .catch((error: unknown) => {
          sites = undefined; // try again on the next request
          throw error;
        });
      return sites;
    },
    /** A site by the id in a URL: 404 unless the store has it. */
    async resolve(param: string | undefined): Promise<SiteRef> {
      const id = parseId(param, 'site');
      const found = await deps.store.findSiteById(id);
      if (found === undefined) throw new HTTPException(404, { message: `there is no site ${id}` });
      return { id: found.id, origin: found.origin, config: byOrigin.get(found.origin) };
    },
  };
}

export type ConfiguredSites = ReturnType<typeof configuredSites>;

/** Ids are PostgreSQL integers: none is larger. */
const MAX_ID = 2_147_483_647;

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
