/**
 * Coverage of a URL set: counts, deciding rules, prefixes and samples per crawler, checked
 * against Google's reference matcher URL by URL on real files; and what a change newly
 * disallows, mostly where and by which line.
 */
import { describe, expect, it } from 'vitest';
import { causeTopics } from '../../../src/policy/changes/cause-model.js';
import { causesOfChange } from '../../../src/policy/changes/causes.js';
import { coverageQuestion } from '../../../src/policy/changes/usage-causes.js';
import { computeCoverage, disallowedSitemaps, pathPrefix } from '../../../src/policy/coverage.js';
import { compareCoverage, representativePaths } from '../../../src/policy/coverage-change.js';
import { causeHeadline, explainCause } from '../../../src/policy/wording/explain.js';
import type { RobotsState, WatchedAgent } from '../../../src/policy/verdicts.js';
import { urlsFromRules } from '../../support/corpus-check.js';
import { readFixture, realWorldFiles } from '../../support/fixtures.js';
import { referenceAllowedByRobots } from '../../support/reference-matcher.js';

const encode = (text: string) => new TextEncoder().encode(text);
const ok = (body: string | Uint8Array): RobotsState => ({
  fetch: { status: 200, error: null },
  body: typeof body === 'string' ? encode(body) : body,
  lastGoodBody: null,
  stale: false,
});
const google = (...tokens: string[]): WatchedAgent[] =>
  tokens.map((token) => ({ token, profile: 'google' }));

const SHOP = `User-agent: *
Disallow: /cart
Allow: /products/public/

User-agent: GPTBot
Disallow: /
`;
const PATHS = [
  '/',
  '/products/1',
  '/products/2?color=red',
  '/products/public/3',
  '/cart',
  '/cart/checkout',
  '/blog/post',
];

