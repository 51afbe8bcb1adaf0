/** The weekly digest: changes, what is disallowed now, fetch health, AI crawlers; rendered. */
import { describe, expect, it } from 'vitest';
import { buildDigest } from '../../../src/policy/digest.js';
import type { DigestSiteInput } from '../../../src/policy/digest.js';
import type { ChangeEvent } from '../../../src/policy/events.js';
import { computeVerdicts } from '../../../src/policy/verdicts.js';
import { renderDigest } from '../../../src/notify/render-digest.js';

const period = { start: new Date('2026-06-01T08:00:00Z'), end: new Date('2026-06-08T08:00:00Z') };
const agents = [
  { token: 'Googlebot', profile: 'google' as const },
  { token: 'GPTBot', profile: 'google' as const },
  { token: 'CCBot', profile: 'google' as const },
  { token: 'ClaudeBot', profile: 'google' as const },
];
const watches = ['https://a.com/', 'https://a.com/blog/', 'https://a.com/private/x'];
const body = new TextEncoder().encode(
  'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /blog/\n',
);
const verdicts = computeVerdicts(
  { fetch: { status: 200, error: null }, body, lastGoodBody: body, stale: false },
  watches,
  agents,
);
const hour = (h: number) => new Date(period.start.getTime() + h * 3_600_000);
const ok = { status: 200, error: null };
const blocked: ChangeEvent = {
  type: 'newly_disallowed',
  site: 'https://a.com',
  url: 'https://a.com/blog/',
  agent: 'CCBot',
  cause: { type: 'rule', directive: 'disallow', pattern: '/blog/', line: 8 },
};

const site = (overrides: Partial<DigestSiteInput> = {}): DigestSiteInput => ({
  origin: 'https://a.com',
  profile: 'google',
  agents,
  events: [],
  checks: [0, 24, 48].map((h) => ({ at: hour(h), fetch: ok, stale: false })),
  verdicts,
  body,
  ...overrides,
});

describe('buildDigest', () => {
  it('says all clear when nothing changed and nothing failed', () => {
    const digest = buildDigest('seo@a.com', period, [site()]);
    expect(digest.allClear).toBe(true);
    expect(digest.sites[0]!.health).toEqual({ checks: 3, okShare: 1, incidents: [] });
  });

  it('lists what is disallowed now, per agent', () => {
    const [summary] = buildDigest('seo@a.com', period, [site()]).sites;
    expect(summary!.disallowed).toEqual([
      { agent: 'Googlebot', urls: ['https://a.com/private/x'] },
      { agent: 'GPTBot', urls: watches },
      { agent: 'CCBot', urls: ['https://a.com/blog/'] },
      { agent: 'ClaudeBot', urls: ['https://a.com/private/x'] },
    ]);
  });

  it("tells each AI crawler's standing and who falls under *", () => {
    const [summary] = buildDigest('seo@a.com', period, [site()]).sites;
    expect(summary!.ai).toEqual([
      { agent: 'GPTBot', disallowed: 3, watched: 3, underStar: false },
      { agent: 'CCBot', disallowed: 1, watched: 3, underStar: false },
      { agent: 'ClaudeBot', disallowed: 1, watched: 3, underStar: true },
    ]);
  });

  it('finds incidents, closed by the first good check, and open ones', () => {
    const checks = [
      { at: hour(0), fetch: ok, stale: false },
      { at: hour(1), fetch: { status: 503, error: null }, stale: false },
      { at: hour(2), fetch: { status: null, error: 'timeout' as const }, stale: false },
      { at: hour(3), fetch: ok, stale: false },
      { at: hour(4), fetch: { status: 404, error: null }, stale: false },
    ];
    const digest = buildDigest('seo@a.com', period, [
      site({ checks, events: [{ at: hour(3), event: blocked }] }),
    ]);
    expect(digest.allClear).toBe(false);
    expect(digest.sites[0]!.health).toEqual({
      checks: 5,
      okShare: 0.4,
      incidents: [
        { start: hour(1), end: hour(3), status: { access: 'unreachable', status: 503 } },
        { start: hour(4), end: null, status: { access: 'unavailable', status: 404 } },
      ],
    });
    expect(digest.sites[0]!.changes).toEqual([{ at: hour(3), event: blocked }]);
  });
});

describe('renderDigest', () => {
  it('writes the summary in text and HTML, escaped', () => {
    const hostile: ChangeEvent = {
      ...blocked,
      cause: { type: 'rule', directive: 'disallow', pattern: '/<b>x</b>', line: 8 },
    };
    const digest = buildDigest('seo@a.com', period, [
      site({ events: [{ at: hour(3), event: hostile }] }),
    ]);
    const { subject, text, html } = renderDigest(digest);
    expect(subject).toBe(
      'robowatch digest 2026-06-01 to 2026-06-08: 1 change, 0 incidents on 1 site',
    );
    expect(text).toContain(
      'https://a.com\n  Changes:\n    2026-06-01 11:00Z  DISALLOWED now: /blog/ for CCBot (line 8: Disallow: /<b>x</b>) [was allowed]',
    );
    expect(text).toContain(
      '  Watched URLs disallowed now:\n    Googlebot: /private/x\n    GPTBot: /, /blog/, /private/x',
    );
    expect(text).toContain('  Fetch health:\n    100% ok of 3 checks');
    expect(text).toContain(
      '  AI crawlers:\n    blocked: GPTBot\n    partly blocked: CCBot 1/3, ClaudeBot 1/3 (falls under *)',
    );
    expect(html).toContain('Disallow: /&lt;b&gt;x&lt;/b&gt;');
    expect(html).not.toContain('<b>x</b>');
  });

  it('has an all-clear line', () => {
    const { subject, text } = renderDigest(buildDigest('seo@a.com', period, [site()]));
    expect(subject).toBe('robowatch digest 2026-06-01 to 2026-06-08: all clear (1 site)');
    expect(text).toContain('All clear: no robots.txt changes and no fetch incidents this period.');
  });
});
