import { hash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { STALE_AFTER_MS } from '../../policy/access.js';
import { routeAlerts } from '../../policy/alerts.js';
import { refusedCause } from '../../policy/refusal.js';
import type { FetchOutcome } from '../../policy/access.js';
import type { ChangeCause } from '../../policy/changes/cause-model.js';
import { fetchStatusOf } from '../../policy/changes/events.js';
import type { ChangeEvent, FetchStatus } from '../../policy/changes/events.js';
import { answeredFrom, placeOf } from '../../policy/fetch-result.js';
import type { FetchResult } from '../../policy/fetch-result.js';
import { siteAccess } from '../../policy/verdicts.js';
import type { VerdictSet } from '../../policy/verdict-sets.js';
import type { LintFinding } from '../../robots/index.js';
import type { CurrentState, StoredSite } from '../records.js';
import type { CheckDeps } from '../ports.js';
import type { CoverageRefresh } from './coverage.js';
import { recordSeenAgain, recordNewState } from './record-state.js';
import { judgeRefused } from './judge.js';
import type { Judged } from './judge.js';

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
  /**
   * The verdicts of a new state (baseline or changed), or of the current one computed
   * again for new watches or crawlers, in their stored form (decodeVerdicts lists them).
   */
  readonly verdicts: VerdictSet | null;
  /** Error-level lint findings of a new state's file: HTML, UTF-16, content past 500 KiB. */
  readonly findings: readonly LintFinding[];
  /** The URL set and coverage refreshed after the check (absent: sitemaps off or not wired). */
  readonly coverage?: CoverageRefresh | { readonly error: string } | null;
  /** For `refused`: since when robowatch refuses the site, and whether it began now. */
  readonly refused?: { readonly since: Date; readonly began: boolean };
  /** The site judged against its intent, when this check judged it (a new state, or a change of intent). */
  readonly judged?: Judged;
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
    fetchKey(result, site.origin, seen.sha256) ===
      fetchKey(current, site.origin, current.bodySha256) &&
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
            site.name,
          )
        : [],
  });
  const judged = began
    ? await judgeRefused(deps, site, stored.id, cause.reason, checkedAt)
    : undefined;
  const outcome: CheckOutcome = {
    ...(judged === undefined ? {} : { judged }),
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

export interface Fetched {
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
    if (
      current !== null &&
      fetchKey(retry, site.origin) === fetchKey(current, site.origin, current.bodySha256)
    ) {
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
  const sha256 = result.body === null ? null : hash('sha256', result.body, 'hex');
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
 * What identifies a fetch state: status or error, the body for a 2xx, and the place it
 * was answered from (a redirect to another host or path is a new state).
 */
function fetchKey(
  fetch: FetchOutcome & { body?: Uint8Array | null; finalUrl: string },
  origin: string,
  sha256?: string | null,
): string {
  const digest =
    sha256 !== undefined ? sha256 : fetch.body ? hash('sha256', fetch.body, 'hex') : null;
  const place = placeOf(answeredFrom(fetch, origin));
  return `${fetch.status ?? ''}|${fetch.error ?? ''}|${digest ?? ''}|${place}`;
}

/** "503", "timeout": a failure in a word, for check rows and output. */
function describeFailure(result: FetchResult): string {
  return result.error ?? String(result.status);
}
