/**
 * A deliberately literal port of Google's reference parser and matcher
 * (github.com/google/robotstxt robots.cc: ParseRobotsTxt, GetKeyAndValueFrom,
 * ParsedRobotsKey::Parse, MaybeEscapePattern, RobotsMatcher, RobotsMatchStrategy::Matches),
 * kept independent of src/ so that it can serve as an oracle in property tests:
 * it re-parses the file for every URL and matches with the reference's O(n·m)
 * position-set algorithm, exactly as the C++ does. Slow and simple on purpose.
 * Works on byte arrays; strings are UTF-8 encoded first.
 */

const kMaxLineLen = 2083 * 8;

type Bytes = number[];

const isspace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isxdigit = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const toupper = (c: number) => (c >= 0x61 && c <= 0x7a ? c - 0x20 : c);
const tolower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
const isalpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

function strip(b: Bytes): Bytes {
  let s = 0;
  let e = b.length;
  while (s < e && isspace(b[s]!)) s++;
  while (e > s && isspace(b[e - 1]!)) e--;
  return b.slice(s, e);
}

function startsWithIgnoreCase(b: Bytes, prefix: string): boolean {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    if (tolower(b[i]!) !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

function equalsIgnoreCase(a: Bytes, b: Bytes): boolean {
  return a.length === b.length && a.every((c, i) => tolower(c) === tolower(b[i]!));
}

function maybeEscapePattern(src: Bytes): Bytes {
  const dst: Bytes = [];
  const hex = '0123456789ABCDEF';
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === 0x25 && isxdigit(src[i + 1] ?? 0) && isxdigit(src[i + 2] ?? 0)) {
      dst.push(c, toupper(src[i + 1]!), toupper(src[i + 2]!));
      i += 2;
    } else if (c & 0x80) {
      dst.push(0x25, hex.charCodeAt(c >> 4), hex.charCodeAt(c & 0xf));
    } else {
      dst.push(c);
    }
  }
  return dst;
}

/**
 * RobotsMatchStrategy::Matches on binary strings (one char per byte): whether `pattern`
 * ("*" wildcard, final "$" anchor) matches a prefix of `path`.
 */
export function referenceMatches(path: string, pattern: string): boolean {
  const bytes = (s: string) => [...s].map((c) => c.charCodeAt(0));
  return matches(bytes(path), bytes(pattern));
}

/** RobotsMatchStrategy::Matches */
function matches(path: Bytes, pattern: Bytes): boolean {
  const pathlen = path.length;
  const pos = new Array<number>(pathlen + 1);
  let numpos = 1;
  pos[0] = 0;
  for (let p = 0; p < pattern.length; p++) {
    const pat = pattern[p]!;
    if (pat === 0x24 && p + 1 === pattern.length) return pos[numpos - 1] === pathlen;
    if (pat === 0x2a) {
      numpos = pathlen - pos[0] + 1;
      for (let i = 1; i < numpos; i++) pos[i] = pos[i - 1]! + 1;
    } else {
      let newnumpos = 0;
      for (let i = 0; i < numpos; i++) {
        if (pos[i]! < pathlen && path[pos[i]!] === pat) pos[newnumpos++] = pos[i]! + 1;
      }
      numpos = newnumpos;
      if (numpos === 0) return false;
    }
  }
  return true;
}

/** GetPathParamsQuery, on bytes. */
function getPathParamsQuery(url: Bytes): Bytes {
  const findFirstOf = (from: number) => {
    for (let i = from; i < url.length; i++) {
      if (url[i] === 0x2f || url[i] === 0x3f || url[i] === 0x3b) return i;
    }
    return -1;
  };
  let searchStart = 0;
  if (url.length >= 2 && url[0] === 0x2f && url[1] === 0x2f) searchStart = 2;
  const earlyPath = findFirstOf(searchStart);
  let protocolEnd = -1;
  for (let i = searchStart; i + 2 < url.length; i++) {
    if (url[i] === 0x3a && url[i + 1] === 0x2f && url[i + 2] === 0x2f) {
      protocolEnd = i;
      break;
    }
  }
  if (earlyPath !== -1 && (protocolEnd === -1 || earlyPath < protocolEnd)) protocolEnd = -1;
  protocolEnd = protocolEnd === -1 ? searchStart : protocolEnd + 3;
  const pathStart = findFirstOf(protocolEnd);
  if (pathStart === -1) return [0x2f];
  let hashPos = -1;
  for (let i = searchStart; i < url.length; i++) {
    if (url[i] === 0x23) {
      hashPos = i;
      break;
    }
  }
  if (hashPos !== -1 && hashPos < pathStart) return [0x2f];
  const pathEnd = hashPos === -1 ? url.length : hashPos;
  const path = url.slice(pathStart, pathEnd);
  return url[pathStart] !== 0x2f ? [0x2f, ...path] : path;
}

interface Match {
  priority: number;
  line: number;
}

export interface ReferenceResult {
  allowed: boolean;
  /** RobotsMatcher::matching_line(): 0 when no rule matched. */
  line: number;
  /** The priority of the match matching_line() reports (-1: none). */
  priority: number;
}

