import type { SiteConfig } from '../../config/config.js';
import { answeredFrom } from '../../policy/fetch-result.js';
import type { CauseSide, ChangeCause } from '../../policy/changes/cause-model.js';
import { causesOfChange } from '../../policy/changes/causes.js';
import {
  diffStates,
  effectiveRules,
  fetchStatusOf,
  sitemapsOf,
} from '../../policy/changes/events.js';
import type { ChangeEvent, StateView } from '../../policy/changes/events.js';
import { ParseCache } from '../../policy/verdicts.js';
import type { WatchedAgent, WatchVerdict } from '../../policy/verdicts.js';
import type { IncidentStart, SnapshotSummary } from '../records.js';

export interface CompareDeps {
  getSnapshot(id: number): Promise<SnapshotSummary | undefined>;
  loadVerdicts(snapshotId: number): Promise<WatchVerdict[]>;
  loadBody(sha256: string): Promise<Uint8Array>;
  /** When the trouble a snapshot is part of began (for recoveries between consecutive ones). */
  loadIncidentStart(snapshotId: number): Promise<IncidentStart>;
}

export interface Comparison {
  readonly events: readonly ChangeEvent[];
  /** Why the newer differs from the older, most severe first. */
  readonly causes: readonly ChangeCause[];
  /** The bodies of the two snapshots (null where a snapshot has none). */
  readonly fromBody: Uint8Array | null;
  readonly toBody: Uint8Array | null;
}

/**
 * The change events and their causes between two stored snapshots of a site, as a check
 * would have reported them had they been consecutive: verdicts from the stored verdicts,
 * rules and sitemaps from each one's last good copy, read by `agents` (the configured
 * ones; by default those the snapshots' verdicts name).
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
  const side = async (snapshot: SnapshotSummary, verdicts: WatchVerdict[]): Promise<CauseSide> => {
    const good =
      snapshot.lastGoodId === null ? undefined : await deps.getSnapshot(snapshot.lastGoodId);
    const body = good?.sha256 ? await deps.loadBody(good.sha256) : null;
    return {
      fetch: snapshot,
      stale: snapshot.stale,
      answeredFrom: answeredFrom(snapshot, site.origin),
      lastGood: body === null ? null : { body, truncated: good!.truncated, cut: good!.cut },
      verdicts,
    };
  };
  const view = (snapshot: SnapshotSummary, s: CauseSide): StateView => {
    const body = s.lastGood?.body ?? null;
    return {
      fetchStatus: fetchStatusOf(snapshot, site.profile, snapshot.stale),
      verdicts: s.verdicts,
      rules: body ? effectiveRules(body, agents, cache) : null,
      sitemaps: body ? sitemapsOf(body, cache) : null,
    };
  };
  const [before, after] = await Promise.all([side(from, fromVerdicts), side(to, toVerdicts)]);
  // How long an incident lasted is known between consecutive snapshots only.
  const since = to.previousId === from.id ? await deps.loadIncidentStart(from.id) : undefined;
  return {
    events: diffStates(site.origin, view(from, before), view(to, after)),
    causes: causesOfChange({
      profile: site.profile,
      agents,
      before,
      after,
      ...(since === undefined ? {} : { since }),
    }),
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
