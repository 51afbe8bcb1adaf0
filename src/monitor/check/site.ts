import { createHash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { STALE_AFTER_MS } from '../../policy/access.js';
import { routeAlerts } from '../../policy/alerts.js';
import { refusedCause } from '../../policy/refusal.js';
import type { FetchOutcome } from '../../policy/access.js';
import { coverageQuestion, causesOfChange } from '../../policy/changes/causes.js';
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
  sitemapsOf,
} from '../../policy/changes/events.js';
import { fileCondition as fileConditionOf } from '../../policy/file-condition.js';
import type { ChangeEvent, FetchStatus, StateView } from '../../policy/changes/events.js';
import type { FetchResult } from '../../policy/fetch-result.js';
import { computeVerdicts, ParseCache, siteAccess } from '../../policy/verdicts.js';
import type { RobotsState, WatchVerdict } from '../../policy/verdicts.js';
import { parseRobotsTxt } from '../../robots/index.js';
import type { LintFinding } from '../../robots/index.js';
import type { CurrentState, IncidentStart, StoredSite } from '../records.js';
import type { CheckDeps, CheckStore } from '../ports.js';
import type { CoverageRefresh } from './coverage.js';

/** What one check of one site did. */
export interface CheckOutcome {
  readonly site: string;
  readonly siteId: number;
  /** The snapshot before this check's (null for a baseline; the same for an unchanged check). */
  readonly previousId: number | null;
  /**
   * `baseline`: the site's first state; `changed`: a new state; `unchanged`: seen again;
   * `refused`: robowatch did not check it (its address guard refused the host), nothing
   * recorded of the site but that.
   */
  readonly kind: 'baseline' | 'changed' | 'unchanged' | 'refused';
  /** The state seen (for `refused`: the last one recorded, null before any). */
  readonly snapshotId: number | null;
  readonly fetch: FetchResult;
  /** The fetch status under the site's profile. */
  readonly status: FetchStatus;
  readonly events: readonly ChangeEvent[];
  /** Why the new state differs from the one before, most severe first (none when unchanged). */
  readonly causes: readonly ChangeCause[];
  /** A failure seen and not confirmed by the retries, if any. */
  readonly transient: string | null;
  /** How long the check took: the fetch and any confirming retries. */
  readonly durationMs: number;
  /** The verdicts of a new state (baseline or changed). */
  readonly verdicts: readonly WatchVerdict[] | null;
  /** Error-level lint findings of a new state's file: HTML, UTF-16, content past 500 KiB. */
  readonly findings: readonly LintFinding[];
  /** The URL set and coverage refreshed after the check (absent: sitemaps off or not wired). */
  readonly coverage?: CoverageRefresh | { readonly error: string } | null;
  /** For `refused`: since when robowatch refuses the site, and whether it began now. */
  readonly refused?: { readonly since: Date; readonly began: boolean };
}

/**
 * Checks one site: fetches its robots.txt; confirms a new failure with retries before
 * believing it; then either records one check row (the state was seen again) or records
 * a new snapshot with its verdicts and the change events against the previous one.
 * Returns the outcome and the site's new current state.
 */
export async function checkSite(
  deps: CheckDeps,
  site: SiteConfig,
  stored: StoredSite,
): Promise<{ outcome: CheckOutcome; current: CurrentState | null }> {
  const checkedAt = deps.now();
  const { result, transient } = await fetchConfirmed(deps, site, stored.current);
  // robowatch's own guard refused the address: a check not made, never a state of the site.
  if (result.error === 'blocked') return recordRefused(deps, site, stored, result, checkedAt);
  const seen = observe(deps, site, stored.current, result, checkedAt);
  const { current } = stored;
  const checked =
    current !== null &&
    fetchKey(result, seen.sha256) === fetchKey(current, current.bodySha256) &&
    seen.stale === current.stale
      ? await recordSeenAgain(deps, site, stored.id, current, {
          result,
          transient,
          checkedAt,
          seen,
        })
      : await recordNewState(deps, site, stored, { result, transient, checkedAt, seen });
  if (stored.refused !== null) await deps.store.clearRefusal(stored.id);
  return checked;
}

/**
 * A check robowatch refused to make: the site resolves (or redirects) to a private or
 * reserved address and fetch.allowPrivateAddresses is off. The site's state stays as
 * it was; the refusal is recorded, and alerted once, when it begins.
 */
