/**
 * The forms in which each profile compares patterns and paths. All functions take and
 * return binary strings (one char per byte, see bytes.ts); every output is ASCII.
 */

const HEX = '0123456789ABCDEF';

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function hexValue(c: number): number {
  if (c <= 0x39) return c - 0x30;
  return (c | 0x20) - 0x61 + 10;
}

function percent(byte: number): string {
  return '%' + HEX[byte >> 4] + HEX[byte & 15];
}

const NEEDS_GOOGLE_ESCAPE = /[%\x80-\xff]/;

/**
 * Google's MaybeEscapePattern: octets with the high bit set are %-escaped and the hex
 * digits of existing %xx escapes are upper-cased; nothing else changes. The URL path is
 * never escaped by the reference, so a raw "ツ" in a URL does not match a "ツ" rule.
 */
export function escapePatternGoogle(raw: string): string {
  if (!NEEDS_GOOGLE_ESCAPE.test(raw)) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 && isHex(raw.charCodeAt(i + 1)) && isHex(raw.charCodeAt(i + 2))) {
      out += '%' + raw[i + 1]!.toUpperCase() + raw[i + 2]!.toUpperCase();
      i += 2;
    } else if (c >= 0x80) {
      out += percent(c);
    } else {
      out += raw[i];
    }
  }
  return out;
}

/** RFC 3986 unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~". */
function isUnreserved(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5f ||
    c === 0x7e
  );
}

/**
 * RFC 9309 comparison form (seed 001, "The Allow and Disallow lines"): octets outside
 * US-ASCII are %-encoded, %-encoded unreserved characters are decoded, other escapes are
 * normalised to upper case. Reserved characters that are data rather than structure are
 * encoded, as the draft's table shows: "*" and "$" everywhere in a URL (so a pattern's
 * "%2A" matches a literal "*", per "Special characters"), and ":", "/", "?", "@" inside
 * the query ("?baz=http://foo.bar" compares as "?baz=http%3A%2F%2Ffoo.bar"). In a pattern
 * "*" is the wildcard and a final "$" the end anchor; they stay as they are.
 */
export function normalizeRfc9309(raw: string, isPattern: boolean): string {
  let out = '';
  let inQuery = false;
  const last = raw.length - 1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 && isHex(raw.charCodeAt(i + 1)) && isHex(raw.charCodeAt(i + 2))) {
      const byte = hexValue(raw.charCodeAt(i + 1)) * 16 + hexValue(raw.charCodeAt(i + 2));
      out += isUnreserved(byte) ? String.fromCharCode(byte) : percent(byte);
      i += 2;
    } else if (c >= 0x80 || c <= 0x20 || c === 0x7f) {
      out += percent(c);
    } else if (c === 0x2a) {
      out += isPattern ? '*' : '%2A';
    } else if (c === 0x24) {
      out += isPattern && i === last ? '$' : '%24';
    } else if (inQuery && (c === 0x3a || c === 0x2f || c === 0x3f || c === 0x40)) {
      out += percent(c);
    } else {
      if (c === 0x3f) inQuery = true;
      out += raw[i];
    }
  }
  return out;
}

/**
 * 1996 standard comparison form (seed 004, "Disallow/Allow prefix matching"): every %XX
 * is unescaped to its octet before comparison, except %2F, which must match exactly.
 * To keep the result ASCII and prefix-preserving, the octets are then re-encoded in a
 * canonical way: "%" and octets outside printable ASCII become upper-case %XX, and the
 * kept slash escape is "%2F". Two paths compare equal in this form exactly when their
 * unescaped octets do, and one is a prefix of the other exactly when the octets are.
 */
export function canonicalLegacy(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    let c = raw.charCodeAt(i);
    if (c === 0x25 && isHex(raw.charCodeAt(i + 1)) && isHex(raw.charCodeAt(i + 2))) {
      c = hexValue(raw.charCodeAt(i + 1)) * 16 + hexValue(raw.charCodeAt(i + 2));
      i += 2;
      if (c === 0x2f) {
        out += '%2F';
        continue;
      }
      if (c === 0x25) {
        out += '%25';
        continue;
      }
    } else if (c === 0x25) {
      out += '%25';
      continue;
    }
    out += c >= 0x80 || c < 0x20 || c === 0x7f ? percent(c) : String.fromCharCode(c);
  }
  return out;
}
