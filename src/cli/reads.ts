/**
 * The commands' one read path: the history read from the database, or, while a daemon
 * holds the embedded one, from that daemon's API, through the same port (monitor/reads.ts).
 */
import type { Config } from '../config/config.js';
import { Presentation, wireDigests } from '../compose.js';
import { UsageError } from '../lib/errors.js';
import { localReads } from '../monitor/reads.js';
import type { HistoryReads } from '../monitor/reads.js';
import { prepareDigests } from '../monitor/delivery/digests.js';
import { createWebStore } from '../store/index.js';
import type { CliContext } from './context.js';
import { originOf } from './context.js';
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
        previewDigests: (period, recipient) =>
          prepareDigests(wireDigests(context, db, new Presentation(config)), config, period, {
            record: false,
            ...(recipient === undefined ? {} : { recipient }),
          }),
      }),
    );
  } finally {
    await opened.handle.close();
  }
}

/** The origin an ORIGIN argument names; a usage error if it is not one. */
export function requireOrigin(value: string): string {
  const origin = originOf(value);
  if (origin === undefined)
    throw new UsageError(`"${value}" is not a site origin such as https://example.com`);
  return origin;
}

/** The site an ORIGIN argument names, as robowatch knows it; a usage error if it does not. */
export async function requireSite(
  reads: HistoryReads,
  value: string,
): Promise<{ readonly id: number; readonly origin: string }> {
  const origin = requireOrigin(value);
  const site = await reads.site(origin);
  if (site === undefined)
    throw new UsageError(`${origin} has never been checked (run robowatch check first)`);
  return site;
}
