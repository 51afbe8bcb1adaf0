import type { Access } from '../../policy/access.js';
import { siteAccess } from '../../policy/verdicts.js';
import { parseRobotsTxt } from '../../robots/index.js';
import type { RobotsTxt } from '../../robots/index.js';
import type { ReadStore } from '../ports.js';
import { sitemapsOff, viewCoverageShift } from './coverage.js';
import type { CoverageShift } from './coverage.js';
import type { SnapshotSummary } from '../records.js';
import { profileOf } from './site.js';
import type { SiteRef } from './site.js';

export interface SnapshotView {
  readonly snapshot: SnapshotSummary & { access: Access };
  /** The file's text, decoded leniently as UTF-8; null when the fetch had no body. */
  readonly text: string | null;
  /** The file as the site's profile reads it (groups, rules, sitemaps, lint findings). */
  readonly model: RobotsTxt | null;
  /** The checks that saw this state, newest first (at most `checkRows`). */
  readonly checks: readonly { checkedAt: Date; durationMs: number; transient: string | null }[];
  /** Each crawler's share of the site's URL set, here and in the previous snapshot. */
  readonly coverage: CoverageShift | undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** One snapshot: its file with line numbers, parsed model, lint findings and fetch details. */
export async function viewSnapshot(
  store: Pick<ReadStore, 'getSnapshot' | 'loadBody' | 'listChecks' | 'loadCoverage'>,
  site: SiteRef,
  snapshotId: number,
  checkRows: number,
): Promise<SnapshotView | undefined> {
  const snapshot = await store.getSnapshot(site.id, snapshotId);
  if (snapshot === undefined) return undefined;
  const profile = profileOf(site);
  const [body, checks, coverage] = await Promise.all([
    snapshot.sha256 ? store.loadBody(snapshot.sha256) : Promise.resolve(null),
    store.listChecks(snapshot.id, checkRows),
    sitemapsOff(site) ? undefined : viewCoverageShift(store, snapshot.previousId, snapshot.id),
  ]);
  return {
    snapshot: {
      ...snapshot,
      access: siteAccess({ fetch: snapshot, stale: snapshot.stale }, profile),
    },
    text: body === null ? null : decoder.decode(body),
    model:
      body === null
        ? null
        : parseRobotsTxt(body, { profile, ...(snapshot.cut ? { cut: snapshot.cut } : {}) }),
    checks,
    coverage,
  };
}
