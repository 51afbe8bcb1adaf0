import { asciiLower, toBinary } from './bytes.js';
import { KNOWN_OTHER_KEYS } from './lint.js';
import { MAX_LINE_BYTES } from './profiles.js';
import { classifyKey, splitLine } from './tokenize.js';

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Length of the BOM prefix to skip. Like the reference, this is the longest prefix of
 * the body that is a prefix of the UTF-8 BOM, so a broken BOM loses its first bytes.
 */
export function bomLength(body: string | Uint8Array): number {
  const at = (i: number) => (typeof body === 'string' ? body.charCodeAt(i) : body[i]);
  let n = 0;
  while (n < 3 && n < body.length && at(n) === UTF8_BOM[n]) n++;
  return n;
}

/**
 * Calls `visit` with each line of a binary string from `start` and its 1-based number.
 * CR, LF and CRLF all end a line; the text after the last line break is a line too
 * (possibly empty), as in the reference. Returns the number of lines.
 */
export function eachLine(
  body: string,
  start: number,
  visit: (text: string, line: number) => void,
): number {
  const n = body.length;
  let line = 0;
  let from = start;
  // Next LF and CR at or after `from`, found natively and kept until passed.
  let lf = body.indexOf('\n', from);
  let cr = body.indexOf('\r', from);
  for (;;) {
    if (lf !== -1 && lf < from) lf = body.indexOf('\n', from);
    if (cr !== -1 && cr < from) cr = body.indexOf('\r', from);
    const end = lf === -1 ? (cr === -1 ? n : cr) : cr === -1 ? lf : Math.min(lf, cr);
    visit(body.slice(from, end), ++line);
    if (end >= n) return line;
    from = end + 1;
    if (end === cr && lf === from) from++;
  }
}

/** Line breaks (CR, LF or CRLF) in `s` from `from`. */
export function countLineBreaks(s: string, from: number): number {
  let count = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a) count++;
    else if (c === 0x0d) {
      count++;
      if (s.charCodeAt(i + 1) === 0x0a) i++;
    }
  }
  return count;
}

/** How Google reads one line, as its reference parser reports it (RobotsParsingReporter). */
export interface LineReport {
  readonly line: number;
  /**
   * `unused`: a key some crawlers know but Google ignores (crawl-delay, noindex, …);
   * `unknown`: anything else, including lines that are not "key: value".
   */
  readonly tag: 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'unused' | 'unknown';
  readonly empty: boolean;
  readonly hasDirective: boolean;
  readonly hasComment: boolean;
  /** Only a comment (and whitespace). */
  readonly isComment: boolean;
  /** The key is one of the misspellings Google accepts ("useragent", "disallaw", …). */
  readonly acceptedTypo: boolean;
  readonly missingColon: boolean;
  readonly tooLong: boolean;
}

/** Reports how Google reads each line of a robots.txt file. */
export function reportLines(input: Uint8Array | string): LineReport[] {
  const body = toBinary(input);
  const reports: LineReport[] = [];
  eachLine(body, bomLength(body), (raw, line) => {
    const tooLong = raw.length > MAX_LINE_BYTES;
    let text = tooLong ? raw.slice(0, MAX_LINE_BYTES) : raw;
    const nul = text.indexOf('\0');
    if (nul !== -1) text = text.slice(0, nul);
    const parts = splitLine(text);
    const base = {
      line,
      empty: false,
      hasDirective: false,
      hasComment: text.includes('#'),
      isComment: false,
      acceptedTypo: false,
      missingColon: false,
      tooLong,
    };
    if (parts.kind === 'blank') {
      reports.push({ ...base, tag: 'unknown', empty: !parts.comment, isComment: parts.comment });
    } else if (parts.kind === 'garbage') {
      reports.push({ ...base, tag: 'unknown' });
    } else {
      const lowerKey = asciiLower(parts.key);
      const key = classifyKey(lowerKey);
      const tag =
        key.kind !== 'other' ? key.kind : KNOWN_OTHER_KEYS.has(lowerKey) ? 'unused' : 'unknown';
      reports.push({
        ...base,
        tag,
        hasDirective: true,
        acceptedTypo: key.typo === 'typo',
        missingColon: parts.missingColon,
      });
    }
  });
  return reports;
}
