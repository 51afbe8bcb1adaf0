/**
 * What the monitor needs from the outside world, passed in as `deps` by main.ts (and by
 * tests). The store adapter satisfies CheckStore structurally; the monitor imports only
 * the types of the values it exchanges.
 */
import type { FetchResult } from '../policy/fetch-result.js';
import type { WatchVerdict } from '../policy/verdicts.js';
import type { StoredSite } from '../store/sites.js';
import type { CheckRow, NewSnapshot } from '../store/snapshots.js';

export interface CheckStore {
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  loadSites(origins: readonly string[]): Promise<StoredSite[]>;
  recordCheck(check: CheckRow): Promise<void>;
  recordSnapshot(snapshot: NewSnapshot): Promise<number>;
  replaceVerdicts(
    siteId: number,
    snapshotId: number,
    rows: readonly WatchVerdict[],
    key: string,
  ): Promise<void>;
  loadVerdicts(snapshotId: number): Promise<WatchVerdict[]>;
  loadBody(sha256: string): Promise<Uint8Array>;
}

export interface CheckDeps {
  fetchRobots(origin: string): Promise<FetchResult>;
  readonly store: CheckStore;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Retries before a site is recorded as newly unreachable or unavailable. */
  readonly confirmRetries: number;
  readonly confirmDelayMs: number;
}
