/**
 * Property tests: the engine never throws on any bytes, and its compiled matcher gives
 * the same verdicts and deciding lines as a literal port of Google's reference parser
 * (test/support/reference-matcher.ts) on random files built from robots.txt's grammar.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileAgent,
  getPathParamsQuery,
  parseRobotsTxt,
  PROFILES,
} from '../../../src/robots/index.js';
import { canonicalLegacy, normalizeRfc9309 } from '../../../src/robots/pattern.js';
import { referenceAllowedByRobots, referenceMatches } from '../../support/reference-matcher.js';

const RUNS = 400;

/** Both ways of evaluating: always scanning the rules, and always through the trie. */
const MODES = [{ indexAfter: Infinity }, { indexAfter: 0 }] as const;

const agentValues = [
  'FooBot',
  'foobot',
  'FOOBOT/1.2',
  'FooBot*',
  '*FooBot',
  '*',
  '* FooBot',
  'BarBot',
  'Foo',
  'Foo Bar',
  'MJ12bot',
  '',
  'foo_bot-x',
];
const uaKeys = [
  'User-agent',
  'user-agent',
  'USER-AGENT',
  'User-Agent ',
  'useragent',
  'user agent',
  'user-agents',
];
const ruleKeys = [
  ['Allow', 'allow'],
  ['allow', 'allow'],
  ['ALLOW', 'allow'],
  ['Allowance', 'allow'],
  ['Disallow', 'disallow'],
  ['disallow', 'disallow'],
  ['Dissallow', 'disallow'],
  ['disalow', 'disallow'],
  ['Disallowed', 'disallow'],
  ['diasllow', 'disallow'],
] as const;
const patternPieces = [
  '/',
  '/',
  'a',
  'b',
  'ab',
  '*',
  '$',
  '%2F',
  '%2f',
  '%41',
  '.',
  '?',
  '=',
  'é',
  'ツ',
  '/index.html',
  'index.htm',
  ' ',
  '#c',
];
const pathPieces = [
  '/',
  '/',
  'a',
  'b',
  'ab',
  '$',
  '*',
  '%2F',
  '%2f',
  '%41',
  'A',
  '.',
  '?',
  '=',
  'é',
  '%C3%A9',
  '/index.html',
  '#x',
  ';',
];

const pattern = fc
  .array(fc.constantFrom(...patternPieces), { maxLength: 7 })
  .map((p) => p.join(''));
const space = fc.constantFrom('', ' ', '  ', '\t');

