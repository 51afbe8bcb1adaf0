/**
 * A check's result recorded: a state seen again, or a new state with its verdicts, events
 * and causes.
 */
import { answeredFrom } from '../../policy/fetch-result.js';
import { hash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { routeAlerts } from '../../policy/alerts.js';
import { causesOfChange } from '../../policy/changes/causes.js';
import { coverageQuestion } from '../../policy/changes/usage-causes.js';
import type {
  CauseSide,
  ChangeCause,
  ChangeInput,
  LastGood,
} from '../../policy/changes/cause-model.js';
import {
  boundEvents,
  diffStates,
  effectiveRules,
  fetchStatusOf,
  flippedPlaces,
  sitemapsOf,
} from '../../policy/changes/events.js';
import type { ChangeEvent, FetchStatus, StateView } from '../../policy/changes/events.js';
import { computeVerdicts, ParseCache } from '../../policy/verdicts.js';
import { encodeVerdicts } from '../../policy/verdict-sets.js';
import type {
  RecordedVerdicts,
  RobotsState,
  VerdictAxes,
  WatchVerdict,
} from '../../policy/verdicts.js';
import { errorFindings } from '../../robots/index.js';
import type { FileCondition } from '../../policy/file-condition.js';
import type { IntentEvaluation } from '../../policy/intent.js';
import type {
  CurrentState,
  IncidentStart,
  JudgementBasis,
  NewSnapshot,
  StoredSite,
} from '../records.js';
import type { CheckDeps, CheckStore } from '../ports.js';
import type { CheckOutcome, Fetched } from './site.js';
import { evaluateState, judge, judgedKey, judgedWithState, judgementWithState } from './judge.js';

/**
 * The state was seen again: one check row. If the watches or agents changed since its
 * verdicts were computed (not the file), they are computed again, with no events.
 */
export async function recordSeenAgain(
  deps: CheckDeps,
  site: SiteConfig,
  siteId: number,
  current: CurrentState,
  { result, transient, checkedAt, seen }: Fetched,
): Promise<{ outcome: CheckOutcome; current: CurrentState }> {
  const key = verdictsKey(site);
  const verdicts =
    current.verdictsKey === key ? null : await recomputeVerdicts(deps, site, siteId, current);
  await deps.store.recordCheck({
    snapshotId: current.snapshotId,
    checkedAt,
    durationMs: seen.durationMs,
    transient,
  });
  const judged =
    verdicts === null && current.intentKey === judgedKey(site, current.snapshotId)
      ? undefined
      : await judge(
          deps,
          site,
          siteId,
          current.snapshotId,
          evaluateState(site, {
            fetch: current,
            stale: current.stale,
            fileCondition: current.bodySha256 === null ? null : (current.fileCondition ?? null),
            verdicts: verdicts ?? (await deps.store.loadVerdicts(current.snapshotId)),
          }),
          checkedAt,
        );
  const outcome: CheckOutcome = {
    site: site.origin,
    siteId,
    previousId: current.snapshotId,
    kind: 'unchanged',
    snapshotId: current.snapshotId,
    fetch: result,
    status: seen.status,
    events: [],
    causes: [],
    transient,
    durationMs: seen.durationMs,
    verdicts: verdicts === null ? null : encodeVerdicts(verdicts),
    findings: [],
    ...(judged === undefined ? {} : { judged }),
  };
  return {
    outcome,
    current:
      verdicts === null && judged === undefined
        ? current
        : { ...current, verdictsKey: key, intentKey: judgedKey(site, current.snapshotId) },
  };
}

/**
 * The current state's verdicts computed again for the site's watches and crawlers as they
 * are now (not the file: no events), and stored in place of the old ones.
 */
export async function recomputeVerdicts(
  deps: Pick<CheckDeps, 'store'>,
  site: SiteConfig,
  siteId: number,
  current: CurrentState,
): Promise<WatchVerdict[]> {
  const state = await stateOf(
    deps,
    current,
    current.bodySha256 ? await deps.store.loadBody(current.bodySha256) : null,
  );
  const verdicts = computeVerdicts(state, site.watches, site.agents);
  await deps.store.replaceVerdicts(
    siteId,
    current.snapshotId,
    verdicts,
    verdictsKey(site),
    site.registry ?? null,
  );
  return verdicts;
}

/**
 * How a change moves the site's URL set as last read (to say how much of the whole site
 * it blocks), compared off the event loop; nothing when its sitemaps are off or not read
 * yet, or when the change is not between two files.
 */
async function coverageChanges(
  deps: CheckDeps,
  site: SiteConfig,
  siteId: number,
  change: Omit<ChangeInput, 'coverage'>,
): Promise<Pick<ChangeInput, 'coverage'> | undefined> {
  if (deps.coverage === undefined || site.sitemaps === 'off') return undefined;
  const question = coverageQuestion(change);
  if (question === null) return undefined;
  const paths = await deps.coverage.store.loadLatestPaths(siteId);
  if (paths === undefined || paths.length === 0) return undefined;
  const { before, after, agents } = question;
  const changes = await deps.coverage.computer.compare(before, after, paths, agents);
  return { coverage: { changes, thresholds: deps.coverage.thresholds } };
}

/**
 * A new state: its verdicts, the change events and their causes against the current
 * state, and the alerts they call for, recorded in one transaction with the snapshot.
 */
export async function recordNewState(
  deps: CheckDeps,
  site: SiteConfig,
  stored: StoredSite,
  fetched: Fetched,
): Promise<{ outcome: CheckOutcome; current: CurrentState }> {
  const { current } = stored;
  const { result, transient, checkedAt, seen } = fetched;
  // What the new state is, computed before its write: what only the computation needs
  // (both files parsed and compiled, the state before) ends with it, and is not held by
  // the dozens of checks waiting for their write at once.
  const made = await newState(deps, site, stored, fetched);
  const { events, causes, evaluation, withState, lastGood, fileCondition } = made;
  const { snapshotId, openedIncidentId } = await deps.store.recordSnapshot(made.write);
  const judged =
    withState === null
      ? await judge(deps, site, stored.id, snapshotId, evaluation, checkedAt, causes)
      : judgedWithState(evaluation, withState.step, openedIncidentId);
  const next: CurrentState = {
    snapshotId,
    status: result.status,
    error: result.error,
    bodySha256: seen.sha256,
    finalUrl: result.finalUrl,
    stale: seen.stale,
    lastGoodId: seen.sha256 === null ? (current?.lastGoodId ?? null) : snapshotId,
    lastGoodSha256: seen.sha256 ?? current?.lastGoodSha256 ?? null,
    lastGoodCut: lastGood?.cut ?? null,
    lastGoodTruncated: lastGood?.truncated ?? false,
    verdictsKey: made.write.verdictsKey,
    unreachableSince: seen.unreachableSince,
    intentKey: judgedKey(site, snapshotId),
    fileCondition: fileCondition ?? current?.fileCondition ?? null,
  };
  const outcome: CheckOutcome = {
    site: site.origin,
    siteId: stored.id,
    previousId: current?.snapshotId ?? null,
    kind: current === null ? 'baseline' : 'changed',
    snapshotId,
    fetch: result,
    status: seen.status,
    events,
    causes,
    transient,
    durationMs: seen.durationMs,
    verdicts: made.write.verdicts,
    judged,
    findings:
      result.body === null ? [] : errorFindings(result.body, result.cut ? { cut: result.cut } : {}),
  };
  return { outcome, current: next };
}

/** A new state as it is recorded, and what its check reports after the write. */
interface NewState {
  readonly write: NewSnapshot;
  readonly events: readonly ChangeEvent[];
  readonly causes: readonly ChangeCause[];
  readonly evaluation: IntentEvaluation;
  readonly withState: ReturnType<typeof judgementWithState>;
  readonly lastGood: LastGood | null;
  readonly fileCondition: FileCondition | null;
}

/** A new state's verdicts, events, causes and judgement, and the write that records them. */
async function newState(
  deps: CheckDeps,
  site: SiteConfig,
  stored: StoredSite,
  { result, transient, checkedAt, seen }: Fetched,
): Promise<NewState> {
  const { current } = stored;
  const key = verdictsKey(site);
  const cache = new ParseCache();
  // Verdicts computed for the same watches and crawlers as the current state's have its
  // axes: they are neither read back nor written again.
  const axes = current !== null && current.verdictsKey === key ? axesOf(site) : null;
  const previous =
    current === null ? null : await previousState(deps, site, stored.id, current, axes);
  const lastGood: LastGood | null =
    result.body !== null
      ? { body: result.body, truncated: result.cut !== null, cut: result.cut }
      : (previous?.side.lastGood ?? null);
  const state: RobotsState = {
    fetch: result,
    body: result.body,
    lastGoodBody: lastGood?.body ?? null,
    stale: seen.stale,
  };
  const verdicts = computeVerdicts(state, site.watches, site.agents, cache);
  // The pairs that flipped, found once for the events and the causes.
  const flipped = previous === null ? undefined : flippedPlaces(previous.side.verdicts, verdicts);
  // A first state has no events: its rules and sitemaps are not gathered for them.
  const events =
    previous === null
      ? []
      : diffStates(
          site.origin,
          stateView(previous.side, site, cache, previous.status),
          stateView({ lastGood, verdicts }, site, cache, seen.status),
          flipped,
        );
  const change =
    previous === null
      ? null
      : {
          profile: site.profile,
          agents: site.agents,
          before: previous.side,
          after: {
            fetch: result,
            stale: seen.stale,
            lastGood,
            verdicts,
            answeredFrom: answeredFrom(result, site.origin),
          },
          since: previous.incident,
          cache,
          flipped,
        };
  const coverage =
    change === null ? undefined : await coverageChanges(deps, site, stored.id, change);
  const causes = change === null ? [] : causesOfChange({ ...change, ...coverage });
  const fileCondition =
    result.body === null ? null : cache.condition(result.body, result.cut !== null);
  // Judged now, and written with the state when its transition alerts no one: what it is
  // decided from was read with the state before (a first state: a site never judged).
  const evaluation = evaluateState(site, {
    fetch: result,
    stale: seen.stale,
    fileCondition,
    verdicts,
  });
  const withState = judgementWithState(
    deps,
    site,
    previous?.judgement ?? (current === null && stored.intentVersion === 0 ? NEVER_JUDGED : null),
    evaluation,
    checkedAt,
  );
  const write: NewSnapshot = {
    siteId: stored.id,
    previousId: current?.snapshotId ?? null,
    status: result.status,
    error: result.error,
    errorDetail: result.errorDetail,
    redirects: result.redirects,
    finalUrl: result.finalUrl,
    body: seen.sha256 === null ? null : { sha256: seen.sha256, bytes: result.body! },
    cut: result.cut,
    stale: seen.stale,
    lastGoodId: seen.sha256 === null ? (current?.lastGoodId ?? null) : null,
    firstSeenAt: checkedAt,
    // Its verdicts end here, with the computation: the write and the outcome keep their
    // stored form.
    verdicts: verdicts.length === 0 ? null : encodeVerdicts(verdicts),
    verdictsKey: key,
    axesAsBefore: axes !== null && verdicts.length > 0,
    registry: site.registry ?? null,
    // A 14,000-rule change for 160 crawlers lists 2 million rules: the stored event keeps
    // the first 500 of each list and their totals (the bodies hold the rest).
    events: boundEvents(events),
    causes,
    fileCondition,
    alerts: routeAlerts(
      site.origin,
      events,
      causes,
      site.alerts,
      site.agents.map((a) => a.token),
      site.name,
    ),
    unreachableSince: seen.unreachableSince,
    check: { checkedAt, durationMs: seen.durationMs, transient },
    ...(withState === null ? {} : { judgement: withState.write }),
  };
  return { write, events, causes, evaluation, withState, lastGood, fileCondition };
}

/** The current state as a new one is compared with: its verdicts, last good copy, trouble. */
async function previousState(
  deps: CheckDeps,
  site: SiteConfig,
  siteId: number,
  current: CurrentState,
  /** The axes of the current state's verdicts, when they are the check's own. */
  axes: VerdictAxes | null,
): Promise<{
  side: CauseSide<RecordedVerdicts>;
  status: FetchStatus;
  incident: IncidentStart;
  judgement: JudgementBasis;
}> {
  const { body, verdicts, incident, judgement } = await deps.store.loadPrevious(
    siteId,
    current.snapshotId,
    current.lastGoodSha256,
    axes ?? undefined,
  );
  return {
    side: {
      fetch: current,
      stale: current.stale,
      answeredFrom: answeredFrom(current, site.origin),
      lastGood:
        body === null
          ? null
          : { body, truncated: current.lastGoodTruncated, cut: current.lastGoodCut },
      verdicts,
    },
    status: fetchStatusOf(current, site.profile, current.stale),
    incident,
    judgement,
  };
}

/** A site judged never: no state against intent, no incident. */
const NEVER_JUDGED: JudgementBasis = Object.freeze({
  version: 0,
  state: null,
  since: null,
  latest: null,
});

/** What the change events of a state are computed from. */
function stateView<Verdicts extends RecordedVerdicts>(
  side: Pick<CauseSide<Verdicts>, 'lastGood' | 'verdicts'>,
  site: SiteConfig,
  cache: ParseCache,
  status: FetchStatus,
): StateView<Verdicts> {
  const body = side.lastGood?.body ?? null;
  return {
    fetchStatus: status,
    verdicts: side.verdicts,
    rules: body ? effectiveRules(body, site.agents, cache) : null,
    sitemaps: body ? sitemapsOf(body, cache) : null,
  };
}

/** A stored state as the verdicts need it: with its body and its last good copy. */
export async function stateOf(
  deps: { readonly store: Pick<CheckStore, 'loadBody'> },
  current: Pick<CurrentState, 'status' | 'error' | 'stale' | 'bodySha256' | 'lastGoodSha256'>,
  body: Uint8Array | null,
): Promise<RobotsState> {
  const lastGoodBody =
    current.lastGoodSha256 === current.bodySha256
      ? body
      : current.lastGoodSha256
        ? await deps.store.loadBody(current.lastGoodSha256)
        : null;
  return { fetch: current, body, lastGoodBody, stale: current.stale };
}

/** The crawlers' tokens and profiles, once per list (the sites sharing the top-level crawlers share it). */
const agentAxes = new WeakMap<
  SiteConfig['agents'],
  Pick<VerdictAxes, 'agents' | 'profiles'> | null
>();

/**
 * The URLs and crawlers a site's verdicts are computed for, in their order: its watches
 * and crawlers; null when one is listed twice (such verdicts have no compact form).
 */
function axesOf(site: SiteConfig): VerdictAxes | null {
  let agents = agentAxes.get(site.agents);
  if (agents === undefined) {
    const tokens = site.agents.map((a) => a.token);
    agents =
      new Set(tokens).size === tokens.length
        ? { agents: tokens, profiles: site.agents.map((a) => a.profile) }
        : null;
    // A list that may still change is read afresh each time.
    if (Object.isFrozen(site.agents)) agentAxes.set(site.agents, agents);
  }
  if (agents === null) return null;
  // Read once: a site sharing its paths makes its URLs each time they are asked for.
  const urls = site.watches;
  return new Set(urls).size === urls.length ? { urls, ...agents } : null;
}

const verdictsKeys = new WeakMap<SiteConfig, string>();
/** The sites sharing the top-level crawlers share their array: written out once. */
const agentsJson = new WeakMap<SiteConfig['agents'], string>();

/** Identifies the watches × agents verdicts were computed for (once per configuration). */
export function verdictsKey(site: SiteConfig): string {
  let key = verdictsKeys.get(site);
  if (key === undefined) {
    let agents = agentsJson.get(site.agents);
    if (agents === undefined) {
      agents = JSON.stringify(site.agents);
      agentsJson.set(site.agents, agents);
    }
    // The text of JSON.stringify([watches, agents]): the keys stored before still match.
    key = hash('sha1', `[${JSON.stringify(site.watches)},${agents}]`, 'hex');
    verdictsKeys.set(site, key);
  }
  return key;
}
