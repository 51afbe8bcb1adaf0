/**
 * What a body is, when it is not robots.txt: an HTML page (a CMS's error page served
 * with 200), UTF-16 text, or binary data (an image, an archive). Looks at the first
 * bytes only, so it costs the same for any size of file.
 */
import { bomLength } from './lines.js';

/** The kinds of content that are not robots.txt, as far as the first bytes tell. */
export type NotRobotsTxt = 'html' | 'utf16' | 'binary';

const HTML_TAG = /<(?:!doctype\s+html|html|head|body|meta|title|script|style|div|link)[\s>/]/i;

/** How far into the body the sniffing for HTML looks. */
const SNIFF_BYTES = 2048;
const BINARY_SNIFF_BYTES = 512;

/** A UTF-16 byte order mark, little- or big-endian. */
export function isUtf16(first: number | undefined, second: number | undefined): boolean {
  return (first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff);
}

/**
 * Where an HTML page starts (its offset in `text`, a binary string), or -1: the first
 * non-space character is "<" and one of the tags every page has follows.
 */
export function htmlStart(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return text[i] === '<' && HTML_TAG.test(text.slice(i, i + SNIFF_BYTES)) ? i : -1;
}

/**
 * Binary data: among the first 512 bytes, NUL bytes, or more than one in ten control
 * bytes that no text file has (tab, line ends and form feed are text). Images and
 * archives show theirs at once; a text file padded with NULs after its rules is text.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  if (n === 0) return false;
  let control = 0;
  let nul = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) nul++;
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) || b === 0x7f) control++;
  }
  return nul > 1 || control * 10 > n;
}

/**
 * Whether the first character after the byte order mark and white space (as htmlStart
 * skips it) is "<": only then can the bytes be an HTML page. Most files answer at their
 * first byte.
 */
export function startsWithMarkup(bytes: Uint8Array): boolean {
  let i = bomLength(bytes);
  while (i < bytes.length && /\s/.test(String.fromCharCode(bytes[i]!))) i++;
  return bytes[i] === 0x3c;
}

/** What the body is if it is not robots.txt; null when it may well be. */
export function sniffContent(bytes: Uint8Array): NotRobotsTxt | null {
  if (isUtf16(bytes[0], bytes[1])) return 'utf16';
  if (looksBinary(bytes)) return 'binary';
  if (!startsWithMarkup(bytes)) return null;
  const head = bytes.subarray(0, SNIFF_BYTES);
  let text = '';
  for (const b of head) text += String.fromCharCode(b);
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return htmlStart(text, bom) === -1 ? null : 'html';
}
