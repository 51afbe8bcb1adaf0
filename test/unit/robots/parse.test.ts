/** The parsed model: groups, rules with lines, sitemaps, other directives, lint findings. */
import { describe, expect, it } from 'vitest';
import { compileAgent, parseRobotsTxt } from '../../../src/robots/index.js';
import type { LintCode } from '../../../src/robots/index.js';

const codes = (text: string | Uint8Array) =>
  parseRobotsTxt(text).lint.map((f) => [f.code, f.line] as const);
const has = (text: string | Uint8Array, code: LintCode, line: number) =>
  expect(codes(text)).toContainEqual([code, line]);

describe('the model', () => {
  const robots = [
    'Sitemap: https://example.com/a.xml', // 1
    'User-agent: Googlebot', // 2
    'User-agent: googlebot-news/2.1', // 3
    'Crawl-delay: 10 # slow', // 4
    'Disallow: /private/', // 5
    'Allow: /private/caf\u00e9', // 6
    '', // 7
    'User-agent: *', // 8
    'Disallow: /tmp', // 9
    'Host: example.com', // 10
  ].join('\r\n');
  const parsed = parseRobotsTxt(robots);

  it('groups user-agent lines with the rules that follow them, with line numbers', () => {
    expect(parsed.groups).toEqual([
      {
        line: 2,
        agents: [
          { value: 'Googlebot', token: 'Googlebot', global: false, line: 2 },
          { value: 'googlebot-news/2.1', token: 'googlebot-news', global: false, line: 3 },
        ],
        rules: [
          { directive: 'disallow', pattern: '/private/', match: '/private/', line: 5 },
          { directive: 'allow', pattern: '/private/café', match: '/private/caf%C3%A9', line: 6 },
        ],
      },
      {
        line: 8,
        agents: [{ value: '*', token: '*', global: true, line: 8 }],
        rules: [{ directive: 'disallow', pattern: '/tmp', match: '/tmp', line: 9 }],
      },
    ]);
  });

  it('keeps sitemaps and other directives for display', () => {
    expect(parsed.sitemaps).toEqual([{ url: 'https://example.com/a.xml', line: 1 }]);
    expect(parsed.others).toEqual([
      { key: 'Crawl-delay', value: '10', line: 4 },
      { key: 'Host', value: 'example.com', line: 10 },
    ]);
    expect(parsed.lineCount).toBe(10);
    expect(parsed.byteLength).toBe(new TextEncoder().encode(robots).length);
  });

  it('tells which groups and rules an agent obeys', () => {
    const news = compileAgent(parsed, 'Googlebot-News');
    expect(news.source).toBe('specific');
    expect(news.rules.map((r) => r.line)).toEqual([5, 6]);
    const other = compileAgent(parsed, 'GPTBot');
    expect(other.source).toBe('global');
    expect(other.evaluate('https://example.com/tmp/x')).toEqual({
      allowed: false,
      rule: { directive: 'disallow', pattern: '/tmp', line: 9 },
    });
    expect(compileAgent(parseRobotsTxt('User-agent: a\nDisallow: /'), 'b').source).toBe('none');
  });

  it('reports the deciding rule as written, even when Google compares it escaped', () => {
    const v = compileAgent(parsed, 'Googlebot').evaluate(
      'https://example.com/private/caf%C3%A9/menu',
    );
    expect(v).toEqual({
      allowed: true,
      rule: { directive: 'allow', pattern: '/private/café', line: 6 },
    });
  });

  it('reads bytes that are not UTF-8 exactly, and shows them leniently', () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('User-agent: *\nDisallow: /caf'),
      0xe9,
      0x0a,
    ]);
    const rule = parseRobotsTxt(bytes).groups[0]!.rules[0]!;
    expect(rule.pattern).toBe('/caf\ufffd');
    expect(rule.match).toBe('/caf%E9');
    expect(
      compileAgent(parseRobotsTxt(bytes), 'x').evaluate('https://example.com/caf%E9').allowed,
    ).toBe(false);
  });

  it('reads text and its UTF-8 bytes the same way', () => {
    const text = 'User-agent: *\nDisallow: /ツ\n';
    expect(parseRobotsTxt(text)).toEqual(parseRobotsTxt(new TextEncoder().encode(text)));
  });
});

