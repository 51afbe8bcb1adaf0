/**
 * After a site's check: its URL set refreshed from its sitemaps (conditionally: an
 * unchanged sitemap costs a 304), stored when it changed, and the coverage of its current
 * snapshot over that set computed when either the file or the set is new.
 */
import { createHash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { disallowedSitemaps } from '../../policy/coverage.js';
import type { Coverage } from '../../policy/coverage.js';
import { sitemapsOf } from '../../policy/changes/events.js';
import { ParseCache } from '../../policy/verdicts.js';
import { stateOf } from './record-state.js';
import type { Discovery } from './sitemaps.js';
import type { CoverageDeps } from '../ports.js';
import type { CurrentState, UrlSetReport } from '../records.js';

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
  const named =
    site.sitemaps === 'auto'
      ? declaredSitemaps(state.body ?? state.lastGoodBody, cache)
      : site.sitemaps;
  // `auto` with none declared: the conventional place, which may well not exist.
  const guessed = named.length === 0;
  const roots = guessed ? [`${site.origin}/sitemap.xml`] : named;

  const known = await deps.store.loadKnownSitemaps(siteId);
  // The sitemap reader is loaded with a site's first discovery (none with sitemaps off).
  const { discoverSitemaps } = await import('./sitemaps.js');
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
  const missing = guessed && discovery.files[0]?.status !== 200 ? [noSitemap(discovery)] : [];
  const report: UrlSetReport = {
    otherOrigins: discovery.otherOrigins,
    overCap: discovery.overCap,
    problems: [...missing, ...blocked, ...discovery.problems],
    files: discovery.files.map((f, i) => ({
      url: f.url,
      depth: f.depth,
      status: f.status,
      format: f.format,
      entries: f.entries.length,
      notModified: f.notModified,
      // The missing guess is said once, above.
      problems: i === 0 && missing.length > 0 ? [] : f.problems,
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

/** The sitemaps the file declares (its Sitemap: lines that are http(s) URLs). */
function declaredSitemaps(body: Uint8Array | null, cache: ParseCache): string[] {
  return body === null ? [] : sitemapsOf(body, cache).filter((u) => /^https?:\/\//i.test(u));
}

/** Why a site with `sitemaps: auto` has no URL set: it declares none and has none where looked. */
function noSitemap(discovery: Discovery): string {
  const file = discovery.files[0];
  const answer =
    file === undefined || file.status === null ? 'cannot be fetched' : `answers ${file.status}`;
  return `No sitemap found: robots.txt has no Sitemap: line and /sitemap.xml ${answer}. Add a Sitemap: line, or list the sitemaps under \`sitemaps:\` in the configuration, to see how much of the site each crawler may fetch.`;
}
