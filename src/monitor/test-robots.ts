import type { WatchedAgent } from '../policy/verdicts.js';
import { testRobotsTxt } from '../policy/tester.js';
import type { TesterResult } from '../policy/tester.js';
import type { WebStore } from '../store/index.js';
import { stateOf } from './check-site.js';

/**
 * The tester: a proposed file evaluated for URLs and agents, beside the site's live
 * state when there is one (the check a site owner runs before deploying a new file).
 */
export async function testRobots(
  store: Pick<WebStore, 'loadSites' | 'loadBody'>,
  input: {
    readonly origin: string | undefined;
    readonly body: Uint8Array;
    readonly agents: readonly WatchedAgent[];
    readonly urls: readonly string[];
  },
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
  return {
    ...testRobotsTxt({ body: input.body, agents: input.agents, urls: input.urls, live }),
    live: live !== null,
  };
}
