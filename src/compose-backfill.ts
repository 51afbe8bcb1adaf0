/**
 * Backfills from the Internet Archive, wired beside compose.ts: the archive's client and
 * the archived history's store are loaded by the commands that backfill (the daemon,
 * `robowatch backfill`), not by a check.
 */
import type { Config } from './config/config.js';
import { ArchiveClient } from './fetch/archive.js';
import type { RobotsFetcher } from './fetch/robots-fetcher.js';
import type { BackfillDeps } from './monitor/archive/backfill.js';
import type { Platform } from './compose.js';
import type { Database } from './store/db.js';
import { createBackfillStore } from './store/backfill-store.js';

/**
 * Backfill from the Internet Archive (archive.url), spaced as archive.requestsPerMinute
 * asks, through the robots.txt fetcher (its private-address guard and size limits).
 */
export function wireBackfill(
  platform: Platform,
  config: Config,
  db: Database,
  fetcher: RobotsFetcher,
  onCapture?: BackfillDeps['onCapture'],
): BackfillDeps {
  return {
    archive: new ArchiveClient((request) => fetcher.fetchDocument(request), {
      url: config.archive.url,
      requestsPerMinute: config.archive.requestsPerMinute,
      maxRefusals: ARCHIVE_MAX_REFUSALS,
      // The archive is slow to list long histories.
      timeoutMs: Math.max(config.fetch.timeoutMs, 60_000),
      sleep: (ms) => platform.sleep(ms),
    }),
    store: createBackfillStore(db),
    now: () => platform.now(),
    ...(onCapture === undefined ? {} : { onCapture }),
  };
}

/** Refusals (429, 503) in a row before a backfill stops. */
const ARCHIVE_MAX_REFUSALS = 6;
