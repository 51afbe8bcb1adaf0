/**
 * Reading one line, as the reference parser's GetKeyAndValueFrom and
 * ParsedRobotsKey::Parse do. Lines are binary strings (see bytes.ts).
 */

export type LineParts =
  | { readonly kind: 'blank'; readonly comment: boolean }
  | { readonly kind: 'garbage' }
  | {
      readonly kind: 'directive';
      readonly key: string;
      readonly value: string;
      /** Google accepted whitespace in place of the colon ("Disallow /x"). */
      readonly missingColon: boolean;
    };

/** C's isspace in the "C" locale: space, \t, \n, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isBlankOrTab(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function strip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * Splits a line into key and value: a comment starts at the first "#", whitespace is
 * stripped, and the key ends at the first ":". Google also accepts whitespace in place
 * of a missing colon, but only when the line is exactly two whitespace-separated tokens.
 */
export function splitLine(line: string): LineParts {
  let text = line;
  const hash = text.indexOf('#');
  const comment = hash !== -1;
  if (comment) text = text.slice(0, hash);
  text = strip(text);
  if (text.length === 0) return { kind: 'blank', comment };

  let sep = text.indexOf(':');
  let missingColon = false;
  if (sep === -1) {
    for (let i = 0; i < text.length; i++) {
      if (isBlankOrTab(text.charCodeAt(i))) {
        sep = i;
        break;
      }
    }
    if (sep === -1) return { kind: 'garbage' };
    let v = sep;
    while (isBlankOrTab(text.charCodeAt(v))) v++;
    for (let i = v; i < text.length; i++) {
      if (isBlankOrTab(text.charCodeAt(i))) return { kind: 'garbage' };
    }
    missingColon = true;
  }
  const key = strip(text.slice(0, sep));
  if (key.length === 0) return { kind: 'garbage' };
  return { kind: 'directive', key, value: strip(text.slice(sep + 1)), missingColon };
}

export type KeyKind = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'other';

export interface KeyClass {
  readonly kind: KeyKind;
  /** The canonical spelling, for messages. */
  readonly name: string;
  /**
   * `typo`: one of the misspellings Google accepts; `prefix`: the key only starts with
   * the canonical one ("Disallowed"), which Google accepts too. Either way, parsers
   * that follow RFC 9309 ignore the line.
   */
  readonly typo: 'none' | 'typo' | 'prefix';
}

const USER_AGENT_TYPOS = ['useragent', 'user agent'];
const DISALLOW_TYPOS = ['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'];
const SITEMAP_TYPOS = ['site-map'];

function classifyAs(
  lowerKey: string,
  kind: KeyKind,
  canonical: string,
  name: string,
  typos: readonly string[],
): KeyClass {
  if (lowerKey.startsWith(canonical)) {
    return { kind, name, typo: lowerKey.length === canonical.length ? 'none' : 'prefix' };
  }
  for (const typo of typos) if (lowerKey.startsWith(typo)) return { kind, name, typo: 'typo' };
  return OTHER;
}

const OTHER: KeyClass = { kind: 'other', name: '', typo: 'none' };

/**
 * Classifies a lower-cased key as the reference does: case-insensitively, by prefix,
 * with its list of frequent typos. (The four keys and their typos start with different
 * letters, so the first one decides which to try.)
 */
export function classifyKey(lowerKey: string): KeyClass {
  switch (lowerKey.charCodeAt(0)) {
    case 0x75: // u
      return classifyAs(lowerKey, 'user-agent', 'user-agent', 'User-agent', USER_AGENT_TYPOS);
    case 0x61: // a
      return classifyAs(lowerKey, 'allow', 'allow', 'Allow', []);
    case 0x64: // d
      return classifyAs(lowerKey, 'disallow', 'disallow', 'Disallow', DISALLOW_TYPOS);
    case 0x73: // s
      return classifyAs(lowerKey, 'sitemap', 'sitemap', 'Sitemap', SITEMAP_TYPOS);
    default:
      return OTHER;
  }
}

function isTokenChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x5f;
}

/**
 * The product token Google reads from a user-agent value: its leading run of
 * [a-zA-Z_-] (seed 000: "googlebot/1.2" and "googlebot*" are "googlebot"; and so
 * "MJ12bot" is "MJ").
 */
export function extractProductToken(value: string): string {
  let end = 0;
  while (end < value.length && isTokenChar(value.charCodeAt(end))) end++;
  return value.slice(0, end);
}

/** Whether a string is a product token a crawler can obey: non-empty, only [a-zA-Z_-]. */
export function isValidProductToken(value: string): boolean {
  return value.length > 0 && extractProductToken(value) === value;
}

/** Products a browser-like user-agent string names that are no crawler. */
const BROWSER_PRODUCTS = new Set([
  'mozilla',
  'applewebkit',
  'chrome',
  'chromium',
  'safari',
  'gecko',
  'firefox',
  'version',
  'mobile',
  'edg',
  'edge',
  'opr',
  'khtml',
]);

/**
 * The crawler a full user-agent string names ("Mozilla/5.0 (compatible; Googlebot/2.1;
 * +http://www.google.com/bot.html)" names Googlebot): its leading token or a product with
 * a version that is not a browser's, one whose name says bot, spider or crawler first.
 * Undefined when it names none.
 */
export function crawlerTokenIn(userAgent: string): string | undefined {
  const leading = extractProductToken(userAgent);
  const products = [
    ...(leading === '' ? [] : [leading]),
    ...[...userAgent.matchAll(/([A-Za-z][A-Za-z_-]*)\/\d/g)].map((m) => m[1]!),
  ].filter((name) => !BROWSER_PRODUCTS.has(name.toLowerCase()));
  return products.find((name) => /bot|spider|crawler/i.test(name)) ?? products[0];
}

/** Google: "*" alone, or followed by whitespace and anything, names every crawler. */
export function isGoogleGlobalAgent(value: string): boolean {
  return value.charCodeAt(0) === 0x2a && (value.length === 1 || isSpace(value.charCodeAt(1)));
}
