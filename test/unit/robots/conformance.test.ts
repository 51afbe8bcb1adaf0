/**
 * Conformance with Google's reference parser: every case extracted from its own unit
 * tests (shared/conformance, copied to test/fixtures/conformance).
 */
import { describe, expect, it } from 'vitest';
import {
  compileAgent,
  escapePatternGoogle,
  getPathParamsQuery,
  isValidProductToken,
  parseRobotsTxt,
  reportLines,
} from '../../../src/robots/index.js';
import type { LineReport } from '../../../src/robots/index.js';
import { readJsonFixture } from '../../support/fixtures.js';
import { referenceAllowedByRobots } from '../../support/reference-matcher.js';

interface AllowCase {
  name: string;
  line: number;
  robotstxt: string;
  robotstxt_b64?: string;
  useragent: string;
  url: string;
  allowed: boolean;
}

const allowCases = readJsonFixture<AllowCase[]>('conformance/google-allow-cases.json');

function body(c: { robotstxt: string | null; robotstxt_b64?: string; robotstxt_base64?: string }) {
  const b64 = c.robotstxt_b64 ?? (c.robotstxt === null ? c.robotstxt_base64 : undefined);
  return b64 !== undefined ? new Uint8Array(Buffer.from(b64, 'base64')) : c.robotstxt!;
}

describe('google profile: allow/disallow cases of the reference parser', () => {
  it('has all 145 cases', () => {
    expect(allowCases).toHaveLength(145);
  });

  it.each(allowCases.map((c) => [`${c.name} (robots_test.cc:${c.line})`, c] as const))(
    '%s',
    (_name, c) => {
      const rules = compileAgent(parseRobotsTxt(body(c)), c.useragent);
      expect(rules.evaluate(c.url).allowed).toBe(c.allowed);
    },
  );

  it('agrees with the test oracle (a literal port of the reference) on every case', () => {
    for (const c of allowCases) {
      const input = body(c);
      const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
      expect(referenceAllowedByRobots(bytes, c.useragent, c.url).allowed, c.name).toBe(c.allowed);
    }
  });
});

interface OtherCase {
  name: string;
  kind: string;
  input?: string | null;
  expected?: unknown;
  robotstxt?: string | null;
  robotstxt_base64?: string;
  checks?: { check: string; expected: unknown }[];
}

const otherCases = readJsonFixture<OtherCase[]>('conformance/google-other-cases.json');
const ofKind = (kind: string) =>
  otherCases.filter((c) => c.kind === kind).map((c) => [c.name, c] as const);

describe('google profile: helper cases of the reference parser', () => {
  it.each(ofKind('IsValidUserAgentToObey'))('%s', (_name, c) => {
    expect(isValidProductToken(c.input ?? '')).toBe(c.expected);
  });

  it.each(ofKind('GetPathParamsQuery'))('%s', (_name, c) => {
    expect(getPathParamsQuery(c.input!)).toBe(c.expected);
  });

  it.each(ofKind('MaybeEscapePattern'))('%s', (_name, c) => {
    const binary = String.fromCharCode(...new TextEncoder().encode(c.input!));
    expect(escapePatternGoogle(binary)).toBe(c.expected);
  });

  // RobotsStatsReporter (robots_test.cc): counts of directives the parser recognised,
  // the last line a directive was on, and sitemaps.
  it.each(ofKind('ParseRobotsTxt+RobotsStatsReporter'))('%s', (_name, c) => {
    const input = body({ robotstxt: c.robotstxt ?? null, robotstxt_base64: c.robotstxt_base64 });
    const lines = reportLines(input).filter((l) => l.hasDirective);
    const known = lines.filter((l) => l.tag !== 'unknown' && l.tag !== 'unused');
    for (const check of c.checks!) {
      if (check.check === 'report.valid_directives()') expect(known.length).toBe(check.expected);
      else if (check.check === 'report.unknown_directives()') {
        expect(lines.length - known.length).toBe(check.expected);
      } else if (check.check === 'report.last_line_seen()') {
        expect(lines.at(-1)?.line).toBe(check.expected);
      } else if (check.check === 'report.sitemap()') {
        expect(parseRobotsTxt(input).sitemaps.map((s) => s.url)).toEqual([check.expected]);
      } else throw new Error(`unhandled check ${check.check}`);
    }
  });

  // RobotsParsingReporter (reporting_robots_test.cc): what Google makes of each line.
  const tagNames: Record<string, LineReport['tag']> = {
    UserAgent: 'user-agent',
    Allow: 'allow',
    Disallow: 'disallow',
    Sitemap: 'sitemap',
    Unknown: 'unknown',
    Unused: 'unused',
  };
  it.each(ofKind('ParseRobotsTxt+RobotsParsingReporter'))('%s', (_name, c) => {
    const input = body({ robotstxt: c.robotstxt ?? null, robotstxt_base64: c.robotstxt_base64 });
    const reports = reportLines(input);
    for (const check of c.checks!) {
      if (check.check === 'report.valid_directives()') {
        const valid = reports.filter(
          (l) => l.hasDirective && l.tag !== 'unknown' && l.tag !== 'unused',
        );
        expect(valid.length).toBe(check.expected);
      } else if (check.check === 'report.last_line_seen()') {
        expect(reports.length).toBe(check.expected);
      } else if (check.check === 'report.parse_results().size() == report.last_line_seen()') {
        expect(reports.at(-1)?.line === reports.length).toBe(check.expected);
      } else if (check.check === 'parsed line') {
        const want = check.expected as {
          line_num: number;
          tag_name: string;
          is_typo: boolean;
          metadata: Record<string, boolean>;
        };
        const got = reports[want.line_num - 1]!;
        expect(got.line).toBe(want.line_num);
        expect(got.tag).toBe(tagNames[want.tag_name]);
        expect({
          is_empty: got.empty,
          has_directive: got.hasDirective,
          has_comment: got.hasComment,
          is_comment: got.isComment,
          is_acceptable_typo: got.acceptedTypo,
          is_line_too_long: got.tooLong,
          is_missing_colon_separator: got.missingColon,
        }).toEqual(want.metadata);
        expect(got.acceptedTypo).toBe(want.is_typo);
      } else throw new Error(`unhandled check ${check.check}`);
    }
  });

  it('covers every kind of helper case in the fixture', () => {
    const kinds = new Set(otherCases.map((c) => c.kind));
    expect([...kinds].sort()).toEqual([
      'GetPathParamsQuery',
      'IsValidUserAgentToObey',
      'MaybeEscapePattern',
      'ParseRobotsTxt+RobotsParsingReporter',
      'ParseRobotsTxt+RobotsStatsReporter',
    ]);
  });
});
