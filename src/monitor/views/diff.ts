import { createTwoFilesPatch } from 'diff';
import { causeOrder } from '../../policy/changes/cause-model.js';
import type { ChangeCause } from '../../policy/changes/cause-model.js';
import type { ChangeEvent } from '../../policy/changes/events.js';
import type { ReadStore } from '../ports.js';
import type { SnapshotSummary } from '../records.js';
import { sitemapsOff, viewCoverageShift } from './coverage.js';
import type { CoverageShift } from './coverage.js';
import { compareStored } from './site.js';
import type { SiteRef } from './site.js';

export interface DiffLine {
  readonly kind: 'add' | 'del' | 'hunk' | 'context';
  readonly text: string;
}

export interface DiffView {
  readonly from: SnapshotSummary;
  readonly to: SnapshotSummary;
  readonly events: readonly ChangeEvent[];
  /** Why the newer differs from the older, most severe first. */
  readonly causes: readonly ChangeCause[];
  /** The unified diff of the two files, line by line (empty when they are the same). */
  readonly patch: readonly DiffLine[];
  /** Each crawler's share of the site's URL set in the two (undefined: sitemaps not read). */
  readonly coverage: CoverageShift | undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * Two snapshots of a site compared: verdict, rule, sitemap and status changes, and the
 * unified diff of the files. By default the latest snapshot and the one before it.
 * Returns a reason instead when there is nothing to compare.
 */
export async function viewDiff(
  store: Pick<
    ReadStore,
    | 'getSnapshot'
    | 'listSnapshots'
    | 'loadVerdicts'
    | 'loadBody'
    | 'loadIncidentStart'
    | 'loadCoverage'
    | 'listChanges'
  >,
  site: SiteRef,
  ids: { readonly from?: number; readonly to?: number },
): Promise<DiffView | { readonly missing: string }> {
  const get = (id: number) => store.getSnapshot(site.id, id);
  const to = ids.to === undefined ? (await store.listSnapshots(site.id, 1))[0] : await get(ids.to);
  if (to === undefined)
    return {
      missing: ids.to === undefined ? 'no snapshots yet' : `no snapshot ${ids.to} of this site`,
    };
  // A live baseline after an archived history is compared with the last capture: what
  // changed between the archive's last look and robowatch's first.
  const fromId =
    ids.from ??
    to.previousId ??
    (to.source === 'live' ? ((await store.listSnapshots(site.id, 1, to.id))[0]?.id ?? null) : null);
  const from = fromId === null ? undefined : await get(fromId);
  if (from === undefined)
    return {
      missing:
        fromId === null
          ? 'only one snapshot: nothing to compare'
          : `no snapshot ${fromId} of this site`,
    };
  const [comparison, coverage, recorded] = await Promise.all([
    compareStored(store, site, from, to),
    sitemapsOff(site) ? undefined : viewCoverageShift(store, from.id, to.id),
    recordedCoverageCauses(store, site, from, to),
  ]);
  const text = (body: Uint8Array | null) => (body === null ? '' : decoder.decode(body));
  const patch = createTwoFilesPatch(
    `snapshot ${from.id}`,
    `snapshot ${to.id}`,
    text(comparison.fromBody),
    text(comparison.toBody),
    undefined,
    undefined,
    { context: 3 },
  );
  return {
    from,
    to,
    events: comparison.events,
    causes: [...comparison.causes, ...recorded].sort(causeOrder),
    patch: patchLines(patch.split('\n').slice(3).join('\n')), // without the ===, --- and +++ lines
    coverage,
  };
}

/**
 * The coverage causes the check recorded for the newer snapshot, when the two are
 * consecutive: how much of the URL set the change blocked was worked out then, over the
 * set as it was (comparing two snapshots here evaluates nothing).
 */
async function recordedCoverageCauses(
  store: Pick<ReadStore, 'listChanges'>,
  site: SiteRef,
  from: SnapshotSummary,
  to: SnapshotSummary,
): Promise<ChangeCause[]> {
  if (to.previousId !== from.id) return [];
  const [change] = await store.listChanges({
    siteId: site.id,
    beforeId: to.id + 1,
    types: ['coverage'],
    limit: 1,
  });
  if (change?.snapshotId !== to.id) return [];
  return (change.causes ?? []).filter((c) => c.type === 'coverage');
}

/** A unified diff's lines, each marked as an addition, a removal, a hunk header or context. */
export function patchLines(text: string): DiffLine[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('\\ No newline'))
    .map((l) => ({
      kind: l.startsWith('@@')
        ? 'hunk'
        : l.startsWith('+')
          ? 'add'
          : l.startsWith('-')
            ? 'del'
            : 'context',
      text: l,
    }));
}
