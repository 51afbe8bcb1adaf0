import { createTwoFilesPatch } from 'diff';
import type { ChangeCause } from '../policy/cause-model.js';
import { boundEvents } from '../policy/events.js';
import type { ChangeEvent } from '../policy/events.js';
import type { ReadStore } from './ports.js';
import type { SnapshotSummary } from './records.js';
import { compareStored } from './view-site.js';
import { snapshotDocument } from './view-snapshot.js';
import type { SiteRef } from './view-site.js';

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
    'getSnapshot' | 'listSnapshots' | 'loadVerdicts' | 'loadBody' | 'loadIncidentStart'
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
  const fromId = ids.from ?? to.previousId;
  const from = fromId === null ? undefined : await get(fromId);
  if (from === undefined)
    return {
      missing:
        fromId === null
          ? 'only one snapshot: nothing to compare'
          : `no snapshot ${fromId} of this site`,
    };
  const comparison = await compareStored(store, site, from, to);
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
    causes: comparison.causes,
    patch: patchLines(patch.split('\n').slice(3).join('\n')), // without the ===, --- and +++ lines
  };
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

/**
 * A diff as the API and `robowatch diff --json` give it: the two snapshots, the change
 * events (long rule lists cut at 500, with their totals), the causes and the text diff.
 */
export function diffDocument(view: DiffView, site: SiteRef) {
  return {
    site: site.origin,
    from: snapshotDocument(view.from, site),
    to: snapshotDocument(view.to, site),
    events: boundEvents(view.events),
    causes: view.causes,
    patch: view.patch.map((l) => l.text).join('\n'),
  };
}
