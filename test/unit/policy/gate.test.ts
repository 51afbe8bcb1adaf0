/**
 * The deploy gate, pure: a draft judged against the live file over the watched pages,
 * the URL set and the intent. Passes only when the draft keeps the site as intended and
 * newly blocks less of the URL set than notify.coverage lets a change block.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { gateDraft } from '../../../src/policy/gate.js';
import type { GateInput } from '../../../src/policy/gate.js';

const context = { file: 'robowatch.yaml', cwd: '/srv', env: {}, version: '9.9.9' };
const origin = 'https://shop.example';
const bytes = (text: string) => new TextEncoder().encode(text);

/** Two hundred blog posts, fifty products, the pricing page. */
const PATHS = [
  ...Array.from({ length: 200 }, (_, i) => `/blog/post-${i}`),
  ...Array.from({ length: 50 }, (_, i) => `/shop/item-${i}`),
  '/pricing',
];

function gate(
  draft: string,
  live: string | { status: number | null; error?: 'refused' },
  options: { intent?: string; paths?: string[] | null; minUrls?: number; newOnly?: boolean } = {},
) {
  const config = parseConfig(
    `agents: [Googlebot, Bingbot, GPTBot]
notify: {coverage: {minUrls: ${options.minUrls ?? 10}, minShare: 0.01}}
${options.intent ?? ''}sites:
  - url: ${origin}
    watch: [/, /pricing, /blog/post-1, /shop/item-1]
`,
    context,
  );
  const site = config.sites[0]!;
  const input: GateInput = {
    profile: site.profile,
    agents: site.agents,
    watches: site.watches,
    intent: site.intent.rules,
    draft: bytes(draft),
    live:
      typeof live === 'string'
        ? { status: 200, error: null, body: bytes(live), cut: null }
        : { status: live.status, error: live.error ?? null, body: null, cut: null },
    paths: options.paths === undefined ? PATHS : options.paths,
    thresholds: config.notify.coverage,
    newOnly: options.newOnly ?? false,
  };
  return gateDraft(input);
}

const LIVE = 'User-agent: *\nDisallow: /admin\n';

