import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, grouped } from '../../../src/policy/wording/words.js';
import {
  crawlerSet,
  describeCrawlers,
  describeUrls,
} from '../../../src/policy/wording/explain-pairs.js';
import { answers } from '../../../src/policy/wording/status-words.js';
import { coverageTexts } from '../../../src/policy/wording/rule-words.js';

describe('counts said in English', () => {
  it('groups thousands as English does, without asking ICU', () => {
    expect(grouped(0)).toBe('0');
    expect(grouped(999)).toBe('999');
    expect(grouped(1000)).toBe('1,000');
    expect(grouped(500_000)).toBe('500,000');
    expect(grouped(1_234_567)).toBe('1,234,567');
    expect(grouped(-45_000)).toBe('-45,000');
    expect(count(12_500, 'URL')).toBe('12,500 URLs');
    expect(count(1, 'URL')).toBe('1 URL');
  });

  it('writes every integer as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(grouped(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves what is not a whole count to the locale', () => {
    expect(grouped(1536.25)).toBe('1,536.25');
    expect(grouped(2 ** 60)).toBe((2 ** 60).toLocaleString('en-US'));
  });
});

describe('crawler sets in lists and tables', () => {
  const all = ['Googlebot', 'Bingbot', 'DuckDuckBot', 'Applebot', 'GPTBot', 'CCBot', '*'];

  it('says "all" or "every crawler but" only when the reader can still tell which ones', () => {
    expect(crawlerSet(all, all)).toBe('All 7 watched crawlers');
    expect(crawlerSet(['Googlebot', 'Bingbot', 'DuckDuckBot', 'Applebot', '*'], all)).toBe(
      'Every crawler but GPTBot and CCBot',
    );
  });

  it('names each crawler otherwise: a few, or too many left out to say', () => {
    expect(crawlerSet(['GPTBot', 'CCBot'], all)).toBe('GPTBot, CCBot');
    expect(
      crawlerSet(['Googlebot', 'Bingbot', 'DuckDuckBot', 'Applebot'], [...all, 'Bytespider']),
    ).toBe('Googlebot, Bingbot, DuckDuckBot, Applebot');
    // Three watched ones, all of them: by name, which is as short.
    expect(crawlerSet(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe('a, b, c');
    // A crawler that is not among the watched ones is never hidden in "all".
    expect(crawlerSet([...all.slice(0, 6), 'Other'], all)).toBe(
      'Googlebot, Bingbot, DuckDuckBot, Applebot, GPTBot, CCBot, Other',
    );
  });
});

describe('crawler sets said in a few words', () => {
  const five = ['Googlebot', 'Bingbot', 'DuckDuckBot', 'Applebot', 'GPTBot'];

  it('never says "every crawler but" with no one after it', () => {
    // An export explains causes without the site's watched crawlers.
    expect(describeCrawlers(five, { agents: [] })).toBe(
      '5 crawlers (Googlebot, Bingbot, DuckDuckBot, …)',
    );
    expect(describeCrawlers(five, { agents: five })).toBe('all 5 watched crawlers');
    expect(describeCrawlers(five.slice(0, 4), { agents: five })).toBe('every crawler but GPTBot');
  });
});

describe('what robots.txt answered, in words', () => {
  it('says a file that began to arrive but did not end in time is no file, not no answer', () => {
    // The headers came (200), the body trickled past the time limit.
    expect(answers({ access: 'unreachable', status: 200, error: 'timeout' })).toBe(
      'cannot be fetched: no complete answer within the time limit',
    );
    expect(answers({ access: 'unreachable', status: 503 })).toBe('answers 503');
  });
});

describe('a change to the share of the sitemaps crawlers may fetch, as a title', () => {
  it('starts with a capital, whoever the crawlers are', () => {
    const cause = {
      type: 'coverage' as const,
      agents: ['Googlebot', 'Bingbot', 'DuckDuckBot', 'Applebot'],
      urls: 6,
      newlyDisallowed: 0,
      newlyAllowed: 3,
      prefixes: [],
      rules: [],
      samples: [],
      significant: false,
      pairs: [],
    };
    const agents = [...cause.agents, 'GPTBot'];
    expect(coverageTexts(cause, { agents, at: new Date(0) }).title).toBe(
      'Every crawler but GPTBot: 3 of 6 sitemap URLs (50.0%) newly allowed',
    );
  });
});

describe('watched pages said as a reader recognises them', () => {
  it('names four by their paths, then counts the rest as watched pages', () => {
    const urls = ['/', '/pricing', '/products/', '/cart', '/blog/', '/about?x=1'].map(
      (path) => `https://shop.example${path}`,
    );
    expect(describeUrls(urls.slice(0, 2))).toBe('/ and /pricing');
    expect(describeUrls(urls.slice(0, 5))).toBe(
      '/, /pricing, /products/, /cart and 1 more watched page',
    );
    expect(describeUrls(urls)).toBe('/, /pricing, /products/, /cart and 2 more watched pages');
  });
});
