import type { SiteConfig } from '../config/config.js';
import { diffStates, effectiveRules, fetchStatusOf, sitemapsOf } from '../policy/events.js';
import type { ChangeEvent, StateView } from '../policy/events.js';
import { ParseCache } from '../policy/verdicts.js';
import type { WatchedAgent, WatchVerdict } from '../policy/verdicts.js';
import type { SnapshotSummary } from './records.js';

export interface CompareDeps {
  getSnapshot(id: number): Promise<SnapshotSummary | undefined>;
  loadVerdicts(snapshotId: number): Promise<WatchVerdict[]>;
  loadBody(sha256: string): Promise<Uint8Array>;
}

export interface Comparison {
  readonly events: readonly ChangeEvent[];
  /** The bodies of the two snapshots (null where a snapshot has none). */
  readonly fromBody: Uint8Array | null;
  readonly toBody: Uint8Array | null;
}

/**
 * The change events between two stored snapshots of a site, as a check would have
 * reported them had they been consecutive: verdicts from the stored verdicts, rules and
 * sitemaps from each one's last good copy, read by `agents` (the configured ones; by
 * default those the snapshots' verdicts name).
 */
export async function compareSnapshots(
  deps: CompareDeps,
  site: Pick<SiteConfig, 'origin' | 'profile'> & { agents?: readonly WatchedAgent[] },
  from: SnapshotSummary,
  to: SnapshotSummary,
): Promise<Comparison> {
  const [fromVerdicts, toVerdicts] = await Promise.all([
    deps.loadVerdicts(from.id),
    deps.loadVerdicts(to.id),
  ]);
  const agents = site.agents ?? agentsOf([...fromVerdicts, ...toVerdicts]);
  const cache = new ParseCache();
  const view = async (snapshot: SnapshotSummary, verdicts: WatchVerdict[]): Promise<StateView> => {
    const good =
      snapshot.lastGoodId === null ? undefined : await deps.getSnapshot(snapshot.lastGoodId);
    const body = good?.sha256 ? await deps.loadBody(good.sha256) : null;
    return {
      fetchStatus: fetchStatusOf(snapshot, site.profile, snapshot.stale),
      verdicts,
      rules: body ? effectiveRules(body, agents, cache) : null,
      sitemaps: body ? sitemapsOf(body, cache) : null,
    };
  };
  const events = diffStates(
    site.origin,
    await view(from, fromVerdicts),
    await view(to, toVerdicts),
  );
  return {
    events,
    fromBody: from.sha256 ? await deps.loadBody(from.sha256) : null,
    toBody: to.sha256 ? await deps.loadBody(to.sha256) : null,
  };
}

function agentsOf(verdicts: readonly WatchVerdict[]): WatchedAgent[] {
  const agents = new Map<string, WatchedAgent>();
  for (const v of verdicts)
    if (!agents.has(v.agent)) agents.set(v.agent, { token: v.agent, profile: v.profile });
  return [...agents.values()];
}