describe('the deploy gate', () => {
  it('passes a draft that changes nothing crawlers do', () => {
    const result = gate('# a comment\nUser-agent: *\nDisallow: /admin\n', LIVE);
    expect(result.passed).toBe(true);
    expect(result.intent.state).toBe('as-intended');
    expect(result.violations).toEqual([]);
    expect(result.coverage?.causes).toEqual([]);
  });

  it('fails a draft that blocks a watched page the search engines are meant to crawl, naming the line', () => {
    const result = gate('User-agent: *\nDisallow: /admin\nDisallow: /pricing\n', LIVE);
    expect(result.passed).toBe(false);
    expect(result.violations.map((v) => [v.url, v.agent, v.live])).toEqual([
      [`${origin}/pricing`, 'Googlebot', false],
      [`${origin}/pricing`, 'Bingbot', false],
    ]);
    expect(result.violations[0]!.cause).toMatchObject({
      type: 'rule',
      pattern: '/pricing',
      line: 3,
    });
    // GPTBot is watched but the built-in intent says nothing of it: a warning, not a failure.
    expect(result.unjudged.map((v) => v.agent)).toEqual(['GPTBot']);
  });

  it('says which differences the live file already has', () => {
    const result = gate(
      'User-agent: *\nDisallow: /pricing\nDisallow: /shop\n',
      'User-agent: *\nDisallow: /pricing\n',
    );
    expect(result.passed).toBe(false);
    expect(result.violations.filter((v) => v.url.endsWith('/pricing')).every((v) => v.live)).toBe(
      true,
    );
    expect(result.violations.filter((v) => v.url.endsWith('/item-1')).every((v) => !v.live)).toBe(
      true,
    );
    expect(result.liveIntent.state).toBe('not-as-intended');
  });

  it('with newOnly, fails only on pairs the draft gets wrong that the live file gets right', () => {
    const live = 'User-agent: *\nDisallow: /pricing\n';
    const same = 'User-agent: *\nDisallow: /pricing\nDisallow: /admin\n';
    expect(gate(same, live).passed).toBe(false);
    const kept = gate(same, live, { newOnly: true });
    expect([kept.passed, kept.intent.violationCount, kept.newViolations]).toEqual([true, 2, 0]);
    const worse = gate('User-agent: *\nDisallow: /pricing\nDisallow: /shop\n', live, {
      newOnly: true,
    });
    expect([worse.passed, worse.newViolations]).toEqual([false, 2]);
  });

  it('lets a draft block what the intent keeps crawlers out of, on watched pages and in the URL set', () => {
    const intent = `intent:
  - {watch: /*, agents: [Googlebot, Bingbot], expect: allowed}
  - {watch: /shop/*, agents: [GPTBot], expect: disallowed}
`;
    const live = gate(LIVE, LIVE, { intent });
    // The live file lets GPTBot into the shop: not as intended already.
    expect(live.intent.state).toBe('not-as-intended');
    const result = gate(
      'User-agent: *\nDisallow: /admin\n\nUser-agent: GPTBot\nDisallow: /shop\n',
      LIVE,
      {
        intent,
      },
    );
    expect(result.intent.state).toBe('as-intended');
    // Fifty shop URLs newly blocked for GPTBot, all of them meant to be: nothing to count.
    expect(result.coverage?.causes).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it('fails a draft that newly blocks as much of the URL set as notify.coverage alerts on, and not less', () => {
    // /blog/post-19 blocks post-19 and post-190…199: 11 URLs (4.4% of 251).
    const over = gate('User-agent: *\nDisallow: /admin\nDisallow: /blog/post-19\n', LIVE);
    expect(over.coverage?.causes.map((c) => [c.agents, c.newlyDisallowed, c.significant])).toEqual([
      [['Googlebot', 'Bingbot', 'GPTBot'], 11, true],
    ]);
    expect(over.coverage?.causes[0]!.rules).toMatchObject([
      { pattern: '/blog/post-19', line: 3, urls: 11 },
    ]);
    expect(over.passed).toBe(false);
    const under = gate('User-agent: *\nDisallow: /admin\nDisallow: /blog/post-19\n', LIVE, {
      minUrls: 12,
    });
    expect(under.coverage?.causes[0]!.significant).toBe(false);
    expect(under.passed).toBe(true);
  });

  it('counts everything a draft blocks as new when the live file is missing (4xx)', () => {
    const result = gate('User-agent: *\nDisallow: /shop\n', { status: 404 });
    expect(result.live.read).toBe(false);
    expect(result.coverage?.causes[0]).toMatchObject({ newlyDisallowed: 50, significant: true });
    expect(result.passed).toBe(false);
  });

  it('when the live file cannot be fetched, blocks nothing new to Google but still judges the intent', () => {
    const result = gate('User-agent: *\nDisallow: /blog/post-19\n', {
      status: null,
      error: 'refused',
    });
    expect(result.live.status.access).toBe('unreachable');
    expect(result.coverage?.causes.filter((c) => c.newlyDisallowed > 0)).toEqual([]);
    expect(result.intent.state).toBe('as-intended');
    expect(result.passed).toBe(true);
    const blocking = gate('User-agent: *\nDisallow: /\n', { status: 503 });
    expect(blocking.passed).toBe(false);
    expect(blocking.intent.violationCount).toBe(8);
  });

  it('fails a draft crawlers would not read as robots.txt: an HTML page, or one past 500 KiB', () => {
    const html = gate('<!doctype html><html><body>Not found</body></html>\n', LIVE);
    expect(html.intent.state).toBe('cannot-check');
    expect(html.intent.reason).toMatch(/HTML page/);
    expect(html.passed).toBe(false);
    const huge = gate(`User-agent: *\n${'Disallow: /admin\n'.repeat(40_000)}`, LIVE);
    expect(huge.draft.condition).toBe('cut');
    expect(huge.intent.reason).toMatch(/500 KiB/);
    expect(huge.passed).toBe(false);
  });

  it('without a URL set judges the watched pages alone, and reports the draft’s lint findings', () => {
    const result = gate('User-agent: *\nDisalow: /admin\nCrawl-delay: 5\n', LIVE, { paths: null });
    expect(result.coverage).toBeNull();
    expect(result.findings.map((f) => f.line)).toEqual(expect.arrayContaining([2, 3]));
    expect(result.passed).toBe(true);
  });
});