const line = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...uaKeys), space, fc.constantFrom(...agentValues), fc.boolean())
      .map(([key, sp, value, colon]) => `${key}${colon ? ':' : ' '}${sp}${value}`),
  },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...ruleKeys), space, pattern, fc.integer({ min: 0, max: 9 }))
      .map(([[key], sp, value, mode]) =>
        mode === 0 ? `${key} ${value}` : `${sp}${key}${sp}:${sp}${value}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Sitemap: https://example.com/s.xml',
      'Crawl-delay: 5',
      '# comment',
      '',
      '   ',
      'garbage line here',
      ':',
      'Noindex: /x',
    ),
  },
);

const lineBreak = fc.constantFrom('\n', '\r\n', '\r');

const robotsTxt = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(line, lineBreak), { maxLength: 14 }))
  .map(([bom, lines]) => (bom ? '\ufeff' : '') + lines.map(([l, br]) => l + br).join(''));

const url = fc
  .tuple(
    fc.constantFrom('http://example.com', 'https://example.com:8080', '//example.com', ''),
    fc.array(fc.constantFrom(...pathPieces), { maxLength: 8 }),
  )
  .map(([origin, parts]) => origin + parts.join(''));

const agent = fc.constantFrom('FooBot', 'foobot', 'BarBot', 'Foo', 'MJ', 'Foo Bar', '', 'QuxBot');

describe('google profile agrees with the reference parser', () => {
  it('on random files: same verdict and same deciding line', () => {
    fc.assert(
      fc.property(
        robotsTxt,
        agent,
        fc.array(url, { minLength: 1, maxLength: 6 }),
        (text, ua, urls) => {
          for (const mode of MODES) {
            const rules = compileAgent(parseRobotsTxt(text), ua, mode);
            const bytes = new TextEncoder().encode(text);
            for (const u of urls) {
              const ours = rules.evaluate(u);
              const reference = referenceAllowedByRobots(bytes, ua, u);
              expect(ours.allowed, `allowed for ${JSON.stringify(u)}`).toBe(reference.allowed);
              // An empty pattern "matches" with priority 0 but never decides; only compare
              // lines when a real rule decided.
              expect(ours.rule?.line ?? 0, `line for ${JSON.stringify(u)}`).toBe(
                reference.priority > 0 ? reference.line : 0,
              );
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('on dense rule sets over a tiny alphabet (ties, overlaps, "*$", "$" inside)', () => {
    const densePattern = fc
      .tuple(
        fc.constantFrom('/', '/', '*', 'a'),
        fc.array(fc.constantFrom('/', 'a', 'b', '*', '$'), { maxLength: 5 }),
      )
      .map(([first, rest]) => first + rest.join(''));
    const denseRule = fc
      .tuple(fc.constantFrom('Allow', 'Disallow'), densePattern)
      .map(([k, p]) => `${k}: ${p}`);
    const densePath = fc
      .array(fc.constantFrom('/', 'a', 'b', '$'), { maxLength: 7 })
      .map((p) => '/' + p.join(''));
    fc.assert(
      fc.property(
        fc.array(denseRule, { minLength: 1, maxLength: 12 }),
        fc.array(densePath, { minLength: 1, maxLength: 8 }),
        (lines, paths) => {
          const text = `User-agent: FooBot\n${lines.join('\n')}\n`;
          const bytes = new TextEncoder().encode(text);
          for (const mode of MODES) {
            const rules = compileAgent(parseRobotsTxt(text), 'FooBot', mode);
            for (const p of paths) {
              const ours = rules.evaluate(`http://example.com${p}`);
              const reference = referenceAllowedByRobots(bytes, 'FooBot', `http://example.com${p}`);
              expect(ours.allowed, p).toBe(reference.allowed);
              expect(ours.rule?.line ?? 0, p).toBe(reference.priority > 0 ? reference.line : 0);
            }
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), url, agent, (bytes, u, ua) => {
        for (const mode of MODES) {
          const ours = compileAgent(parseRobotsTxt(bytes), ua, mode).evaluate(u);
          expect(ours.allowed).toBe(referenceAllowedByRobots(bytes, ua, u).allowed);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('every profile', () => {
  it('never throws on any bytes, and reports findings on lines that exist', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.string(), fc.string(), (bytes, ua, u) => {
        for (const profile of PROFILES) {
          const parsed = parseRobotsTxt(bytes, { profile });
          for (const finding of parsed.lint) {
            expect(finding.line).toBeGreaterThanOrEqual(1);
            expect(finding.line).toBeLessThanOrEqual(parsed.lineCount);
          }
          const verdict = compileAgent(parsed, ua).evaluate(u);
          expect(typeof verdict.allowed).toBe('boolean');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws on text with any code points, including lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (text, u) => {
        for (const profile of PROFILES) {
          compileAgent(
            parseRobotsTxt(`User-agent: *\nDisallow: ${text}\n${text}`, { profile }),
            text,
          ).evaluate(u);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('compiled matchers agree with a naive scan of the same rules', () => {
  it('rfc9309: longest match by normalised octets, allow wins ties', () => {
    fc.assert(
      fc.property(robotsTxt, agent, url, fc.constantFrom(...MODES), (text, ua, u, mode) => {
        const rules = compileAgent(parseRobotsTxt(text, { profile: 'rfc9309' }), ua, mode);
        const path = normalizeRfc9309(binary(getPathParamsQuery(u)), false);
        let best: { allowed: boolean; length: number; line: number } | undefined;
        for (const r of rules.rules) {
          if (r.match === '' || !referenceMatches(path, r.match)) continue;
          const candidate = {
            allowed: r.directive === 'allow',
            length: r.match.length,
            line: r.line,
          };
          if (
            best === undefined ||
            candidate.length > best.length ||
            (candidate.length === best.length && candidate.allowed && !best.allowed)
          ) {
            best = candidate;
          }
        }
        const expected = path === '/robots.txt' ? true : (best?.allowed ?? true);
        expect(rules.evaluate(u).allowed).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('legacy: first rule whose path is a prefix, after unescaping', () => {
    fc.assert(
      fc.property(robotsTxt, agent, url, fc.constantFrom(...MODES), (text, ua, u, mode) => {
        const rules = compileAgent(parseRobotsTxt(text, { profile: 'legacy' }), ua, mode);
        const path = canonicalLegacy(binary(getPathParamsQuery(u)));
        const first = rules.rules.find((r) => path.startsWith(r.match));
        const expected =
          path === '/robots.txt' ||
          first === undefined ||
          first.directive === 'allow' ||
          first.match === '';
        const verdict = rules.evaluate(u);
        expect(verdict.allowed).toBe(expected);
        if (path !== '/robots.txt') expect(verdict.rule?.line).toBe(first?.line);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('adversarial input', () => {
  it('matches many-wildcard patterns without backtracking', () => {
    const robots =
      'User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\nAllow: /' + '*a'.repeat(5000) + '$\n';
    for (const mode of MODES) {
      const rules = compileAgent(parseRobotsTxt(robots), 'x', mode);
      const long = 'https://example.com/' + 'a'.repeat(100_000);
      // No "b": the disallow rule cannot match; the allow rule does (at least 5000 a's).
      const verdict = rules.evaluate(long);
      expect(verdict.allowed).toBe(true);
      expect(verdict.rule).toMatchObject({ directive: 'allow', line: 3 });
      expect(rules.evaluate(long + 'b').allowed).toBe(false);
    }
  });

  it('reads a file of one enormous line and thousands of tiny ones', () => {
    const huge = 'Disallow: /' + 'x'.repeat(600_000);
    const parsed = parseRobotsTxt('User-agent: *\n' + huge);
    expect(parsed.truncated).toBe(true);
    expect(parsed.groups[0]!.rules[0]!.pattern).toHaveLength(16_663 - 'Disallow: '.length);
    const tiny = parseRobotsTxt('\n'.repeat(600_000));
    expect(tiny.lineCount).toBe(512_001);
  });
});

function binary(text: string): string {
  return String.fromCharCode(...new TextEncoder().encode(text));
}
