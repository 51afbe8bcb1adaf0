import type { WatchedAgent } from '../policy/verdicts.js';
import { testRobotsTxt } from '../policy/tester.js';
import type { TesterInput, TesterResult } from '../policy/tester.js';
import type { ReadStore } from './ports.js';
import { stateOf } from './check/record-state.js';

/**
 * The file the tester starts from: a snapshot's (the latest when none is named), or, for
 * a snapshot without one (an outage), the last good file before it. Null when the site
 * never served one; undefined when the named snapshot is not the site's.
 */
export async function startingFile(
  store: Pick<ReadStore, 'listSnapshots' | 'getSnapshot' | 'loadBody'>,
  siteId: number,
  snapshotId: number | undefined,
): Promise<Uint8Array | null | undefined> {
  const [chosen] =
    snapshotId === undefined
      ? await store.listSnapshots(siteId, 1)
      : [await store.getSnapshot(siteId, snapshotId)];
  if (chosen === undefined) return snapshotId === undefined ? null : undefined;
  const sha256 =
    chosen.sha256 ??
    (chosen.lastGoodId === null
      ? null
      : ((await store.getSnapshot(siteId, chosen.lastGoodId))?.sha256 ?? null));
  return sha256 === null ? null : store.loadBody(sha256);
}

/**
 * The tester: a proposed file evaluated for URLs and agents, beside the site's live
 * state when there is one (the check a site owner runs before deploying a new file).
 */
export async function testRobots(
  store: Pick<ReadStore, 'loadSites' | 'loadBody' | 'loadLatestPaths'>,
  input: {
    readonly origin: string | undefined;
    readonly body: Uint8Array;
    readonly agents: readonly WatchedAgent[];
    readonly urls: readonly string[];
  },
  /** Where the evaluation runs: here by default, or on the tester's own thread. */
  evaluate: (input: TesterInput) => Promise<TesterResult> | TesterResult = testRobotsTxt,
): Promise<TesterResult & { readonly live: boolean }> {
  const [stored] = input.origin === undefined ? [] : await store.loadSites([input.origin]);
  const current = stored?.current ?? null;
  const live =
    current === null
      ? null
      : await stateOf(
          { store },
          current,
          current.bodySha256 ? await store.loadBody(current.bodySha256) : null,
        );
  // The site's URL set as last read from its sitemaps: the file's effect on all of it.
  const paths = stored === undefined ? undefined : await store.loadLatestPaths(stored.id);
  return {
    ...(await evaluate({ body: input.body, agents: input.agents, urls: input.urls, live, paths })),
    live: live !== null,
  };
}
