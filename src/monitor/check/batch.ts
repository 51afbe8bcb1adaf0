import type { SiteConfig } from '../../config/config.js';
import { StateMovedError, oneLine } from '../../lib/errors.js';
import { representativePaths } from '../../policy/coverage-change.js';
import { encodeVerdicts } from '../../policy/verdict-sets.js';
import { checkSite } from './site.js';
import { recomputeVerdicts, verdictsKey } from './record-state.js';
import { refreshCoverage } from './coverage.js';
import { refusalLine } from '../../policy/refusal.js';
import type { CheckOutcome } from './site.js';
import type { CheckDeps } from '../ports.js';
import type { StoredSite } from '../records.js';

/**
 * Sites in progress per fetch the fetcher runs at once (fetch.concurrency): while one
 * site's new state is computed and recorded, the next site's fetch already runs, so
 * the fetch slots never wait on the database, and the states that wait for a write go
 * in the next one together. Eight (two before) halved the transactions of a check with
 * new states and cut its database CPU by 30% (bench:check, 3,000 sites, concurrency 16),
 * for 25 MB more at peak. Four keeps those batches and as many sites a second, and a
 * changed check took 3–7% less CPU than with eight (docs/performance.md, the twentieth
 * round): half as many sites in flight leave less alive for the young collections to
 * copy and promote. Three made a first check dearer.
 */
export const SITES_PER_FETCH = 4;

export interface RunOptions {
  /** Sites in progress at the same time (the fetcher limits the fetches among them). */
  readonly concurrency: number;
  /** Called as each site's check completes (in completion order). */
  readonly onOutcome?: (outcome: CheckOutcome) => void;
  /** Called when a site could not be checked for an internal reason (a defect or the store). */
  readonly onFailure?: (site: string, error: unknown) => void;
  /** Once aborted, no further site's check begins (those begun finish and are recorded). */
  readonly signal?: AbortSignal;
}

export interface RunSummary {
  readonly checked: number;
  readonly baseline: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly events: number;
  /** The causes of the changes (what people read; `events` are their pair-level facts). */
  readonly causes: number;
  /** Sites that could not be checked, with a one-line reason. */
  readonly failures: readonly { readonly site: string; readonly reason: string }[];
}

/** Checks sites now, `concurrency` at a time; one site's failure does not stop the others. */
export async function checkSites(
  deps: CheckDeps,
  sites: readonly SiteConfig[],
  options: RunOptions,
): Promise<RunSummary> {
  const stored = new Map(
    (await deps.store.syncSites(sites.map((s) => s.origin))).map((s) => [s.origin, s]),
  );
  const counts = { checked: 0, baseline: 0, changed: 0, unchanged: 0, events: 0, causes: 0 };
  const failures: { site: string; reason: string }[] = [];
  /** One site's check, counted; its outcome ends with it. */
  const checkOne = async (site: SiteConfig): Promise<void> => {
    try {
      const { outcome } = await checkSiteAgainIfMoved(deps, site, stored.get(site.origin)!);
      options.onOutcome?.(outcome);
      // Not checked: robowatch refused the address. Said as a site it could not check.
      if (outcome.kind === 'refused') {
        const cause = outcome.causes.find((c) => c.type === 'refused');
        failures.push({
          site: site.origin,
          reason: cause === undefined ? 'robowatch could not check this site' : refusalLine(cause),
        });
        return;
      }
      counts.checked++;
      counts[outcome.kind]++;
      counts.events += outcome.events.length;
      counts.causes += outcome.causes.length;
    } catch (error) {
      failures.push({ site: site.origin, reason: oneLine(error) });
      options.onFailure?.(site.origin, error);
    }
  };
  let next = 0;
  // Each check in a call of its own: a loop's body kept the site's last outcome (its
  // verdicts, events, file) alive through the next site's check, for every worker at
  // once, and the young collections copied them all (docs/performance.md).
  const worker = async () => {
    for (let i = next++; i < sites.length && options.signal?.aborted !== true; i = next++)
      await checkOne(sites[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, sites.length) }, worker));
  return { ...counts, failures };
}

/**
 * `watch: auto`: the site with its watches chosen from its latest URL set (the home page
 * and a few URLs of each large path prefix); as it is before it has one, or without.
 */
async function withChosenWatches(
  deps: CheckDeps,
  site: SiteConfig,
  siteId: number,
): Promise<SiteConfig> {
  if (site.watchAuto !== true || deps.coverage === undefined || site.sitemaps === 'off')
    return site;
  const paths = await deps.coverage.store.loadLatestPaths(siteId);
  if (paths === undefined || paths.length === 0) return site;
  const watches = representativePaths(paths).map((path) => site.origin + path);
  return Object.freeze({ ...site, watches });
}

/** A check no other check of the site overtook ("Check now" twice, or beside the daemon). */
export async function checkSiteAgainIfMoved(
  deps: CheckDeps,
  site: SiteConfig,
  stored: StoredSite,
): ReturnType<typeof checkSite> {
  site = await withChosenWatches(deps, site, stored.id);
  for (let attempt = 1; ; attempt++) {
    try {
      const checked = await checkSite(deps, site, stored);
      const checkedState = checked.current;
      // A refused check read nothing: there is no file to read the sitemaps of.
      if (
        deps.coverage === undefined ||
        site.sitemaps === 'off' ||
        checked.outcome.kind === 'refused' ||
        checkedState === null
      )
        return checked;
      // The URL set and its coverage follow the check; their failure is not the check's.
      let coverage: CheckOutcome['coverage'];
      try {
        coverage = await refreshCoverage(
          deps.coverage,
          site,
          checked.outcome.siteId,
          checkedState,
          checked.outcome.fetch.body,
        );
      } catch (error) {
        coverage = { error: oneLine(error) };
      }
      let current = checkedState;
      // watch: auto and a new URL set: the watches chosen from it, the verdicts with them.
      // An unchanged set gives the choice made before this check: nothing to read again.
      if (
        site.watchAuto === true &&
        coverage !== null &&
        !('error' in coverage) &&
        coverage.urlSet.changed
      ) {
        const chosen = await withChosenWatches(deps, site, checked.outcome.siteId);
        if (verdictsKey(chosen) !== current.verdictsKey) {
          const verdicts = await recomputeVerdicts(deps, chosen, checked.outcome.siteId, current);
          current = { ...current, verdictsKey: verdictsKey(chosen) };
          return {
            current,
            outcome: { ...checked.outcome, coverage, verdicts: encodeVerdicts(verdicts) },
          };
        }
      }
      return { current, outcome: { ...checked.outcome, coverage } };
    } catch (error) {
      if (!(error instanceof StateMovedError) || attempt === 3) throw error;
      // Compared with the state now recorded, the same file is no change to report twice.
      const [now] = await deps.store.loadSites([site.origin]);
      if (now === undefined) throw error;
      stored = now;
    }
  }
}

/**
 * Checks one site now (the web's "Check now"): its outcome, or an error that says why it
 * could not be checked. A refused check is an outcome: the page and the API say why.
 */
export async function checkNow(check: CheckDeps, site: SiteConfig): Promise<CheckOutcome> {
  let outcome: CheckOutcome | undefined;
  const summary = await checkSites(check, [site], {
    concurrency: 1,
    onOutcome: (o) => (outcome = o),
  });
  const failure = summary.failures[0];
  if (outcome?.kind !== 'refused' && (failure !== undefined || outcome === undefined))
    throw new Error(`${site.origin} could not be checked: ${failure?.reason ?? 'no outcome'}`);
  return outcome;
}
