import { asciiLower, binaryToText as decodeBinary, readInput } from './bytes.js';
import { bomLength, countLineBreaks, eachLine } from './lines.js';
import { isUtf16, looksBinary, startsWithMarkup } from './sniff.js';
import { LintCollector } from './lint.js';
import type { LintFinding } from './lint.js';
import { DEFAULT_PROFILE, MAX_LINE_BYTES, MAX_ROBOTS_BYTES } from './profiles.js';
import type { Profile } from './profiles.js';
import { classifyKey, splitLine } from './tokenize.js';
import { NO_USAGE_LINES, readContentSignal, readUsageStatement, splitUsageValue } from './usage.js';
import type { ContentSignal, LicenseLine, UsageLines, UsageRule } from './usage.js';
import {
  readAgent,
  readRule,
  matchForm,
  reportOtherKey,
  isAbsoluteHttpUrl,
  checkEncoding,
  checkHtml,
} from './parse-lines.js';

export type Directive = 'allow' | 'disallow';

/** An allow or disallow line of a group. */
export interface RobotsRule {
  readonly directive: Directive;
  /** The pattern as written in the file, decoded as UTF-8 for display. */
  readonly pattern: string;
  /** The pattern in the form the profile compares it (ASCII, %-escaped). */
  readonly match: string;
  /** 1-based line number. */
  readonly line: number;
}

/** One user-agent line of a group. */
export interface GroupAgent {
  /** The value as written. */
  readonly value: string;
  /**
   * What the profile compares with a crawler's name: under `google` the product token
   * (the leading run of [a-zA-Z_-], so "Googlebot/2.1" is "Googlebot"); the whole value
   * under `rfc9309` and `legacy`.
   */
  readonly token: string;
  /** Whether this line names every crawler ("*"). */
  readonly global: boolean;
  readonly line: number;
}

/** User-agent lines and the rules that follow them (a "record" in the 1996 standard). */
export interface RobotsGroup {
  /** Line of the group's first user-agent line. */
  readonly line: number;
  readonly agents: readonly GroupAgent[];
  readonly rules: readonly RobotsRule[];
}

export interface Sitemap {
  readonly url: string;
  readonly line: number;
}