describe('coverage', () => {
  it('names each path’s first segment', () => {
    expect(['/', '/about', '/products/1', '/a?b=/c', '/x/y/z', '/q?x'].map(pathPrefix)).toEqual([
      '/',
      '/about',
      '/products/',
      '/a',
      '/x/',
      '/q',
    ]);
  });

  it('counts, per crawler, what is allowed and disallowed, by which rule and where', () => {
    const coverage = computeCoverage(ok(SHOP), PATHS, google('Googlebot', 'GPTBot', 'Bingbot'));
    expect(coverage.urls).toBe(7);
    const [googlebot, gptbot, bingbot] = coverage.agents;
    expect(googlebot).toEqual({
      agent: 'Googlebot',
      allowed: 5,
      disallowed: 2,
      access: null,
      rules: [
        {
          line: 2,
          directive: 'disallow',
          pattern: '/cart',
          urls: 2,
          samples: ['/cart', '/cart/checkout'],
        },
        {
          line: 3,
          directive: 'allow',
          pattern: '/products/public/',
          urls: 1,
          samples: ['/products/public/3'],
        },
      ],
      prefixes: [
        { prefix: '/cart', disallowed: 1, urls: 1 },
        { prefix: '/cart/', disallowed: 1, urls: 1 },
      ],
      samples: ['/cart', '/cart/checkout'],
    });
    expect(gptbot).toMatchObject({ agent: 'GPTBot', allowed: 0, disallowed: 7 });
    expect(gptbot!.rules).toEqual([
      {
        line: 6,
        directive: 'disallow',
        pattern: '/',
        urls: 7,
        samples: ['/', '/products/1', '/products/2?color=red'],
      },
    ]);
    expect(gptbot!.prefixes[0]).toEqual({ prefix: '/products/', disallowed: 3, urls: 3 });
    // Bingbot reads the same group as Googlebot: the same answer.
    expect({ ...bingbot, agent: 'Googlebot' }).toEqual(googlebot);
  });

  it('lets the access state decide when robots.txt cannot be read or is missing', () => {
    const down: RobotsState = {
      fetch: { status: 503, error: null },
      body: null,
      lastGoodBody: null,
      stale: false,
    };
    const missing: RobotsState = {
      fetch: { status: 404, error: null },
      body: null,
      lastGoodBody: null,
      stale: false,
    };
    expect(computeCoverage(down, PATHS, google('Googlebot')).agents[0]).toMatchObject({
      allowed: 0,
      disallowed: 7,
      access: 'unreachable',
      rules: [],
    });
    expect(computeCoverage(missing, PATHS, google('Googlebot')).agents[0]).toMatchObject({
      allowed: 7,
      disallowed: 0,
      access: 'unavailable',
      prefixes: [],
    });
  });

  it('agrees with Google’s reference matcher, URL by URL, on real files', () => {
    const files = realWorldFiles()
      .filter((f) => f.size < 50_000)
      .slice(0, 40);
    let urls = 0;
    for (const file of files) {
      const body = readFixture(`realworld/${file.path}`);
      const paths = urlsFromRules(body, 60).map((u) => {
        const url = new URL(u, 'https://example.com');
        return url.pathname + url.search;
      });
      const agents = google('Googlebot', 'GPTBot', 'bingbot');
      const coverage = computeCoverage(ok(body), paths, agents);
      for (const agent of coverage.agents) {
        let disallowed = 0;
        const byLine = new Map<number, number>();
        for (const path of paths) {
          const reference = referenceAllowedByRobots(
            body,
            agent.agent,
            `https://example.com${path}`,
          );
          if (!reference.allowed) disallowed++;
          // An empty pattern "matches" with priority 0 and decides nothing (as in corpus-check).
          if (reference.priority > 0)
            byLine.set(reference.line, (byLine.get(reference.line) ?? 0) + 1);
        }
        expect(agent.disallowed, `${file.path} ${agent.agent}`).toBe(disallowed);
        expect(
          new Map(agent.rules.map((r) => [r.line, r.urls])),
          `${file.path} ${agent.agent}`,
        ).toEqual(new Map([...byLine].sort((a, b) => b[1] - a[1]).slice(0, 50)));
        urls += paths.length;
      }
    }
    expect(urls).toBeGreaterThan(1_000);
  });

  it('says what a change newly disallows, mostly where and by which line', () => {
    const after = SHOP.replace('Disallow: /cart', 'Disallow: /cart\nDisallow: /*?');
    const paths = [...PATHS, '/products/4?size=m', '/search?q=shoes'];
    const changes = compareCoverage(ok(SHOP), ok(after), paths, google('Googlebot', 'GPTBot'));
    // GPTBot was blocked everywhere already: nothing changes for it.
    expect(changes).toEqual([
      {
        agent: 'Googlebot',
        urls: 9,
        newlyDisallowed: 3,
        newlyAllowed: 0,
        prefixes: [
          { prefix: '/products/', urls: 2 },
          { prefix: '/search', urls: 1 },
        ],
        rules: [{ line: 3, directive: 'disallow', pattern: '/*?', urls: 3 }],
        access: null,
        samples: ['/products/2?color=red', '/products/4?size=m', '/search?q=shoes'],
      },
    ]);
    const back = compareCoverage(ok(after), ok(SHOP), paths, google('Googlebot'));
    expect(back[0]).toMatchObject({ newlyDisallowed: 0, newlyAllowed: 3, rules: [] });
  });
});

describe('watch: auto', () => {
  it('picks the home page, then the shortest URL and the shortest with a query of each large prefix', () => {
    const paths = [
      ...Array.from({ length: 30 }, (_, i) => `/products/${i}`),
      ...Array.from({ length: 10 }, (_, i) => `/products/${i}?color=red`),
      '/blog/post-10',
      '/blog/a',
      '/blog/b?page=2',
      '/about',
    ];
    expect(representativePaths(paths)).toEqual([
      '/',
      '/products/0',
      '/products/0?color=red',
      '/blog/a',
      '/blog/b?page=2',
      '/about',
    ]);
    // The largest prefixes only, and the same choice whatever the order of the set.
    expect(representativePaths([...paths].reverse(), 1)).toEqual([
      '/',
      '/products/0',
      '/products/0?color=red',
    ]);
    expect(representativePaths([])).toEqual(['/']);
  });
});

