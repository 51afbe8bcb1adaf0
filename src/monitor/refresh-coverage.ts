/**
 * After a site's check: its URL set refreshed from its sitemaps (conditionally: an
 * unchanged sitemap costs a 304), stored when it changed, and the coverage of its current
 * snapshot over that set computed when either the file or the set is new.
 */
import { createHash } from 'node:crypto';
import type { SiteConfig } from '../config/config.js';
import { disallowedSitemaps } from '../policy/coverage.js';
import type { Coverage } from '../policy/coverage.js';
import { sitemapsOf } from '../policy/events.js';
import { ParseCache } from '../policy/verdicts.js';
import { stateOf } from './check-site.js';
import { discoverSitemaps } from './discover-sitemaps.js';
import type { CoverageDeps } from './ports.js';
import type { CurrentState, UrlSetReport } from './records.js';

/** What a refresh found and did. */
export interface CoverageRefresh {
  readonly site: string;
  readonly siteId: number;
  /** The sitemaps it started from. */
  readonly roots: readonly string[];
  readonly urlSet: {
    readonly id: number;
    readonly urls: number;
    readonly changed: boolean;
    readonly added: number;
    readonly removed: number;
  };
  readonly report: UrlSetReport;
  /** The coverage computed now (null: the stored one still holds). */
  readonly coverage: Coverage | null;
}

/** The crawlers (and profiles) a coverage is computed for. */
export function coverageAgentsKey(site: SiteConfig): string {
  return createHash('sha1').update(JSON.stringify(site.agents)).digest('hex');
}

/** Refreshes a site's URL set and the coverage of its current state; null when its sitemaps are off. */
export async function refreshCoverage(
  deps: CoverageDeps,
  site: SiteConfig,
  siteId: number,
  current: CurrentState,
  /** The current state's body when the caller has it (the check just fetched it). */
  fetched?: Uint8Array | null,
): Promise<CoverageRefresh | null> {
  if (site.sitemaps === 'off') return null;
  const cache = new ParseCache();
  const body =
    current.bodySha256 === null
      ? null
      : (fetched ?? (await deps.store.loadBody(current.bodySha256)));
  const state = await stateOf(deps, current, body);
  const roots =
    site.sitemaps === 'auto'
      ? autoRoots(site.origin, state.body ?? state.lastGoodBody, cache)
      : site.sitemaps;

  const known = await deps.store.loadKnownSitemaps(siteId);
  const discovery = await discoverSitemaps(
    { fetchDocument: (r) => deps.fetchDocument(r), known: (url) => known.get(url) },
    site.origin,
    roots,
    deps.limits,
  );
  const at = deps.now();
  await deps.store.saveSitemapFiles(
    siteId,
    discovery.files.flatMap((f) =>
      f.format === null
        ? []
        : [
            {
              url: f.url,
              etag: f.etag,
              lastModified: f.lastModified,
              format: f.format,
              entries: f.entries,
            },
          ],
    ),
    at,
  );
  // Search Console's "Sitemap blocked by robots.txt": Google does not read these.
  const blocked = disallowedSitemaps(
    state,
    discovery.files.map((f) => f.url),
    site.origin,
    undefined,
    cache,
  ).map(
    ({ url, rule }) =>
      `${url} is disallowed for Googlebot${rule === null ? '' : ` by line ${rule.line} \`${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern}\``}: Google does not read it`,
  );
  const report: UrlSetReport = {
    otherOrigins: discovery.otherOrigins,
    overCap: discovery.overCap,
    problems: [...blocked, ...discovery.problems],
    files: discovery.files.map((f) => ({
      url: f.url,
      depth: f.depth,
      status: f.status,
      format: f.format,
      entries: f.entries.length,
      notModified: f.notModified,
      problems: f.problems,
    })),
  };
  const paths = [...discovery.paths].sort();
  const urlSet = await deps.store.recordUrlSet(siteId, paths, report, at);

  const agentsKey = coverageAgentsKey(site);
  let coverage: Coverage | null = null;
  if (!(await deps.store.hasCoverage(current.snapshotId, urlSet.id, agentsKey))) {
    coverage = await deps.computer.coverage(state, paths, site.agents);
    await deps.store.saveCoverage({
      snapshotId: current.snapshotId,
      urlSetId: urlSet.id,
      agentsKey,
      computedAt: at,
      coverage,
    });
  }
  return {
    site: site.origin,
    siteId,
    roots,
    urlSet: {
      id: urlSet.id,
      urls: paths.length,
      changed: urlSet.changed,
      added: urlSet.added,
      removed: urlSet.removed,
    },
    report,
    coverage,
  };
}

/** `auto`: the file's Sitemap: lines, else /sitemap.xml. */
function autoRoots(origin: string, body: Uint8Array | null, cache: ParseCache): string[] {
  const named = body === null ? [] : sitemapsOf(body, cache).filter((u) => /^https?:\/\//i.test(u));
  return named.length > 0 ? named : [`${origin}/sitemap.xml`];
}
