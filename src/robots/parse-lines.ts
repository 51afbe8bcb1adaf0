/**
 * One robots.txt line read: user-agent and rule values, other keys, and the file-level
 * checks (encoding, HTML).
 */
import { firstInvalidUtf8 } from './bytes.js';
import { countLineBreaks } from './lines.js';
import { KNOWN_OTHER_KEYS } from './lint.js';
import type { LintCollector } from './lint.js';
import { canonicalLegacy, escapePatternGoogle, normalizeRfc9309 } from './pattern.js';
import type { Profile } from './profiles.js';
import { htmlStart, isUtf16, looksBinary } from './sniff.js';
import { extractProductToken, isGoogleGlobalAgent } from './tokenize.js';
import type { Directive, RobotsRule, GroupAgent } from './parse.js';

export function readAgent(
  text: string,
  value: string,
  line: number,
  profile: Profile,
  lint: LintCollector,
): GroupAgent {
  const googleGlobal = isGoogleGlobalAgent(value);
  const googleToken = googleGlobal ? '*' : extractProductToken(value);
  if (value.length === 0) {
    lint.add(
      'empty-user-agent',
      'warning',
      line,
      `User-agent on line ${line} has no value and matches no crawler.`,
    );
  } else if (googleToken === '') {
    lint.add(
      'no-product-token',
      'warning',
      line,
      `User-agent "${text}" on line ${line} has no product token Google can match (letters, "-" and "_").`,
    );
  } else if (googleToken !== value) {
    lint.add(
      'user-agent-not-token',
      'info',
      line,
      `Google reads User-agent "${text}" on line ${line} as "${googleToken}"; RFC 9309 parsers match the whole value.`,
    );
  }
  if (profile === 'google') return { value: text, token: googleToken, global: googleGlobal, line };
  return { value: text, token: text, global: value === '*', line };
}

export function readRule(
  directive: Directive,
  pattern: string,
  value: string,
  line: number,
  profile: Profile,
  lint: LintCollector,
): RobotsRule {
  const first = value.charCodeAt(0);
  if (value.length > 0 && first !== 0x2f && first !== 0x2a) {
    lint.add('path-not-absolute', 'warning', line, notAbsoluteMessage(directive, pattern, line));
  }
  return { directive, pattern, match: matchForm(value, profile), line };
}

/**
 * What a rule whose pattern does not start with "/" does (nothing: every path starts with
 * "/", so it never matches) and the pattern its author most likely meant.
 */
function notAbsoluteMessage(directive: Directive, pattern: string, line: number): string {
  const url = /^https?:\/\/[^/?#]*/i.exec(pattern);
  const effect = directive === 'disallow' ? 'blocks nothing' : 'allows nothing';
  const head = `${directive === 'disallow' ? 'Disallow' : 'Allow'} "${pattern}" on line ${line} ${effect}`;
  if (url !== null) {
    const path = pattern.slice(url[0].length);
    const meant = path.startsWith('/') ? path : `/${path}`;
    return `${head}: rules take a path, not a URL, so it never matches. Did you mean "${meant}"?`;
  }
  const meant = pattern.startsWith('.')
    ? `"/*${pattern}"`
    : `"/${pattern}" (or "/*${pattern}" in any folder)`;
  return `${head}: paths start with "/", so it never matches. Did you mean ${meant}?`;
}

/** A pattern (as bytes) in the form the profile compares paths with. */
export function matchForm(value: string, profile: Profile): string {
  return profile === 'google'
    ? escapePatternGoogle(value)
    : profile === 'rfc9309'
      ? normalizeRfc9309(value, true)
      : canonicalLegacy(value);
}

export function reportOtherKey(
  key: string,
  lowerKey: string,
  line: number,
  lint: LintCollector,
): void {
  const known = KNOWN_OTHER_KEYS.get(lowerKey);
  if (known !== undefined) lint.add('unsupported-key', 'info', line, `Line ${line}: ${known}`);
  else
    lint.add(
      'unknown-key',
      'warning',
      line,
      `Unknown key ${quoted(key)} on line ${line} is ignored.`,
    );
}

/** Text from the file in quotes that do not clash with its own: '"description"', not ""description"". */
function quoted(text: string): string {
  return text.includes('"') && !text.includes("'") ? `'${text}'` : `"${text}"`;
}

export function isAbsoluteHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const protocol = new URL(text).protocol;
  return protocol === 'http:' || protocol === 'https:';
}

/** Encoding findings: UTF-16, a UTF-8 BOM, bytes that are not UTF-8. */
export function checkEncoding(
  full: string,
  bomLength: number,
  utf8: boolean,
  lint: LintCollector,
): void {
  if (isUtf16(full.charCodeAt(0), full.charCodeAt(1))) {
    lint.add(
      'utf16',
      'error',
      1,
      'The file is UTF-16; robots.txt must be UTF-8, and crawlers reading it as bytes find no rules.',
    );
    lint.notText();
    return;
  }
  const head = full.slice(0, 512);
  if (looksBinary(Uint8Array.from(head, (c) => c.charCodeAt(0)))) {
    lint.add(
      'binary',
      'error',
      1,
      'The file is binary data (an image, an archive…), not robots.txt; crawlers find no rules in it.',
    );
    lint.notText();
    return;
  }
  if (bomLength === 3) {
    lint.add(
      'bom',
      'info',
      1,
      'The file starts with a UTF-8 byte order mark; Google skips it, but some parsers read the first line as an unknown key.',
    );
  }
  const invalid = utf8 ? -1 : firstInvalidUtf8(full);
  if (invalid !== -1) {
    const line = 1 + countLineBreaks(full.slice(0, invalid), 0);
    lint.add(
      'invalid-utf8',
      'warning',
      line,
      `Line ${line} is not valid UTF-8 (robots.txt must be UTF-8); its non-ASCII bytes are compared as they are.`,
    );
  }
}

/** Seed 000: an HTML page served as robots.txt is read line by line for whatever rules it has. */
export function checkHtml(body: string, start: number, lint: LintCollector): boolean {
  const i = htmlStart(body, start);
  if (i === -1) return false;
  const line = 1 + countLineBreaks(body.slice(0, i), 0);
  lint.add(
    'html',
    'error',
    line,
    'The file is an HTML page, not robots.txt; crawlers read only lines that happen to look like rules.',
  );
  return true;
}
