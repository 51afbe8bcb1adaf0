/**
 * Real robots.txt files (test/fixtures/realworld, chosen from shared/corpus by
 * scripts/select-fixtures.ts): the largest, non-UTF-8, UTF-16, BOM, HTML, CR-only and
 * a sample of the rest. `npm run corpus:check` runs the same checks on the full corpus.
 */
import { describe, expect, it } from 'vitest';
import { compileAgent, parseRobotsTxt } from '../../../src/robots/index.js';
import type { SharedMatchers } from '../../../src/robots/index.js';
import { compareWithReference, parseUnderEveryProfile } from '../../support/corpus-check.js';
import { readFixture, realWorldFiles } from '../../support/fixtures.js';

const files = realWorldFiles();
const byCategory = (category: string) => files.filter((f) => f.category === category);

describe('real-world files', () => {
  it('has a varied selection', () => {
    expect(files.length).toBeGreaterThanOrEqual(250);
    for (const category of [
      'largest',
      'utf16',
      'non-utf8',
      'bom',
      'html',
      'cr-only',
      'crlf',
      'empty',
    ]) {
      expect(byCategory(category).length, category).toBeGreaterThan(0);
    }
  });

  it('all parse under every profile without throwing', () => {
    for (const file of files) parseUnderEveryProfile(readFixture(`realworld/${file.path}`));
  });

  it('agree with the reference parser on URLs derived from their own rules', () => {
    let compared = 0;
    for (const file of files) {
      const bytes = readFixture(`realworld/${file.path}`);
      // The oracle re-parses per URL: keep the suite fast by sampling the big files less.
      const disagreements = compareWithReference(bytes, bytes.length > 50_000 ? 6 : 30);
      expect(disagreements, file.path).toEqual([]);
      compared++;
    }
    expect(compared).toBe(files.length);
  });

  it('give each crawler the same verdicts when crawlers obeying the same groups share their compiled rules', () => {
    const crawlers = ['Googlebot', 'Bingbot', 'GPTBot', 'CCBot', 'Googlebot-Image', 'foo', '*'];
    let sharedSelections = 0;
    for (const file of files.slice(0, 120)) {
      for (const profile of ['google', 'rfc9309', 'legacy'] as const) {
        const parsed = parseRobotsTxt(readFixture(`realworld/${file.path}`), { profile });
        const shared: SharedMatchers = new Map();
        const paths = ['/', ...parsed.groups.flatMap((g) => g.rules.map((r) => r.pattern))]
          .slice(0, 40)
          .map((p) => p.replace(/[*$]/g, 'x'));
        for (const crawler of crawlers) {
          const alone = compileAgent(parsed, crawler);
          const together = compileAgent(parsed, crawler, {}, shared);
          expect(together.groups).toEqual(alone.groups);
          for (const path of paths) {
            expect(together.evaluate(path), `${file.path} ${profile} ${crawler} ${path}`).toEqual(
              alone.evaluate(path),
            );
            expect(together.preferences(path)).toEqual(alone.preferences(path));
          }
        }
        sharedSelections += crawlers.length - shared.size;
      }
    }
    expect(sharedSelections).toBeGreaterThan(0);
  });

  it('report the files past 500 KiB as truncated, with the lines lost', () => {
    for (const file of byCategory('largest')) {
      const parsed = parseRobotsTxt(readFixture(`realworld/${file.path}`));
      expect(parsed.truncated, file.path).toBe(true);
      expect(parsed.byteLength).toBe(file.size);
      const finding = parsed.lint.find((f) => f.code === 'content-past-limit');
      expect(finding?.message).toMatch(
        /content past 512000 bytes is ignored: line \d+ is cut and lines \d+–\d+ are not read/,
      );
    }
  });

  it('flag UTF-16, BOM, invalid UTF-8, binary and HTML files', () => {
    const codes = (path: string) =>
      parseRobotsTxt(readFixture(`realworld/${path}`)).lint.map((f) => f.code);
    for (const f of byCategory('utf16')) expect(codes(f.path), f.path).toContain('utf16');
    for (const f of byCategory('bom')) expect(codes(f.path), f.path).toContain('bom');
    // Bytes that are not UTF-8: invalid text, or binary data (an icon) that is not text at all.
    for (const f of byCategory('non-utf8'))
      expect(
        codes(f.path).filter((c) => c === 'invalid-utf8' || c === 'binary'),
        f.path,
      ).toHaveLength(1);
    for (const f of byCategory('html')) expect(codes(f.path), f.path).toContain('html');
  });

  it('find the rules of a CR-only file', () => {
    for (const file of byCategory('cr-only')) {
      const parsed = parseRobotsTxt(readFixture(`realworld/${file.path}`));
      expect(parsed.lineCount, file.path).toBeGreaterThan(1);
    }
  });
});
