/** Sites' origins, watched URLs and sitemap URLs as the configuration normalises them. */
import { ConfigError } from './errors.js';
import { unstorableText } from './text.js';
import { clip } from '../policy/wording/format.js';

/**
 * Sitemap URLs as written: absolute http(s) URLs (a site's may also be paths of the site,
 * and may be on another host, as robots.txt's Sitemap: lines may).
 */
export function sitemapUrls(
  entries: readonly string[],
  origin: string | undefined,
  where: string,
): string[] {
  return entries.map((entry, i) => {
    const base = origin === undefined ? undefined : `${origin}/`;
    if (!URL.canParse(entry, base))
      throw new ConfigError(
        `${where}[${i}]: "${entry.slice(0, 200)}" is not a URL${origin === undefined ? ' (write it whole: https://…)' : ''}`,
      );
    const url = new URL(entry, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(
        `${where}[${i}]: must be http or https, not ${url.protocol.slice(0, -1)}`,
      );
    url.hash = '';
    return url.href;
  });
}

/** A site's origin from what someone typed: "example.com" is https://example.com. */
export function originFromInput(input: string, where = 'url'): string {
  const text = input.trim();
  return siteOrigin(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`, where);
}

/** Text quoted in an error: its first 200 characters. */
const clipped = (text: string) => clip(text, 200);

export function siteOrigin(url: string, where: string): string {
  const unstorable = unstorableText(url);
  if (unstorable !== undefined) throw new ConfigError(`${where}: ${unstorable}`);
  if (!URL.canParse(url)) throw new ConfigError(`${where}: "${clipped(url)}" is not a URL`);
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${where}: must be http or https, not ${parsed.protocol.slice(0, -1)}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(`${where}: must not contain credentials`);
  }
  // A DNS name: letters, digits, "-" and "_" (an IDN is already xn--…), no more than 253
  // characters, each part between dots no more than 63 (RFC 1035), none starting or ending
  // with "-" (RFC 1123: no registry hands one out, so "-6" or "shop-.example" is a slip).
  // Another (https://{, a part of 64) is never found: the site would be unreachable forever.
  const host = parsed.hostname;
  if (!host.startsWith('[') && (host.length > 253 || !HOST_NAME.test(host)))
    throw new ConfigError(
      `${where}: "${clipped(host)}" is not a host name: letters, digits, "-" and "_" between dots (no "-" first or last), at most 63 between two, 253 in all`,
    );
  // An address written otherwise than as four decimal numbers (1.5, 0x7f.1, 010.0.0.1) is
  // read as one all the same (1.0.0.5, 127.0.0.1, 8.0.0.1): say so, rather than watch a
  // site other than the one its writer meant.
  const written = writtenHost(url);
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host) && written !== undefined && written !== host)
    throw new ConfigError(
      `${where}: "${clipped(written)}" is read as the address ${host}: write ${host} if that is the site`,
    );
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError(
      `${where}: must be an origin (scheme://host[:port]); a robots.txt governs its whole origin, so "${parsed.pathname}${parsed.search}" belongs in watch`,
    );
  }
  return parsed.origin;
}

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);

/** The host as written in a URL (without credentials, port or a final dot), lower-cased. */
function writtenHost(url: string): string | undefined {
  const authority = /^[a-z][a-z0-9+.-]*:[/\\]*([^/?#\\]*)/i.exec(url)?.[1];
  if (authority === undefined) return undefined;
  const host = authority.slice(authority.lastIndexOf('@') + 1).replace(/:\d*$/, '');
  return host.replace(/\.$/, '').toLowerCase();
}

/**
 * A watched URL as a crawler would request it: resolved against the site, %-encoded,
 * without fragment. Throws ConfigError saying what is wrong with it.
 */
export function normaliseWatch(watch: string, origin: string): string {
  // Most watches are plain paths the URL parser would keep as written: 2-3 µs each saved
  // at start-up, 0.1 s for a configuration of 3,000 sites × 20 watches.
  if (isPlainPath(watch)) return origin + watch;
  if (!watch.startsWith('/') && !/^https?:\/\//i.test(watch)) {
    throw new ConfigError(`"${watch}" must be a path starting with "/" or an absolute URL`);
  }
  // One parse per URL: a configuration may list hundreds of thousands of them.
  let url: URL;
  try {
    url = new URL(watch, origin);
  } catch {
    throw new ConfigError(`"${watch}" is not a valid URL`);
  }
  if (url.origin !== origin) {
    throw new ConfigError(
      `${url.origin} is not this site (${origin}); list it as a site of its own`,
    );
  }
  const href = url.href;
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

/**
 * A path (and query) of characters the URL parser neither encodes nor reads specially (no
 * "%", "\\", "#", quote, space or non-ASCII character), without a segment that starts with
 * a dot ("." and ".." are resolved): the parser would return it as written.
 */
const PLAIN_PATH = /^\/(?![/])[\w\-~!$&()*+,;=:@/.]*(?:\?[\w\-~!$&()*+,;=:@/.?]*)?$/;

export function isPlainPath(watch: string): boolean {
  if (!PLAIN_PATH.test(watch)) return false;
  const query = watch.indexOf('?');
  const dot = watch.indexOf('/.');
  return dot === -1 || (query !== -1 && dot > query);
}

/**
 * The top-level watch list, as paths any origin can be put in front of: each is
 * normalised once, not once per site.
 */
export function normalisePaths(watches: readonly string[], where: string): string[] {
  const origin = 'http://robowatch.invalid';
  return normaliseWatches(
    watches.map((watch, i) => {
      if (!watch.startsWith('/') || watch.startsWith('//'))
        throw new ConfigError(`${where}[${i}]: "${watch}" must be a path starting with "/"`);
      return watch;
    }),
    origin,
    where,
  ).map((url) => url.slice(origin.length));
}

export function normaliseWatches(
  watches: readonly string[],
  origin: string,
  where: string,
): string[] {
  const out = new Set<string>();
  watches.forEach((watch, i) => {
    try {
      out.add(normaliseWatch(watch, origin));
    } catch (error) {
      if (error instanceof ConfigError) throw new ConfigError(`${where}[${i}]: ${error.message}`);
      throw error;
    }
  });
  return [...out];
}
