/**
 * The commands' one read path: the history read from the database, or, while a daemon
 * holds the embedded one, from that daemon's API, through the same port (monitor/reads.ts).
 */
import type { Config } from '../config/config.js';
import { Presentation, wireCatalog } from '../compose.js';
import { wireDigests } from '../compose-delivery.js';
import type { Database } from '../store/index.js';
import { UsageError } from '../lib/errors.js';
import { localReads } from '../monitor/reads.js';
import type { HistoryReads, KnownSite } from '../monitor/reads.js';
import type { SiteRef } from '../monitor/views/site.js';
import { prepareDigests } from '../monitor/delivery/digests.js';
import { createWebStore } from '../store/index.js';
import type { CliContext } from './context.js';
import { originOf, originsOf } from './context.js';
import { daemonReads, openStoreOrDaemon } from './daemon-client.js';
import { watchedSites } from './watched-sites.js';

/** Runs `use` over the history, wherever it is read from; closes the database after. */
export async function withReads<T>(
  context: CliContext,
  config: Config,
  use: (reads: HistoryReads) => Promise<T>,
): Promise<T> {
  const opened = await openStoreOrDaemon(context, config);
  if ('daemon' in opened) return use(daemonReads(opened.daemon));
  const { db } = opened.handle;
  try {
    return await use(
      localReads({
        store: createWebStore(db),
        now: () => context.now(),
        config,
        watched: async () => [...(await watchedSites(db, config)).values()],
        // Read without writing: a history needs no site given a row.
        siteConfig: async (origin) => {
          const site =
            config.sites.find((s) => s.origin === origin) ??
            (await wireCatalog(context, config, db).readSite(origin));
          return typeof site === 'string' ? undefined : site;
        },
        siteNames: (origins) => wireCatalog(context, config, db).names(origins),
        // Every site with its row, read without a write: the file's never checked have none.
        listed: async () => {
          const catalog = wireCatalog(context, config, db);
          await catalog.load({ readOnly: true });
          const ids = new Set(catalog.entries().map((e) => e.site.origin));
          return {
            sites: catalog.entries(),
            unchecked: config.sites.filter((s) => !ids.has(s.origin)),
          };
        },
        // The digests the daemon would send: to the recipients and sites added in the UI too,
        // read without a write (a site of the file never checked is said so, given no row).
        previewDigests: async (period, recipient) => {
          const running = await runningConfig(context, config, db, { readOnly: true });
          return prepareDigests(
            wireDigests(context, db, new Presentation(running)),
            running,
            period,
            {
              record: false,
              ...(recipient === undefined ? {} : { recipient }),
            },
          );
        },
      }),
    );
  } finally {
    await opened.handle.close();
  }
}

/**
 * The configuration as the daemon runs it: the file's, with the sites, presets and
 * default recipients added in the web UI or API. `readOnly`: the file's sites without a
 * row are not given one (a command that only reads, by a user that may only read).
 */
export async function runningConfig(
  context: CliContext,
  config: Config,
  db: Database,
  options: { readonly readOnly?: boolean } = {},
): Promise<Config> {
  const catalog = wireCatalog(context, config, db);
  await catalog.load({ readOnly: options.readOnly === true });
  return catalog.config;
}

/** The origin an ORIGIN argument names; a usage error if it is not one. */
export function requireOrigin(value: string): string {
  const origin = originOf(value);
  if (origin === undefined)
    throw new UsageError(`"${value}" is not a site origin such as https://example.com`);
  return origin;
}

/**
 * The site an ORIGIN argument names, as robowatch knows it (without a scheme: https, else
 * http); a usage error if it does not.
 */
export async function requireSite(reads: HistoryReads, value: string): Promise<KnownSite> {
  const origin = requireOrigin(value);
  for (const candidate of originsOf(value)) {
    const site = await reads.site(candidate);
    if (site !== undefined) return site;
  }
  throw new UsageError(`${origin} has never been checked (run robowatch check first)`);
}

/**
 * A known site as the views read it: its settings as resolved (a site added in the UI
 * too), else the file's (read through a daemon), with the profile it is watched with.
 */
export function siteRefOf(known: KnownSite, config: Config): SiteRef {
  return {
    id: known.id,
    origin: known.origin,
    config: known.config ?? config.sites.find((s) => s.origin === known.origin),
    ...(known.watching === null ? {} : { profile: known.watching.profile }),
  };
}
