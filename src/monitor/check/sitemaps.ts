/**
 * A site's URL set from its sitemaps: the files its robots.txt names (or /sitemap.xml),
 * sitemap indexes followed to a depth, each file streamed through the sitemap reader
 * under the sitemaps.org limits, one deadline for the whole discovery, and a cap on the
 * URLs kept. A file read before is asked for conditionally: unchanged, it costs a 304
 * and its URLs are the ones kept from last time.
 */
import type { DocumentRequest, DocumentResult } from '../../policy/fetch-result.js';
import type { SitemapFormat } from '../../policy/sitemap-reader.js';
import { SITEMAP_MAX_BYTES, SitemapReader } from '../../policy/sitemap-reader.js';
import type { KnownSitemap } from '../records.js';
import { grouped } from '../../policy/wording/words.js';
import { DEFAULT_DISCOVERY_LIMITS } from './discovery-limits.js';
import type { DiscoveryLimits } from './discovery-limits.js';

export { DEFAULT_DISCOVERY_LIMITS };
export type { DiscoveryLimits };
export type { KnownSitemap };

/** One sitemap file fetched (or not) in a discovery. */
export interface SitemapFileOutcome {
  readonly url: string;
  /** 1 for a root, 2 for a file a root index lists, … */
  readonly depth: number;
  readonly status: number | null;
  /** A network failure or a refused address, in one line; null when there was an answer. */
  readonly error: string | null;
  readonly format: SitemapFormat | null;
  /** Unchanged since last time (304): its entries are last time's. */
  readonly notModified: boolean;
  /** Page URLs or sitemaps it listed (as read, before the site's cap). */
  readonly entries: readonly string[];
  /** What was wrong with it, one line each ("over 50,000 URLs: 10 left out"). */
  readonly problems: readonly string[];
  readonly etag: string | null;
  readonly lastModified: string | null;
}

export interface Discovery {
  /**
   * The site's URLs found, as paths (with their query) the way a crawler requests them,
   * each once, in the order found, at most maxUrls.
   */
  readonly paths: readonly string[];
  /** URLs of other origins the sitemaps list (not evaluated). */
  readonly otherOrigins: number;
  /** URLs of the site left out by the cap. */
  readonly overCap: number;
  readonly files: readonly SitemapFileOutcome[];
  /** What stopped the discovery short, one line each. */
  readonly problems: readonly string[];
}

export interface DiscoveryDeps {
  fetchDocument(request: DocumentRequest): Promise<DocumentResult>;
  /** The file as read last time, for a conditional request. */
  known(url: string): KnownSitemap | undefined;
}

/** Finds a site's URLs from its sitemaps, starting at `roots`. Never throws. */
export async function discoverSitemaps(
  deps: DiscoveryDeps,
  origin: string,
  roots: readonly string[],
  limits: DiscoveryLimits = DEFAULT_DISCOVERY_LIMITS,
): Promise<Discovery> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  const paths = new Set<string>();
  let otherOrigins = 0;
  let overCap = 0;
  const files: SitemapFileOutcome[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue: { url: string; depth: number }[] = [];
  for (const root of roots) {
    if (seen.has(root)) continue;
    seen.add(root);
    queue.push({ url: root, depth: 1 });
  }

  const addUrl = (loc: string) => {
    const path = pathOf(loc, origin);
    if (path === null) otherOrigins++;
    else if (paths.size >= limits.maxUrls && !paths.has(path)) overCap++;
    else paths.add(path);
  };

  try {
    while (queue.length > 0) {
      if (deadline.signal.aborted) {
        problems.push(
          `the discovery took over ${Math.round(limits.timeoutMs / 1000)} s: ${queue.length} sitemap${queue.length === 1 ? '' : 's'} not read`,
        );
        break;
      }
      if (files.length >= limits.maxFiles) {
        problems.push(
          `more than ${grouped(limits.maxFiles)} sitemap files: ${queue.length} not read`,
        );
        break;
      }
      const { url, depth } = queue.shift()!;
      const file = await readSitemap(deps, url, depth, deadline.signal);
      files.push(file);
      if (file.format === 'index') {
        let tooDeep = 0;
        let loops = 0;
        const elsewhere: string[] = [];
        const host = hostOf(url);
        for (const child of file.entries) {
          if (seen.has(child)) loops++;
          // sitemaps.org: an index lists sitemaps of its own host only; one elsewhere is
          // read when the site's robots.txt names it (a root), not because an index does.
          else if (hostOf(child) !== host) elsewhere.push(child);
          else if (depth >= limits.maxDepth) tooDeep++;
          else {
            seen.add(child);
            queue.push({ url: child, depth: depth + 1 });
          }
        }
        if (tooDeep > 0)
          problems.push(
            `${url}: lists ${tooDeep} sitemap${tooDeep === 1 ? '' : 's'} deeper than ${limits.maxDepth} levels of indexes: not read`,
          );
        if (elsewhere.length > 0)
          problems.push(
            `${url}: lists ${elsewhere.length} sitemap${elsewhere.length === 1 ? '' : 's'} on other hosts (${elsewhere
              .slice(0, 3)
              .join(
                ', ',
              )}${elsewhere.length > 3 ? ', …' : ''}): not read, as sitemaps.org asks (an index lists sitemaps of its own host; name others in robots.txt)`,
          );
        if (loops > 0)
          problems.push(
            `${url}: lists ${loops} sitemap${loops === 1 ? '' : 's'} read already (a loop or a repeat): read once`,
          );
      } else for (const loc of file.entries) addUrl(loc);
    }
  } finally {
    clearTimeout(timer);
  }
  if (overCap > 0)
    problems.push(
      `the sitemaps list more than ${grouped(limits.maxUrls)} URLs of the site: ${grouped(overCap)} left out`,
    );
  return { paths: [...paths], otherOrigins, overCap, files, problems };
}