/** A line with a key the matcher does not use (crawl-delay, host, …), kept for display. */
export interface OtherDirective {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

/** A robots.txt file read under one profile. */
export interface RobotsTxt {
  readonly profile: Profile;
  readonly groups: readonly RobotsGroup[];
  readonly sitemaps: readonly Sitemap[];
  readonly others: readonly OtherDirective[];
  /** Content-Usage, Content-Signal and License lines (also among `others`), read. */
  readonly usage: UsageLines;
  readonly lint: readonly LintFinding[];
  /** Lines read, counted as the reference does: text after the last line break is a line. */
  readonly lineCount: number;
  /** Size of the input in bytes. */
  readonly byteLength: number;
  /** Whether content past the byte limit was ignored. */
  readonly truncated: boolean;
}

export interface ParseOptions {
  /** Interpretation profile; `google` by default. */
  readonly profile?: Profile;
  /** Bytes read before the rest is ignored; 512,000 (500 KiB) by default. */
  readonly maxBytes?: number;
  /** Whether to collect lint findings (default true); without, `lint` is empty. */
  readonly lint?: boolean;
  /**
   * The input was already cut by whoever read it (a fetcher stops at 500 KiB): what was
   * dropped, so that the file counts as truncated and the finding names the lines lost.
   */
  readonly cut?: {
    readonly droppedBytes: number;
    readonly droppedLineBreaks: number;
    /** False when the dropped part was not read to its end. */
    readonly complete: boolean;
  };
}

/**
 * The error-level findings of a file (UTF-16, binary data, an HTML page, content past the
 * limit), as parseRobotsTxt's lint gives them, without parsing a file that can have none:
 * one within the limit and not cut, neither UTF-16 nor binary, whose first character
 * after a byte order mark and white space is not "<".
 */
export function errorFindings(input: Uint8Array, options: ParseOptions = {}): LintFinding[] {
  const maxBytes = options.maxBytes ?? MAX_ROBOTS_BYTES;
  const none =
    options.cut === undefined &&
    input.length <= maxBytes &&
    !isUtf16(input[0], input[1]) &&
    !looksBinary(input) &&
    !startsWithMarkup(input);
  if (none) return [];
  return parseRobotsTxt(input, { ...options, lint: true }).lint.filter(
    (f) => f.severity === 'error',
  );
}

/**
 * Reads robots.txt bytes (or text, taken as UTF-8) into groups, sitemaps, other
 * directives and lint findings. Never throws, whatever the input.
 */
export function parseRobotsTxt(input: Uint8Array | string, options: ParseOptions = {}): RobotsTxt {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const maxBytes = options.maxBytes ?? MAX_ROBOTS_BYTES;
  const { binary: full, ascii, utf8 } = readInput(input);
  const { cut } = options;
  // Display text: an ASCII file is its own text; otherwise decode leniently, per value.
  const binaryToText = ascii ? (s: string) => s : decodeBinary;
  const truncated = full.length > maxBytes || cut !== undefined;
  const body = truncated ? full.slice(0, maxBytes) : full;
  const lint = new LintCollector(options.lint ?? true);
  const google = profile === 'google';

  // Seed 000: a leading UTF-8 byte order mark is ignored.
  const start = bomLength(body);
  if (lint.enabled) {
    checkEncoding(full, start, utf8, lint);
    if (checkHtml(body, start, lint)) lint.htmlPage();
  }

  const groups: { line: number; agents: GroupAgent[]; rules: RobotsRule[] }[] = [];
  const sitemaps: Sitemap[] = [];
  const others: OtherDirective[] = [];
  const usageRules: UsageRule[] = [];
  const signals: ContentSignal[] = [];
  const licenses: LicenseLine[] = [];
  let group: (typeof groups)[number] | undefined;
  let inRules = false; // an allow/disallow line was seen since the group's agents
  let blankSinceAgent = false;

  const hasNul = body.includes('\0');
  const lineCount = eachLine(body, start, (raw, lineNo) => {
    let text = raw;
    if (text.length > MAX_LINE_BYTES) {
      lint.add(
        'line-too-long',
        'warning',
        lineNo,
        `Line ${lineNo} is ${text.length} bytes long; Google reads only its first ${MAX_LINE_BYTES} bytes.`,
      );
      if (google) text = text.slice(0, MAX_LINE_BYTES);
    }
    const nul = hasNul ? text.indexOf('\0') : -1;
    if (nul !== -1) {
      lint.add(
        'nul-byte',
        'warning',
        lineNo,
        `Line ${lineNo} contains a NUL byte; Google ignores the rest of the line after it.`,
      );
      // The reference keeps each line in a C string, so a NUL ends it.
      if (google) text = text.slice(0, nul);
    }

    const parts = splitLine(text);
    if (parts.kind === 'blank') {
      if (!parts.comment) {
        blankSinceAgent = true;
        // Seed 004: a record is terminated by a blank line.
        if (profile === 'legacy') group = undefined;
      }
    } else if (parts.kind === 'garbage') {
      lint.add('unparsable-line', 'warning', lineNo, unparsable(lineNo));
    } else {
      const keyText = binaryToText(parts.key);
      const lowerKey = ascii ? parts.key.toLowerCase() : asciiLower(parts.key);
      const key = classifyKey(lowerKey);
      // Google-only leniencies: the line means nothing to the other profiles.
      const googleOnly = parts.missingColon || key.typo !== 'none';
      if (parts.missingColon && key.kind === 'other') {
        // "else {" or "// do nothing": Google would read an unknown key, so every parser
        // ignores the line alike.
        lint.add('unparsable-line', 'warning', lineNo, unparsable(lineNo));
      } else if (parts.missingColon) {
        lint.add(
          'missing-colon',
          'warning',
          lineNo,
          `Line ${lineNo} has no colon: Google reads it as "${keyText}: ${binaryToText(parts.value)}"; RFC 9309 parsers ignore it.`,
        );
      }
      if (key.typo !== 'none') {
        const what = key.typo === 'typo' ? 'a typo Google accepts' : 'read by prefix by Google';
        lint.add(
          'accepted-typo',
          'warning',
          lineNo,
          `Key "${keyText}" on line ${lineNo} is ${what} as ${key.name}; RFC 9309 parsers ignore the line.`,
        );
      }
      const kind = googleOnly && !google ? 'other' : key.kind;

      if (kind === 'user-agent') {
        if (group === undefined || inRules) {
          group = { line: lineNo, agents: [], rules: [] };
          groups.push(group);
          inRules = false;
        } else if (blankSinceAgent) {
          lint.add(
            'blank-line-in-group',
            'info',
            lineNo,
            `User-agent on line ${lineNo} joins the group of line ${group.line}: a blank line does not end a group.`,
          );
        }
        blankSinceAgent = false;
        group.agents.push(readAgent(binaryToText(parts.value), parts.value, lineNo, profile, lint));
      } else if (kind === 'allow' || kind === 'disallow') {
        if (group === undefined) {
          lint.add(
            'rule-before-user-agent',
            'warning',
            lineNo,
            `${keyText} on line ${lineNo} is not in any group (no User-agent line before it) and is ignored.`,
          );
        } else {
          group.rules.push(
            readRule(kind, binaryToText(parts.value), parts.value, lineNo, profile, lint),
          );
          inRules = true;
        }
      } else if (kind === 'sitemap') {
        const url = binaryToText(parts.value);
        // Only a finding depends on it: a URL parsed per Sitemap line of every file costs
        // more than the rest of a short file's parse.
        if (lint.enabled && !isAbsoluteHttpUrl(url)) {
          lint.add(
            'sitemap-not-absolute',
            'warning',
            lineNo,
            `Sitemap on line ${lineNo} is not an absolute http(s) URL: "${url}".`,
          );
        }
        sitemaps.push({ url, line: lineNo });
      } else {
        const value = binaryToText(parts.value);
        others.push({ key: keyText, value, line: lineNo });
        if (googleOnly) {
          // A typo or a missing colon: said above; no usage line is read from it.
        } else if (lowerKey === 'content-usage') {
          const { path, statement } = splitUsageValue(value);
          const read = readUsageStatement(statement);
          usageRules.push({
            line: lineNo,
            path,
            match: path === '' ? '' : matchForm(splitUsageValue(parts.value).path, profile),
            statement,
            preferences: read.preferences,
            group: group?.line ?? null,
          });
          if (group === undefined)
            lint.add(
              'usage-outside-group',
              'warning',
              lineNo,
              `Content-Usage on line ${lineNo} is not in any group (no User-agent line before it): it applies to no crawler.`,
            );
          if (read.error !== null)
            lint.add(
              'usage-malformed',
              'warning',
              lineNo,
              `Content-Usage on line ${lineNo} states no preference: ${path !== '' && statement === '' ? 'nothing follows the path' : read.error}. Write it as "train-ai=n, search=y" (y or n).`,
            );
          else if (Object.keys(read.preferences).length === 0)
            lint.add(
              'usage-malformed',
              'warning',
              lineNo,
              `Content-Usage on line ${lineNo} sets neither train-ai nor search to y or n: it states no preference.`,
            );
        } else if (lowerKey === 'content-signal') {
          const read = readContentSignal(value.trim());
          signals.push({
            line: lineNo,
            statement: value.trim(),
            signals: read.signals,
            group: group?.line ?? null,
          });
          if (read.error !== null)
            lint.add(
              'usage-malformed',
              'warning',
              lineNo,
              `Content-Signal on line ${lineNo}: ${read.error}. Write it as "search=yes, ai-input=no, ai-train=no".`,
            );
        } else if (lowerKey === 'license') {
          licenses.push({ line: lineNo, url: value.trim() });
        } else reportOtherKey(keyText, lowerKey, lineNo, lint);
      }
    }
  });

  if (truncated) {
    let size: string;
    let total: number;
    let atLeast = false;
    if (cut !== undefined) {
      size = `${full.length + cut.droppedBytes}`;
      total = lineCount + cut.droppedLineBreaks;
      atLeast = !cut.complete;
    } else {
      // A CRLF split by the cut is one line break, already counted.
      const splitCrlf =
        full.charCodeAt(maxBytes - 1) === 0x0d && full.charCodeAt(maxBytes) === 0x0a;
      size = `${full.length}`;
      total = lineCount + countLineBreaks(full, splitCrlf ? maxBytes + 1 : maxBytes);
    }
    const kept = Math.min(body.length, maxBytes);
    const lost =
      total > lineCount
        ? ` and lines ${lineCount + 1}–${atLeast ? 'at least ' : ''}${total} are not read`
        : '';
    lint.add(
      'content-past-limit',
      'error',
      lineCount,
      `The file is ${atLeast ? 'more than ' : ''}${size} bytes; content past ${kept} bytes is ignored: line ${lineCount} is cut${lost}.`,
    );
  }

  return {
    profile,
    groups,
    sitemaps,
    others,
    usage:
      usageRules.length + signals.length + licenses.length === 0
        ? NO_USAGE_LINES
        : { rules: usageRules, signals, licenses },
    lint: lint.finish(),
    lineCount,
    byteLength: full.length,
    truncated,
  };
}

function unparsable(line: number): string {
  return `Line ${line} is not a "key: value" line and is ignored.`;
}