async function recordRefused(
  deps: CheckDeps,
  site: SiteConfig,
  stored: StoredSite,
  result: FetchResult,
  checkedAt: Date,
): Promise<{ outcome: CheckOutcome; current: CurrentState | null }> {
  const cause = refusedCause(result);
  const snapshotId = stored.current?.snapshotId ?? null;
  const { since, began } = await deps.store.recordRefusal({
    siteId: stored.id,
    at: checkedAt,
    reason: cause.reason,
    snapshotId,
    alerts:
      stored.refused === null
        ? routeAlerts(
            site.origin,
            [],
            [cause],
            site.alerts,
            site.agents.map((a) => a.token),
          )
        : [],
  });
  const outcome: CheckOutcome = {
    site: site.origin,
    siteId: stored.id,
    previousId: snapshotId,
    kind: 'refused',
    snapshotId,
    fetch: result,
    status: fetchStatusOf(result, site.profile, false),
    events: [],
    causes: [cause],
    transient: null,
    durationMs: Math.max(0, deps.now().getTime() - checkedAt.getTime()),
    verdicts: null,
    findings: [],
    refused: { since, began },
  };
  return { outcome, current: stored.current };
}

/** A fetch as this check saw it: its body's hash, how long it took, the 30-day rule. */
interface Seen {
  readonly sha256: string | null;
  readonly durationMs: number;
  readonly unreachableSince: Date | null;
  readonly stale: boolean;
  readonly status: FetchStatus;
}

interface Fetched {
  readonly result: FetchResult;
  readonly transient: string | null;
  readonly checkedAt: Date;
  readonly seen: Seen;
}

/**
 * Fetches robots.txt; a failure that would change the site's access is fetched again
 * (`confirmRetries` times): one failing fetch is a check result, not a status change.
 * A failure that recovers on retry comes back as `transient`.
 */
async function fetchConfirmed(
  deps: CheckDeps,
  site: SiteConfig,
  current: CurrentState | null,
): Promise<{ result: FetchResult; transient: string | null }> {
  let result = await deps.fetchRobots(site.origin);
  let transient: string | null = null;
  // The address guard's refusal is robowatch's own decision: asking again changes nothing.
  if (result.error === 'blocked') return { result, transient };
  const before =
    current === null ? null : siteAccess({ fetch: current, stale: current.stale }, site.profile);
  const failing = (r: FetchResult) => siteAccess({ fetch: r, stale: false }, site.profile) !== 'ok';
  if (!failing(result) || before === siteAccess({ fetch: result, stale: false }, site.profile))
    return { result, transient };
  for (let i = 0; i < deps.confirmRetries; i++) {
    await deps.sleep(deps.confirmDelayMs);
    const retry = await deps.fetchRobots(site.origin);
    if (current !== null && fetchKey(retry) === fetchKey(current, current.bodySha256)) {
      transient = describeFailure(result);
      result = retry;
      break;
    }
    result = retry;
    if (!failing(retry)) break;
  }
  return { result, transient };
}

/** What a fetch means for the site: hash, duration, and whether Google's 30 days are up. */
function observe(
  deps: CheckDeps,
  site: SiteConfig,
  current: CurrentState | null,
  result: FetchResult,
  checkedAt: Date,
): Seen {
  const sha256 =
    result.body === null ? null : createHash('sha256').update(result.body).digest('hex');
  const now = deps.now();
  const unreachable = siteAccess({ fetch: result, stale: false }, site.profile) === 'unreachable';
  const unreachableSince = unreachable ? (current?.unreachableSince ?? checkedAt) : null;
  const stale =
    unreachableSince !== null && now.getTime() - unreachableSince.getTime() >= STALE_AFTER_MS;
  return {
    sha256,
    durationMs: Math.max(0, now.getTime() - checkedAt.getTime()),
    unreachableSince,
    stale,
    status: fetchStatusOf(result, site.profile, stale),
  };
}

/**
 * The state was seen again: one check row. If the watches or agents changed since its
 * verdicts were computed (not the file), they are computed again, with no events.
 */
async function recordSeenAgain(
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
    verdicts,
    findings: [],
  };
  return { outcome, current: verdicts === null ? current : { ...current, verdictsKey: key } };
}

/**
 * The current state's verdicts computed again for the site's watches and crawlers as they
 * are now (not the file: no events), and stored in place of the old ones.
 */
