/**
 * The deploy gate's use case: a draft robots.txt judged against the live file, fetched
 * now as a check fetches it, and against the site's URL set, read now from its sitemaps
 * (policy/gate.ts judges). Nothing is recorded: a gate runs where the draft is, in CI or
 * a pre-commit hook, without the database.
 */
import type { FetchConfig, SiteConfig } from '../config/config.js';
import { sitemapsOf } from '../policy/changes/events.js';
import type { CoverageThresholds } from '../policy/changes/cause-model.js';
import { redirectOf } from '../policy/fetch-result.js';
import type {
  DocumentRequest,
  DocumentResult,
  FetchResult,
  RedirectSummary,
} from '../policy/fetch-result.js';
import { gateDraft } from '../policy/gate.js';
import type { GateResult } from '../policy/gate.js';
import { ParseCache } from '../policy/verdicts.js';
import { UsageError } from '../lib/errors.js';
import { discoverSitemaps } from './check/sitemaps.js';
import type { DiscoveryLimits } from './check/sitemaps.js';

export interface GateDeps {
  fetchRobots(origin: string): Promise<FetchResult>;
  fetchDocument(request: DocumentRequest): Promise<DocumentResult>;
}

export interface GateRun {
  readonly site: SiteConfig;
  readonly draft: Uint8Array;
  /** Where the live file is fetched from: the site's origin, or another (a staging host). */
  readonly liveOrigin: string;
  /** Read the site's URL set from its sitemaps (unless its `sitemaps` is off). */
  readonly sitemaps: boolean;
  readonly limits: DiscoveryLimits;
  readonly thresholds: CoverageThresholds;
  /** Fail only on what the draft makes worse than the live file. */
  readonly newOnly?: boolean;
  /** The addresses the fetcher may reach (false by default): a refusal names what widens it. */
  readonly allowPrivateAddresses?: FetchConfig['allowPrivateAddresses'];
}

export interface GateReport {
  readonly site: SiteConfig;
  readonly result: GateResult;
  /** The live file's fetch, as it went. */
  readonly live: Pick<FetchResult, 'url' | 'status' | 'error' | 'errorDetail' | 'cut'> & {
    /** Where it was answered from, when it redirected. */
    readonly redirect: RedirectSummary | null;
  };
  /** The URL set: where it was read from and what stopped it short; null when not read. */
  readonly urlSet: {
    readonly roots: readonly string[];
    readonly urls: number;
    readonly problems: readonly string[];
  } | null;
}

/**
 * Fetches the live file and the URL set, and judges the draft. A live file that
 * robowatch's own address guard would not fetch (a private or reserved address) is a
 * usage error: nothing is known of what crawlers find there, so there is nothing to
 * compare the draft with, and the answer is the flag that allows it.
 */
export async function runGate(deps: GateDeps, run: GateRun): Promise<GateReport> {
  const { site } = run;
  const live = await deps.fetchRobots(run.liveOrigin);
  if (live.error === 'blocked')
    throw new UsageError(refusedSentence(live, run.allowPrivateAddresses ?? false));
  let urlSet: GateReport['urlSet'] = null;
  let paths: readonly string[] | null = null;
  if (run.sitemaps && site.sitemaps !== 'off') {
    const roots = sitemapRoots(site, [live.body, run.draft]);
    const discovery = await discoverSitemaps(
      { fetchDocument: (request) => deps.fetchDocument(request), known: () => undefined },
      site.origin,
      roots,
      run.limits,
    );
    paths = discovery.paths;
    const failed = discovery.files
      .filter((f) => f.status !== 200 && !f.notModified)
      .map(
        (f) =>
          `${f.url} ${f.status === null ? `cannot be fetched (${f.error ?? 'no answer'})` : `answers ${f.status}`}`,
      );
    urlSet = { roots, urls: paths.length, problems: [...failed, ...discovery.problems] };
  }
  const result = gateDraft({
    profile: site.profile,
    agents: site.agents,
    watches: site.watches,
    intent: site.intent.rules,
    draft: run.draft,
    live,
    paths,
    thresholds: run.thresholds,
    newOnly: run.newOnly === true,
  });
  return {
    site,
    result,
    live: {
      url: live.url,
      status: live.status,
      error: live.error,
      errorDetail: live.errorDetail,
      cut: live.cut,
      redirect: redirectOf(live),
    },
    urlSet,
  };
}

/**
 * The sitemaps the URL set is read from: the configured ones, else those the live file
 * and the draft declare (the draft may add one), else the conventional /sitemap.xml.
 */
function sitemapRoots(site: SiteConfig, bodies: readonly (Uint8Array | null)[]): string[] {
  if (site.sitemaps !== 'auto' && site.sitemaps !== 'off') return [...site.sitemaps];
  const cache = new ParseCache();
  const declared = new Set<string>();
  for (const body of bodies)
    if (body !== null)
      for (const url of sitemapsOf(body, cache)) if (/^https?:\/\//i.test(url)) declared.add(url);
  return declared.size > 0 ? [...declared] : [`${site.origin}/sitemap.xml`];
}

/** Why the live file was not fetched, and what allows it, in one line. */
function refusedSentence(live: FetchResult, allowed: FetchConfig['allowPrivateAddresses']): string {
  const reason = live.errorDetail ?? 'its address is private or reserved';
  const why =
    live.redirects.length === 0 ? reason : `it redirects to ${live.finalUrl}, and ${reason}`;
  return `cannot read the live robots.txt ${live.url}: ${why}, which robowatch does not fetch, so what crawlers find there is not known; ${
    allowed === 'loopback'
      ? '--allow-private-addresses (or fetch.allowPrivateAddresses: true) fetches it (a staging site on this network)'
      : '--allow-loopback fetches it if it is on this machine, --allow-private-addresses (or fetch.allowPrivateAddresses: true) if it is on this network (a staging site)'
  }`;
}
