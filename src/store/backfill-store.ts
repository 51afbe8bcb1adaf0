/** The store's port a backfill uses (monitor/ports.ts), bound to one opened database. */
import type { BackfillStore } from '../monitor/ports.js';
import {
  archiveChainCurrent,
  liveHistoryStart,
  loadCaptures,
  recordCaptures,
  replaceArchiveChain,
  storedCaptureTimes,
} from './archive.js';
import type { Database } from './db.js';

/** The Internet Archive's captures and the archived snapshots (robowatch backfill). */
export function createBackfillStore(db: Database): BackfillStore {
  return {
    storedCaptureTimes: (siteId) => storedCaptureTimes(db, siteId),
    recordCaptures: (siteId, captures) => recordCaptures(db, siteId, captures),
    loadCaptures: (siteId) => loadCaptures(db, siteId),
    replaceArchiveChain: (siteId, states, registry) =>
      replaceArchiveChain(db, siteId, states, registry),
    liveHistoryStart: (siteId) => liveHistoryStart(db, siteId),
    archiveChainCurrent: (siteId) => archiveChainCurrent(db, siteId),
  };
}