export async function recomputeVerdicts(
  deps: CheckDeps,
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
async function recordNewState(
  deps: CheckDeps,
  site: SiteConfig,
  stored: StoredSite,
  { result, transient, checkedAt, seen }: Fetched,
): Promise<{ outcome: CheckOutcome; current: CurrentState }> {
  const { current } = stored;
  const key = verdictsKey(site);
  const cache = new ParseCache();
  const previous = current === null ? null : await previousState(deps, site, stored.id, current);
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
  const events = diffStates(
    site.origin,
    previous === null ? null : stateView(previous.side, site, cache, previous.status),
    stateView({ lastGood, verdicts }, site, cache, seen.status),
  );
  const change =
    previous === null
      ? null
      : {
          profile: site.profile,
          agents: site.agents,
          before: previous.side,
          after: { fetch: result, stale: seen.stale, lastGood, verdicts },
          since: previous.incident,
        };
  const coverage =
    change === null ? undefined : await coverageChanges(deps, site, stored.id, change);
  const causes = change === null ? [] : causesOfChange({ ...change, ...coverage });
  const fileCondition =
    result.body === null ? null : fileConditionOf(result.body, result.cut !== null);
  const snapshotId = await deps.store.recordSnapshot({
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
    verdicts,
    verdictsKey: key,
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
    ),
    unreachableSince: seen.unreachableSince,
    check: { checkedAt, durationMs: seen.durationMs, transient },
  });
  const next: CurrentState = {
    snapshotId,
    status: result.status,
    error: result.error,
    bodySha256: seen.sha256,
    stale: seen.stale,
    lastGoodId: seen.sha256 === null ? (current?.lastGoodId ?? null) : snapshotId,
    lastGoodSha256: seen.sha256 ?? current?.lastGoodSha256 ?? null,
    lastGoodCut: lastGood?.cut ?? null,
    lastGoodTruncated: lastGood?.truncated ?? false,
    verdictsKey: key,
    unreachableSince: seen.unreachableSince,
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
    verdicts,
    findings:
      result.body === null
        ? []
        : parseRobotsTxt(result.body, result.cut ? { cut: result.cut } : {}).lint.filter(
            (f) => f.severity === 'error',
          ),
  };
  return { outcome, current: next };
}

/** The current state as a new one is compared with: its verdicts, last good copy, trouble. */
async function previousState(
  deps: CheckDeps,
  site: SiteConfig,
  siteId: number,
  current: CurrentState,
): Promise<{ side: CauseSide; status: FetchStatus; incident: IncidentStart }> {
  const { body, verdicts, incident } = await deps.store.loadPrevious(
    siteId,
    current.snapshotId,
    current.lastGoodSha256,
  );
  return {
    side: {
      fetch: current,
      stale: current.stale,
      lastGood:
        body === null
          ? null
          : { body, truncated: current.lastGoodTruncated, cut: current.lastGoodCut },
      verdicts,
    },
    status: fetchStatusOf(current, site.profile, current.stale),
    incident,
  };
}

/** What the change events of a state are computed from. */
function stateView(
  side: Pick<CauseSide, 'lastGood' | 'verdicts'>,
  site: SiteConfig,
  cache: ParseCache,
  status: FetchStatus,
): StateView {
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

/** What identifies a fetch state: status or error, and the body for a 2xx. */
function fetchKey(
  fetch: FetchOutcome & { body?: Uint8Array | null },
  sha256?: string | null,
): string {
  const hash =
    sha256 !== undefined
      ? sha256
      : fetch.body
        ? createHash('sha256').update(fetch.body).digest('hex')
        : null;
  return `${fetch.status ?? ''}|${fetch.error ?? ''}|${hash ?? ''}`;
}

/** "503", "timeout": a failure in a word, for check rows and output. */
function describeFailure(result: FetchResult): string {
  return result.error ?? String(result.status);
}

const verdictsKeys = new WeakMap<SiteConfig, string>();

/** Identifies the watches × agents verdicts were computed for (once per configuration). */
export function verdictsKey(site: SiteConfig): string {
  let key = verdictsKeys.get(site);
  if (key === undefined) {
    key = createHash('sha1')
      .update(JSON.stringify([site.watches, site.agents]))
      .digest('hex');
    verdictsKeys.set(site, key);
  }
  return key;
}
