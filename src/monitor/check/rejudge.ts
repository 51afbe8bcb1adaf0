/**
 * A site judged again without a fetch: after its watched URLs, crawlers or intent
 * changed, its current state's verdicts are computed again (when the watches or crawlers
 * changed) and judged against its intent at once, so that pages and alerts say what the
 * change means before the next check.
 */
import type { SiteConfig } from '../../config/config.js';
import type { CheckDeps } from '../ports.js';
import { evaluateState, judge, judgedKey } from './judge.js';
import type { Judged } from './judge.js';
import { recomputeVerdicts, verdictsKey } from './record-state.js';

/** Judges the site again if what it was judged for changed; undefined when nothing did. */
export async function rejudge(
  deps: Pick<CheckDeps, 'store' | 'now' | 'flapWindowMs'>,
  site: SiteConfig,
): Promise<Judged | undefined> {
  const [stored] = await deps.store.loadSites([site.origin]);
  const current = stored?.current ?? null;
  if (stored === undefined || current === null || stored.refused !== null) return undefined;
  if (
    current.verdictsKey === verdictsKey(site) &&
    current.intentKey === judgedKey(site, current.snapshotId)
  )
    return undefined;
  const verdicts =
    current.verdictsKey === verdictsKey(site)
      ? await deps.store.loadVerdicts(current.snapshotId)
      : await recomputeVerdicts(deps, site, stored.id, current);
  const evaluation = evaluateState(site, {
    fetch: current,
    stale: current.stale,
    fileCondition: current.bodySha256 === null ? null : (current.fileCondition ?? null),
    verdicts,
  });
  return judge(deps, site, stored.id, current.snapshotId, evaluation, deps.now());
}
