/** The store as the rest of robowatch sees it: queries over one opened database. */
import type { WatchVerdict } from '../policy/verdicts.js';
import type { Database } from './db.js';
import { syncSites } from './sites.js';
import {
  CheckWriter,
  loadBody,
  loadVerdicts,
  recordSnapshot,
  replaceVerdicts,
} from './snapshots.js';
import type { CheckRow, NewSnapshot } from './snapshots.js';

export { openDatabase, DatabaseError } from './db.js';
export type { Database, DatabaseHandle } from './db.js';

/** The queries a check needs, bound to a database. */
export function createCheckStore(db: Database) {
  const checks = new CheckWriter(db);
  return {
    syncSites: (origins: readonly string[]) => syncSites(db, origins),
    recordCheck: (check: CheckRow) => checks.record(check),
    recordSnapshot: (snapshot: NewSnapshot) => recordSnapshot(db, snapshot),
    replaceVerdicts: (
      siteId: number,
      snapshotId: number,
      rows: readonly WatchVerdict[],
      key: string,
    ) => replaceVerdicts(db, siteId, snapshotId, rows, key),
    loadVerdicts: (snapshotId: number) => loadVerdicts(db, snapshotId),
    loadBody: (sha256: string) => loadBody(db, sha256),
  };
}