async function readSitemap(
  deps: DiscoveryDeps,
  url: string,
  depth: number,
  signal: AbortSignal,
): Promise<SitemapFileOutcome> {
  const known = deps.known(url);
  const entries: string[] = [];
  const reader = new SitemapReader({
    url: (loc) => entries.push(loc),
    sitemap: (loc) => entries.push(loc),
  });
  const result = await deps.fetchDocument({
    url,
    etag: known?.etag,
    lastModified: known?.lastModified,
    signal,
    maxBytes: SITEMAP_MAX_BYTES,
    onChunk: (bytes) => reader.write(bytes),
  });
  const base = {
    url,
    depth,
    status: result.status,
    etag: result.etag,
    lastModified: result.lastModified,
  };
  if (result.notModified && known !== undefined)
    return {
      ...base,
      error: null,
      format: known.format,
      notModified: true,
      entries: known.entries,
      problems: [],
      // A 304 may leave out the validators: the ones sent still hold.
      etag: result.etag ?? known.etag,
      lastModified: result.lastModified ?? known.lastModified,
    };
  const summary = reader.end();
  const problems: string[] = [];
  let error: string | null = null;
  if (result.error !== null) {
    error = `${result.error}: ${result.errorDetail ?? ''}`.trim();
    if (result.status === null) problems.push(`could not be fetched (${error})`);
    else problems.push(`broke off while read (${error})`);
  } else if (result.status === null || result.status < 200 || result.status > 299)
    problems.push(`answered ${result.status ?? 'nothing'}`);
  else {
    if (summary.error !== null) problems.push(summary.error);
    if (result.cut)
      problems.push(`is over 50 MB uncompressed (the sitemaps.org limit): read up to there`);
    if (summary.overLimit > 0)
      problems.push(
        `lists over 50,000 ${summary.format === 'index' ? 'sitemaps' : 'URLs'} (the sitemaps.org limit): ${grouped(summary.overLimit)} left out`,
      );
    if (summary.invalid > 0)
      problems.push(
        `${grouped(summary.invalid)} entr${summary.invalid === 1 ? 'y is not an absolute http(s) URL' : 'ies are not absolute http(s) URLs'}`,
      );
  }
  const ok = result.status !== null && result.status >= 200 && result.status <= 299;
  return {
    ...base,
    error,
    format: ok ? summary.format : null,
    notModified: false,
    entries: ok ? entries : [],
    problems,
  };
}

/**
 * A URL's path and query as a crawler requests it (WHATWG URL: %-encoded, no fragment),
 * or null when it is not of this origin (scheme, host and port).
 */
function pathOf(loc: string, origin: string): string | null {
  try {
    const url = new URL(loc);
    return url.origin === origin ? url.pathname + url.search : null;
  } catch {
    return null;
  }
}

/** A URL's host (and port), lower-cased by the URL parser; null when it is not a URL. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
