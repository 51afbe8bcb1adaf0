import { verdictRuns } from '../../policy/history.js';
import type { VerdictRun } from '../../policy/history.js';
import type { ReadStore } from '../ports.js';
import type { SiteRef } from './site.js';

/** One watched URL's verdict for one agent through a site's history, as runs. */
export async function viewVerdictHistory(
  store: Pick<ReadStore, 'loadVerdictHistory'>,
  site: SiteRef,
  url: string,
  agent: string,
): Promise<{ runs: readonly VerdictRun[]; snapshots: number }> {
  const history = await store.loadVerdictHistory(site.id, url, agent);
  return { runs: verdictRuns(history), snapshots: history.length };
}
