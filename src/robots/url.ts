/**
 * The part of a URL that robots.txt rules are compared with: path, params and query,
 * without the fragment, exactly as the reference parser's GetPathParamsQuery takes it.
 * The URL is expected to be escaped already (as a crawler requests it); nothing is
 * decoded or normalised here. Always returns a string starting with "/".
 */
export function getPathParamsQuery(url: string): string {
  // Initial two slashes are ignored (a scheme-relative URL).
  let searchStart = 0;
  if (url.length >= 2 && url.charCodeAt(0) === 0x2f && url.charCodeAt(1) === 0x2f) searchStart = 2;

  const earlyPath = findFirstOf(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  // If a path, param or query starts before "://", the "://" does not end a scheme.
  if (earlyPath !== -1 && (protocolEnd === -1 || earlyPath < protocolEnd)) protocolEnd = -1;
  protocolEnd = protocolEnd === -1 ? searchStart : protocolEnd + 3;

  const pathStart = findFirstOf(url, protocolEnd);
  if (pathStart === -1) return '/';
  const hashPos = url.indexOf('#', searchStart);
  if (hashPos !== -1 && hashPos < pathStart) return '/';
  const pathEnd = hashPos === -1 ? url.length : hashPos;
  const path = url.slice(pathStart, pathEnd);
  // Prepend a slash if the result would start with "?" or ";".
  return url.charCodeAt(pathStart) === 0x2f ? path : '/' + path;
}

/** Index of the first "/", "?" or ";" at or after `from`, or -1. */
function findFirstOf(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x3b) return i;
  }
  return -1;
}

/** The path robots.txt itself lives at; RFC 9309 and the 1996 standard always allow it. */
export const ROBOTS_TXT_PATH = '/robots.txt';
