/** The store as the rest of robowatch sees it: queries over one opened database. */
import type { Database } from './db.js';
import { syncSites } from './sites.js';
import {
  loadBody,
  loadVerdicts,
  recordCheck,
  recordSnapshot,
  replaceVerdicts,
} from './snapshots.js';

export { openDatabase, DatabaseError } from './db.js';
export type { Database, DatabaseHandle } from './db.js';

/** The queries a check needs, bound to a database. */
export function createCheckStore(db: Database) {
  return {
    syncSites: (origins: readonly string[]) => syncSites(db, origins),
    recordCheck: (check: Parameters<typeof recordCheck>[1]) => recordCheck(db, check),
    recordSnapshot: (snapshot: Parameters<typeof recordSnapshot>[1]) =>
      recordSnapshot(db, snapshot),
    replaceVerdicts: (
      ...args: Parameters<typeof replaceVerdicts> extends [Database, ...infer R] ? R : never
    ) => replaceVerdicts(db, ...args),
    loadVerdicts: (snapshotId: number) => loadVerdicts(db, snapshotId),
    loadBody: (sha256: string) => loadBody(db, sha256),
  };
}
