/**
 * Byte-exact text handling for the engine.
 *
 * Google's reference parser works on octets: pattern escaping, line cutting and
 * match priorities are all counted in bytes, and robots.txt files in the wild are
 * not always UTF-8. The engine therefore works on "binary strings": one UTF-16 code
 * unit per byte (0–255). V8 stores such strings one byte per character, so they are
 * as compact as a Uint8Array and keep the speed of native string operations.
 * Display text is decoded leniently from them only where a person will read it.
 */

const CHUNK = 0x2000;
// eslint-disable-next-line no-control-regex -- byte ranges are the point
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

const latin1 = new TextDecoder('latin1');
// eslint-disable-next-line no-control-regex -- byte ranges are the point
const BEYOND_LATIN1 = /[^\x00-\xff]/;

/**
 * Converts bytes to a binary string (one char per byte). `ascii`: the caller knows
 * every byte is below 0x80, so any decoder's result is right as it is.
 */
export function bytesToBinary(bytes: Uint8Array, ascii = false): string {
  // Node decodes "latin1" as ISO-8859-1, one char per byte, natively. The WHATWG
  // standard maps the label to windows-1252, which turns 0x80–0x9F into other code
  // points; where that happens, the result is detectable and the slow path is taken.
  const fast = latin1.decode(bytes);
  if (ascii || (fast.length === bytes.length && !BEYOND_LATIN1.test(fast))) return fast;
  if (bytes.length <= CHUNK) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    parts.push(
      String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]),
    );
  }
  return parts.join('');
}

/** Converts a binary string back to bytes. */
export function binaryToBytes(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** UTF-8 encodes text into a binary string; ASCII text is returned as it is. */
export function textToBinary(text: string): string {
  return ASCII_ONLY.test(text) ? text : bytesToBinary(utf8Encoder.encode(text));
}

/** The bytes of an input as a binary string, and what they are as text. */
export interface BinaryInput {
  readonly binary: string;
  /** Every byte is below 0x80: binary and text are the same string. */
  readonly ascii: boolean;
  /** The bytes are well-formed UTF-8. */
  readonly utf8: boolean;
}

/**
 * Accepts raw bytes or text (taken as UTF-8) and returns the binary string of its
 * bytes, with whether they are all ASCII (most robots.txt files are) and whether they
 * are UTF-8. Only files with non-ASCII bytes pay for the UTF-8 check.
 */
export function readInput(input: Uint8Array | string): BinaryInput {
  if (typeof input === 'string') {
    const ascii = ASCII_ONLY.test(input);
    return { binary: ascii ? input : textToBinary(input), ascii, utf8: true };
  }
  const firstHigh = firstNonAscii(input);
  if (firstHigh === -1) return { binary: bytesToBinary(input, true), ascii: true, utf8: true };
  const binary = bytesToBinary(input);
  return { binary, ascii: false, utf8: firstInvalidUtf8(binary, firstHigh) === -1 };
}

/** Offset of the first byte ≥ 0x80, or -1; skips ASCII four bytes at a time. */
function firstNonAscii(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  const aligned = (4 - (bytes.byteOffset & 3)) & 3;
  for (; i < aligned && i < n; i++) if (bytes[i]! >= 0x80) return i;
  if (n - i >= 4) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (n - i) >>> 2);
    for (let w = 0; w < words.length; w++) {
      if ((words[w]! & 0x80808080) !== 0) {
        i += w * 4;
        for (; ; i++) if (bytes[i]! >= 0x80) return i;
      }
    }
    i += words.length * 4;
  }
  for (; i < n; i++) if (bytes[i]! >= 0x80) return i;
  return -1;
}

/** Accepts either raw bytes or text and returns the binary string of its UTF-8 bytes. */
export function toBinary(input: Uint8Array | string): string {
  return typeof input === 'string' ? textToBinary(input) : bytesToBinary(input);
}

/**
 * Decodes a binary string as UTF-8 for display. Invalid sequences become U+FFFD;
 * nothing throws, whatever the bytes.
 */
export function binaryToText(binary: string): string {
  return ASCII_ONLY.test(binary) ? binary : utf8Decoder.decode(binaryToBytes(binary));
}

/**
 * Offset of the first byte that breaks UTF-8 well-formedness (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), or -1 if the whole string is valid.
 */
export function firstInvalidUtf8(binary: string, from = 0): number {
  const n = binary.length;
  let i = from;
  while (i < n) {
    const b = binary.charCodeAt(i);
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= n) return i; // truncated sequence at the end
    const second = binary.charCodeAt(i + 1);
    if (!(second >= lo && second <= hi)) return i;
    for (let k = 2; k <= need; k++) {
      const c = binary.charCodeAt(i + k);
      if (!(c >= 0x80 && c <= 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** ASCII-only lower-casing, as absl::AsciiStrToLower: other characters are left alone. */
export function asciiLower(s: string): string {
  // For ASCII strings the native conversion is the same and much faster.
  if (ASCII_ONLY.test(s)) return s.toLowerCase();
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 0x41 && c <= 0x5a ? String.fromCharCode(c + 0x20) : s[i];
  }
  return out;
}