/** RobotsMatcher::AllowedByRobots for one user agent, plus matching_line(). */
export function referenceAllowedByRobots(
  robotsBody: Uint8Array,
  userAgent: string,
  url: string,
): ReferenceResult {
  const encoder = new TextEncoder();
  const agent = [...encoder.encode(userAgent)];
  const path = getPathParamsQuery([...encoder.encode(url)]);

  const allow = { specific: { priority: -1, line: 0 }, global: { priority: -1, line: 0 } };
  const disallow = { specific: { priority: -1, line: 0 }, global: { priority: -1, line: 0 } };
  let seenGlobal = false;
  let seenSpecific = false;
  let everSeenSpecific = false;
  let seenSeparator = false;
  const seenAny = () => seenGlobal || seenSpecific;

  const handleUserAgent = (value: Bytes) => {
    if (seenSeparator) seenSpecific = seenGlobal = seenSeparator = false;
    if (value.length >= 1 && value[0] === 0x2a && (value.length === 1 || isspace(value[1]!))) {
      seenGlobal = true;
    } else {
      let end = 0;
      while (
        end < value.length &&
        (isalpha(value[end]!) || value[end] === 0x2d || value[end] === 0x5f)
      )
        end++;
      if (equalsIgnoreCase(value.slice(0, end), agent)) everSeenSpecific = seenSpecific = true;
    }
  };
  const record = (m: { specific: Match; global: Match }, priority: number, line: number) => {
    const target = seenSpecific ? m.specific : m.global;
    if (target.priority < priority) {
      target.priority = priority;
      target.line = line;
    }
  };
  const handleAllow = (line: number, value: Bytes): void => {
    if (!seenAny()) return;
    seenSeparator = true;
    if (matches(path, value)) {
      record(allow, value.length, line);
    } else {
      let slash = -1;
      for (let i = value.length - 1; i >= 0; i--) {
        if (value[i] === 0x2f) {
          slash = i;
          break;
        }
      }
      const indexHtm = [...'/index.htm'].map((c) => c.charCodeAt(0));
      if (slash !== -1 && indexHtm.every((c, i) => value[slash + i] === c)) {
        handleAllow(line, [...value.slice(0, slash + 1), 0x24]);
      }
    }
  };
  const handleDisallow = (line: number, value: Bytes) => {
    if (!seenAny()) return;
    seenSeparator = true;
    if (matches(path, value)) record(disallow, value.length, line);
  };

  const emitLine = (lineNum: number, raw: Bytes) => {
    // C string: the line ends at the first NUL.
    const nul = raw.indexOf(0);
    let line = nul === -1 ? raw : raw.slice(0, nul);
    const comment = line.indexOf(0x23);
    if (comment !== -1) line = line.slice(0, comment);
    line = strip(line);
    if (line.length === 0) return;
    let sep = line.indexOf(0x3a);
    if (sep === -1) {
      const ws = line.findIndex((c) => c === 0x20 || c === 0x09);
      if (ws === -1) return;
      let v = ws;
      while (v < line.length && (line[v] === 0x20 || line[v] === 0x09)) v++;
      if (line.slice(v).some((c) => c === 0x20 || c === 0x09)) return;
      sep = ws;
    }
    const key = strip(line.slice(0, sep));
    if (key.length === 0) return;
    const value = strip(line.slice(sep + 1));
    if (
      startsWithIgnoreCase(key, 'user-agent') ||
      startsWithIgnoreCase(key, 'useragent') ||
      startsWithIgnoreCase(key, 'user agent')
    ) {
      handleUserAgent(value);
    } else if (startsWithIgnoreCase(key, 'allow')) {
      handleAllow(lineNum, maybeEscapePattern(value));
    } else if (
      ['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'].some((k) =>
        startsWithIgnoreCase(key, k),
      )
    ) {
      handleDisallow(lineNum, maybeEscapePattern(value));
    }
    // sitemap and unknown keys do nothing for matching
  };

  // ParseRobotsTxt
  const bom = [0xef, 0xbb, 0xbf];
  let bomPos = 0;
  let lineNum = 0;
  let lastWasCR = false;
  let buffer: Bytes = [];
  for (const ch of robotsBody) {
    if (bomPos < 3 && ch === bom[bomPos++]) continue;
    bomPos = 3;
    if (ch !== 0x0a && ch !== 0x0d) {
      if (buffer.length < kMaxLineLen - 1) buffer.push(ch);
    } else {
      const isCRLFContinuation = buffer.length === 0 && lastWasCR && ch === 0x0a;
      if (!isCRLFContinuation) emitLine(++lineNum, buffer);
      buffer = [];
      lastWasCR = ch === 0x0d;
    }
  }
  emitLine(lineNum + 1, buffer);

  // RobotsMatcher::disallow() and matching_line()
  let disallowed: boolean;
  if (allow.specific.priority > 0 || disallow.specific.priority > 0) {
    disallowed = disallow.specific.priority > allow.specific.priority;
  } else if (everSeenSpecific) {
    disallowed = false;
  } else if (disallow.global.priority > 0 || allow.global.priority > 0) {
    disallowed = disallow.global.priority > allow.global.priority;
  } else {
    disallowed = false;
  }
  const level = everSeenSpecific ? 'specific' : 'global';
  const a = allow[level];
  const d = disallow[level];
  const higher = d.priority > a.priority ? d : a;
  return { allowed: !disallowed, line: higher.line, priority: higher.priority };
}