describe('lint findings', () => {
  it('rules before any user-agent', () =>
    has('Disallow: /x\nUser-agent: *\n', 'rule-before-user-agent', 1));
  it('unknown keys', () => {
    has('User-agent: *\nDisalllow: /x\n', 'unknown-key', 2);
    expect(parseRobotsTxt('User-agent: *\nDisalllow: /x\n').lint[0]?.message).toBe(
      'Unknown key "Disalllow" on line 2 is ignored.',
    );
    // JSON served as robots.txt: its keys' own quotes are not doubled.
    expect(parseRobotsTxt('{\n  "sources": 3\n}\n').lint[1]?.message).toBe(
      `Unknown key '"sources"' on line 2 is ignored.`,
    );
  });
  it('keys Google ignores but others honour', () =>
    has('User-agent: *\nCrawl-delay: 5\n', 'unsupported-key', 2));
  it('typos only Google accepts', () => {
    has('User-agent: *\nDissallow: /x\n', 'accepted-typo', 2);
    has('Useragent: *\n', 'accepted-typo', 1);
    has('User-agent: *\nDisallowed: /x\n', 'accepted-typo', 2);
  });
  it('a missing colon', () => {
    has('User-agent: *\nDisallow /x\n', 'missing-colon', 2);
    // Google reads "else: {", an unknown key: every parser ignores it, no colon is missing.
    expect(codes('User-agent: *\nelse {\n')).toEqual([['unparsable-line', 2]]);
  });
  it('lines that are not key: value', () =>
    has('User-agent: *\nplease do not crawl\n', 'unparsable-line', 2));
  it('paths that do not start with "/"', () => {
    has('User-agent: *\nDisallow: private\n', 'path-not-absolute', 2);
    const message = (text: string) => parseRobotsTxt(text).lint[0]?.message;
    expect(message('User-agent: *\nDisallow: https://example.com/x.pdf?a=1\n')).toBe(
      'Disallow "https://example.com/x.pdf?a=1" on line 2 blocks nothing: rules take a path, not a URL, so it never matches. Did you mean "/x.pdf?a=1"?',
    );
    expect(message('User-agent: *\nAllow: private/\n')).toBe(
      'Allow "private/" on line 2 allows nothing: paths start with "/", so it never matches. Did you mean "/private/" (or "/*private/" in any folder)?',
    );
    expect(message('User-agent: *\nDisallow: .js\n')).toContain('Did you mean "/*.js"?');
    expect(codes('User-agent: *\nDisallow: *.php\n')).toEqual([]);
  });
  it('over-long lines, cut where Google cuts them', () => {
    const text = `User-agent: *\nDisallow: /${'a'.repeat(20_000)}\n`;
    has(text, 'line-too-long', 2);
    expect(parseRobotsTxt(text).groups[0]!.rules[0]!.pattern).toHaveLength(
      16_663 - 'Disallow: '.length,
    );
    // the other profiles keep the whole line
    expect(parseRobotsTxt(text, { profile: 'rfc9309' }).groups[0]!.rules[0]!.pattern).toHaveLength(
      20_001,
    );
  });
  it('a byte order mark', () => has('\ufeffUser-agent: *\nDisallow: /\n', 'bom', 1));
  it('UTF-16', () => has(new Uint8Array([0xff, 0xfe, 0x55, 0x00]), 'utf16', 1));
  it('bytes that are not UTF-8, on their line', () =>
    has(new Uint8Array([0x23, 0x0a, 0x23, 0x0a, 0x23, 0xff]), 'invalid-utf8', 3));
  it('HTML instead of robots.txt', () =>
    has('\n<!DOCTYPE html>\n<html><head><title>404</title></head></html>', 'html', 2));
  it('content past 500 KiB, with the lines lost', () => {
    const text = 'User-agent: *\n' + 'Disallow: /a\n'.repeat(50_000);
    const parsed = parseRobotsTxt(text);
    expect(parsed.truncated).toBe(true);
    const finding = parsed.lint.find((f) => f.code === 'content-past-limit');
    const cutLine = 1 + Math.ceil((512_000 - 14) / 13);
    expect(finding).toMatchObject({ severity: 'error', line: cutLine });
    expect(finding?.message).toContain(
      `line ${cutLine} is cut and lines ${cutLine + 1}–50002 are not read`,
    );
    // lines 2 … cutLine-1 are whole rules; the cut line is left as "Disallo", no rule
    expect(compileAgent(parsed, 'x').rules).toHaveLength(cutLine - 2);
  });
  it('content a fetcher already cut, with the lines it dropped', () => {
    const parsed = parseRobotsTxt('User-agent: *\nDisallow: /a\nDisal', {
      cut: { droppedBytes: 900, droppedLineBreaks: 40, complete: true },
    });
    expect(parsed.truncated).toBe(true);
    expect(parsed.lint.find((f) => f.code === 'content-past-limit')?.message).toBe(
      'The file is 932 bytes; content past 32 bytes is ignored: line 3 is cut and lines 4–43 are not read.',
    );
    const partial = parseRobotsTxt('User-agent: *\n', {
      cut: { droppedBytes: 5, droppedLineBreaks: 2, complete: false },
    });
    expect(partial.lint[0]?.message).toBe(
      'The file is more than 19 bytes; content past 14 bytes is ignored: line 2 is cut and lines 3–at least 4 are not read.',
    );
  });
  it('a NUL byte, after which Google reads nothing on the line', () => {
    const text = 'User-agent: *\nDisallow: /a\0b\n';
    has(text, 'nul-byte', 2);
    expect(parseRobotsTxt(text).groups[0]!.rules[0]!.pattern).toBe('/a');
  });
  it('user-agent values', () => {
    has('User-agent:\n', 'empty-user-agent', 1);
    has('User-agent: 12bot\n', 'no-product-token', 1);
    has('User-agent: Googlebot/2.1\n', 'user-agent-not-token', 1);
  });
  it('a blank line inside a group, which does not end it', () => {
    const text = 'User-agent: Googlebot\n\nUser-agent: *\nDisallow: /\n';
    has(text, 'blank-line-in-group', 3);
    expect(
      compileAgent(parseRobotsTxt(text), 'Googlebot').evaluate('https://example.com/').allowed,
    ).toBe(false);
  });
  it('sitemaps that are not absolute URLs', () =>
    has('Sitemap: /sitemap.xml\n', 'sitemap-not-absolute', 1));
  it('nothing for a clean file', () => {
    expect(
      codes(
        '# hi\nUser-agent: *\nDisallow: /private/\nAllow: /private/ok$\n\nSitemap: https://e.com/s.xml\n',
      ),
    ).toEqual([]);
  });
  it('keeps a hostile file to a readable list', () => {
    const parsed = parseRobotsTxt('nonsense\n'.repeat(10_000));
    expect(parsed.lint).toHaveLength(51);
    expect(parsed.lint.at(-1)).toMatchObject({
      code: 'more-findings',
      message: '9950 more "unparsable-line" findings are not listed.',
    });
  });
});