describe('sitemaps the file disallows', () => {
  it('names the site’s sitemap files Googlebot may not fetch, with the line', () => {
    const body = 'User-agent: *\nDisallow: /private/\nDisallow: /sitemaps/old\n';
    expect(
      disallowedSitemaps(
        ok(body),
        [
          'https://a.example/sitemap.xml',
          'https://a.example/sitemaps/old-1.xml',
          'https://cdn.example/sitemaps/old-2.xml',
        ],
        'https://a.example',
      ),
    ).toEqual([
      {
        url: 'https://a.example/sitemaps/old-1.xml',
        rule: { directive: 'disallow', pattern: '/sitemaps/old', line: 3 },
      },
    ]);
    const down: RobotsState = {
      fetch: { status: 503, error: null },
      body: null,
      lastGoodBody: null,
      stale: false,
    };
    expect(disallowedSitemaps(down, ['https://a.example/x.xml'], 'https://a.example')).toEqual([]);
  });
});

describe('the coverage cause', () => {
  const side = (body: string) => ({
    fetch: { status: 200, error: null },
    stale: false,
    lastGood: { body: encode(body), truncated: false, cut: null },
    verdicts: [],
  });
  const paths = [
    ...Array.from({ length: 40 }, (_, i) => `/products/${i}?ref=home`),
    ...Array.from({ length: 60 }, (_, i) => `/products/${i}`),
    '/search?q=shoes',
  ];
  const change = (minUrls: number, minShare: number) => {
    const input = {
      profile: 'google' as const,
      agents: google('Googlebot', 'Bingbot', 'GPTBot'),
      before: side(SHOP),
      after: side(SHOP.replace('Disallow: /cart', 'Disallow: /cart\nDisallow: /*?')),
    };
    // As the check does it: the question from the causes, the comparison apart.
    const question = coverageQuestion(input)!;
    const changes = compareCoverage(question.before, question.after, paths, question.agents);
    return causesOfChange({ ...input, coverage: { changes, thresholds: { minUrls, minShare } } });
  };

  it('says how much of the site a change blocks, for the crawlers that see it alike', () => {
    const coverage = change(10, 0.01).filter((c) => c.type === 'coverage');
    expect(coverage).toEqual([
      {
        type: 'coverage',
        agents: ['Googlebot', 'Bingbot'],
        urls: 101,
        newlyDisallowed: 41,
        newlyAllowed: 0,
        prefixes: [
          { prefix: '/products/', urls: 40 },
          { prefix: '/search', urls: 1 },
        ],
        rules: [{ directive: 'disallow', pattern: '/*?', line: 3, urls: 41 }],
        samples: ['/products/0?ref=home', '/products/1?ref=home', '/products/2?ref=home'],
        significant: true,
        pairs: [],
      },
    ]);
    const cause = coverage[0]!;
    expect(causeTopics(cause)).toEqual(['coverage_changed']);
    const context = { agents: ['Googlebot', 'Bingbot', 'GPTBot'], at: new Date(0) };
    const words = explainCause(cause, context);
    expect(words.title).toBe(
      'Googlebot and Bingbot: 41 of 101 sitemap URLs (40.6%) newly disallowed',
    );
    expect(words.consequence).toBe(
      'Mostly /products/ (40), /search (1), by line 3 `Disallow: /*?`: they stop crawling these pages.',
    );
    expect(causeHeadline(cause, context)).toBe(
      '41 sitemap URLs (40.6%) now disallowed for Googlebot and Bingbot (Disallow: /*?, line 3)',
    );
  });

  it('records a change under the thresholds without alerting on it', () => {
    const [cause] = change(50, 0.01).filter((c) => c.type === 'coverage');
    expect(cause).toMatchObject({ newlyDisallowed: 41, significant: false });
    expect(causeTopics(cause!)).toEqual([]);
    expect(change(10, 0.5).find((c) => c.type === 'coverage')).toMatchObject({
      significant: false,
    });
  });
});
