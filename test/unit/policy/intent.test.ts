/** Intent: which cells it judges, the site's state, "Accept as intended", and incidents. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { parseIntent } from '../../../src/config/validate.js';
import { incidentStep, intentCauses, intentLead } from '../../../src/policy/incidents.js';
import type { LatestIncident } from '../../../src/policy/incidents.js';
import {
  acceptAsIntended,
  blockedCrawlers,
  evaluateIntent,
  expectationOf,
  MAX_VIOLATIONS,
  pathOf,
} from '../../../src/policy/intent.js';
import { normaliseWatch } from '../../../src/config/urls.js';
import type { IntentEntry, JudgedState } from '../../../src/policy/intent.js';
import { computeVerdicts } from '../../../src/policy/verdicts.js';

const context = { file: 'robowatch.yaml', cwd: '/srv', env: {}, version: '9.9.9' };
const origin = 'https://shop.example';
const ok: JudgedState = {
  status: { access: 'ok', status: 200 },
  fileCondition: 'robots',
  refused: null,
};

function siteWith(robots: string, intent?: string) {
  const config = parseConfig(
    `agents: ['@search', GPTBot]\n${intent ?? ''}sites:\n  - url: ${origin}\n    watch: [/, /pricing, /admin/login, /admin/users]\n`,
    context,
  );
  const site = config.sites[0]!;
  const verdicts = computeVerdicts(
    {
      fetch: { status: 200, error: null },
      body: new TextEncoder().encode(robots),
      lastGoodBody: null,
      stale: false,
    },
    site.watches,
    site.agents,
  );
  return { site, verdicts };
}

describe('intent', () => {
  it('by default, means every watched page to be crawlable by the search engines, and judges nothing else', () => {
    const { site, verdicts } = siteWith('User-agent: *\nDisallow: /admin/\n');
    expect(site.intent.from).toBe('built-in');
    const judged = evaluateIntent(site.intent.rules, verdicts, ok);
    expect(judged.state).toBe('not-as-intended');
    // Googlebot, Bingbot, … on /admin/login and /admin/users; GPTBot is not judged.
    expect(judged.violations.every((v) => v.url.includes('/admin/'))).toBe(true);
    expect(judged.violations.some((v) => v.agent === 'GPTBot')).toBe(false);
    expect(judged.violations.find((v) => v.agent === 'Googlebot')?.cause).toMatchObject({
      type: 'rule',
      pattern: '/admin/',
      line: 2,
    });
  });

  it('takes the last entry that matches a cell, prefixes ending in "*" included', () => {
    const intent =
      'intent:\n  - {watch: "/*", agents: ["@search"], expect: allowed}\n  - {watch: "/admin/*", agents: [Googlebot, Bingbot], expect: disallowed}\n';
    const { site, verdicts } = siteWith('User-agent: *\nDisallow: /admin/\n', intent);
    expect(site.intent.from).toBe('file');
    expect(expectationOf(site.intent.rules, '/admin/login', 'googlebot')).toBe('disallowed');
    expect(expectationOf(site.intent.rules, '/pricing', 'Googlebot')).toBe('allowed');
    expect(expectationOf(site.intent.rules, '/pricing', 'GPTBot')).toBeNull();
    const judged = evaluateIntent(site.intent.rules, verdicts, ok);
    // DuckDuckBot and the other search crawlers are still meant to crawl /admin/.
    expect(judged.violations.map((v) => v.agent)).not.toContain('Googlebot');
    expect(judged.violations.length).toBeGreaterThan(0);
  });

  it('sorts the blocked crawlers by how their blocks stand against the intent, each under its worst block', () => {
    const intent =
      'intent:\n  - {watch: "/*", agents: [Googlebot], expect: allowed}\n  - {watch: "/admin/*", agents: ["@search"], expect: disallowed}\n';
    const { site, verdicts } = siteWith(
      'User-agent: *\nDisallow: /admin/\n\nUser-agent: Googlebot\nDisallow: /admin/\nDisallow: /pricing\n\nUser-agent: Bingbot\nAllow: /\n',
      intent,
    );
    const blocked = blockedCrawlers(site.intent.rules, verdicts);
    // Googlebot: /admin/ as intended, /pricing against it; GPTBot: /admin/ unjudged.
    expect(blocked.against).toEqual(['Googlebot']);
    expect(blocked.unjudged).toEqual(['GPTBot']);
    expect(blocked.intended).not.toContain('Bingbot');
    expect(blocked.intended).toContain('DuckDuckBot');
    expect(new Set([...blocked.intended, ...blocked.unjudged, ...blocked.against]).size).toBe(
      new Set(verdicts.filter((v) => !v.allowed).map((v) => v.agent)).size,
    );
  });

  it('cannot judge a site whose robots.txt answers 503, is HTML or cut, or that robowatch refused', () => {
    const { site, verdicts } = siteWith('User-agent: *\nAllow: /\n');
    const cases: [JudgedState, RegExp][] = [
      [
        { status: { access: 'unreachable', status: 503 }, fileCondition: null, refused: null },
        /answers 503: Google crawls nothing/,
      ],
      [{ ...ok, fileCondition: 'html' }, /HTML page/],
      [{ ...ok, fileCondition: 'cut' }, /500 KiB/],
      [{ ...ok, refused: 'it resolves to 127.0.0.1' }, /refused .*allowPrivateAddresses/],
    ];
    for (const [state, reason] of cases) {
      const judged = evaluateIntent(site.intent.rules, verdicts, state);
      expect(judged.state).toBe('cannot-check');
      expect(judged.reason).toMatch(reason);
    }
    expect(evaluateIntent(site.intent.rules, verdicts, ok).state).toBe('as-intended');
  });

  it('accepts a cell, a row, a column or everything as intended, and is then as intended', () => {
    const { site, verdicts } = siteWith('User-agent: *\nDisallow: /admin/\n');
    const base: IntentEntry[] = [...site.intent.entries];
    const cell = acceptAsIntended(base, verdicts, {
      url: `${origin}/admin/login`,
      agent: 'Googlebot',
    });
    const afterCell = parseIntent(cell, origin, config().presets);
    const judgedCell = evaluateIntent(afterCell.rules, verdicts, ok);
    expect(
      judgedCell.violations.find((v) => v.agent === 'Googlebot' && v.url.endsWith('/admin/login')),
    ).toBeUndefined();
    expect(judgedCell.state).toBe('not-as-intended');

    const row = acceptAsIntended(base, verdicts, { url: `${origin}/admin/login` });
    const judgedRow = evaluateIntent(
      parseIntent(row, origin, config().presets).rules,
      verdicts,
      ok,
    );
    expect(judgedRow.violations.every((v) => v.url.endsWith('/admin/users'))).toBe(true);

    const all = acceptAsIntended(base, verdicts, {});
    expect(
      evaluateIntent(parseIntent(all, origin, config().presets).rules, verdicts, ok).state,
    ).toBe('as-intended');
    // Accepting twice does not grow the list.
    expect(acceptAsIntended(all, verdicts, {})).toHaveLength(all.length);
    expect(all[0]).toEqual({ watch: '/*', agents: ['@search'], expect: 'allowed' });
    const pricing = all.find((e) => e.watch === '/pricing');
    expect(pricing?.expect).toBe('allowed');
    expect(pricing?.agents).toEqual(expect.arrayContaining(['Googlebot', 'GPTBot']));
  });

  it('refuses an entry in one line naming it', () => {
    const presets = config().presets;
    expect(() =>
      parseIntent([{ watch: '/x', agents: ['@nope'], expect: 'allowed' }], origin, presets),
    ).toThrow('intent[0].agents[0]: unknown preset "@nope"');
    expect(() =>
      parseIntent([{ watch: '/x', agents: ['Googlebot'], expect: 'maybe' }], origin, presets),
    ).toThrow('intent[0].expect: must be allowed or disallowed');
    expect(() =>
      parseIntent(
        [{ watch: 'https://other.example/x', agents: ['Googlebot'], expect: 'allowed' }],
        origin,
        presets,
      ),
    ).toThrow(/intent\[0\]\.watch: https:\/\/other\.example is not this site/);
  });
});

describe('notify.flapWindow', () => {
  it('reads a duration, and refuses anything else in one line', () => {
    expect(parseConfig('notify: {flapWindow: 30m}\nsites: []\n', context).notify.flapWindowMs).toBe(
      1_800_000,
    );
    expect(config().notify.flapWindowMs).toBe(3_600_000);
    expect(() => parseConfig('notify: {flapWindow: 1 hour}\nsites: []\n', context)).toThrow(
      'robowatch.yaml: notify.flapWindow: must be a duration such as "30m", "1h" or "2d" (from 0 s to 7 days)',
    );
  });
});

function config() {
  return parseConfig('sites: []\n', context);
}

describe('incidents', () => {
  const at = new Date('2026-11-27T10:00:00Z');
  const broken = {
    state: 'not-as-intended' as const,
    violationCount: 2,
    reason: null,
    violations: [
      {
        url: `${origin}/pricing`,
        agent: 'Googlebot',
        expected: 'allowed' as const,
        cause: {
          type: 'rule' as const,
          directive: 'disallow' as const,
          pattern: '/pricing',
          line: 3,
        },
      },
      {
        url: `${origin}/pricing`,
        agent: 'Bingbot',
        expected: 'allowed' as const,
        cause: {
          type: 'rule' as const,
          directive: 'disallow' as const,
          pattern: '/pricing',
          line: 3,
        },
      },
    ],
  };
  const fine = { state: 'as-intended' as const, violationCount: 0, violations: [], reason: null };
  const open: LatestIncident = {
    id: 7,
    state: 'open',
    siteState: 'not-as-intended',
    violationCount: 2,
    worstCount: 2,
    causes: intentCauses(broken),
    resolvedAt: null,
  };

  it('opens when a site leaves as-intended, resolves when it is back, and says nothing in between', () => {
    expect(incidentStep(null, broken, at, 3_600_000)).toEqual({ kind: 'open' });
    expect(incidentStep(open, broken, at, 3_600_000)).toEqual({ kind: 'none' });
    expect(incidentStep(open, fine, at, 3_600_000)).toEqual({ kind: 'resolve', id: 7 });
    expect(incidentStep(null, fine, at, 3_600_000)).toEqual({ kind: 'none' });
    expect(intentCauses(broken)).toEqual([
      'Disallow: /pricing (line 3) blocks pages meant to be crawled',
    ]);
  });

  it('reopens the same incident on a relapse within the flap window, and opens a new one after it', () => {
    const resolved: LatestIncident = {
      ...open,
      state: 'resolved',
      resolvedAt: new Date(at.getTime() - 30 * 60_000),
    };
    expect(incidentStep(resolved, broken, at, 3_600_000)).toEqual({ kind: 'reopen', id: 7 });
    expect(incidentStep(resolved, broken, at, 10 * 60_000)).toEqual({ kind: 'open' });
    // Other trouble within the window is an incident of its own (and alerts).
    const other = {
      ...broken,
      violations: [
        {
          ...broken.violations[0]!,
          cause: { type: 'rule' as const, directive: 'disallow' as const, pattern: '/', line: 2 },
        },
      ],
    };
    expect(incidentStep(resolved, other, at, 3_600_000)).toEqual({ kind: 'open' });
  });

  it('gets worse with more cells, a new cause, or when the site can no longer be checked; not with fewer cells', () => {
    const more = {
      ...broken,
      violationCount: 3,
      violations: [...broken.violations, { ...broken.violations[0]!, agent: 'DuckDuckBot' }],
    };
    expect(incidentStep(open, more, at, 0)).toEqual({ kind: 'update', id: 7, worse: true });
    const fewer = { ...broken, violationCount: 1, violations: [broken.violations[0]!] };
    expect(incidentStep(open, fewer, at, 0)).toEqual({ kind: 'update', id: 7, worse: false });
    const down = {
      state: 'cannot-check' as const,
      violationCount: 0,
      violations: [],
      reason: 'robots.txt answers 503',
    };
    expect(incidentStep(open, down, at, 0)).toEqual({ kind: 'update', id: 7, worse: true });
  });
});

describe('a whole site shut, past the cells kept', () => {
  /** The site with `pages` watched pages under robots.txt `robots`, judged by the built-in intent. */
  function judgedWith(pages: number, robots: string) {
    const watch = ['/', ...Array.from({ length: pages - 1 }, (_, i) => `/p${i + 1}`)];
    const config = parseConfig(
      `agents: ['@search', GPTBot]\nsites:\n  - url: ${origin}\n    watch: [${watch.join(', ')}]\n`,
      context,
    );
    const site = config.sites[0]!;
    const body = new TextEncoder().encode(robots);
    const state = { fetch: { status: 200, error: null }, body, lastGoodBody: null, stale: false };
    const verdicts = computeVerdicts(state, site.watches, site.agents);
    return evaluateIntent(site.intent.rules, verdicts, ok);
  }

  it('says every page and crawler of a block larger than the cells it keeps', () => {
    // 40 pages × the 7 search engines: 280 cells differ, 200 are kept.
    const judged = judgedWith(40, 'User-agent: *\nDisallow: /\n');
    // Those kept are whole pages: 28 pages × 7 crawlers, not the first 5 crawlers of all 40.
    expect(judged.violationCount).toBe(280);
    expect(judged.violations).toHaveLength(196);
    const byPath = new Map<string, number>();
    for (const v of judged.violations) {
      const path = new URL(v.url).pathname;
      byPath.set(path, (byPath.get(path) ?? 0) + 1);
    }
    expect([...byPath.keys()]).toEqual([
      '/',
      ...Array.from({ length: 27 }, (_, i) => `/p${i + 1}`),
    ]);
    expect(new Set(byPath.values())).toEqual(new Set([7]));
    expect(judged.violations.length).toBeLessThanOrEqual(MAX_VIOLATIONS);
    expect(judged.grid).toEqual({
      expected: 'allowed',
      paths: ['/', '/p1', '/p2'],
      pathCount: 40,
      agents: ['Googlebot', 'Googlebot-Image', 'Bingbot'],
      agentCount: 7,
    });
    expect(
      intentLead(judged.state, judged.violations, judged.violationCount, undefined, judged.grid),
    ).toBe(
      '/, /p1 and 38 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers',
    );
  });

  it('counts the pairs of cells that make no one block, and keeps no block under the cap', () => {
    // Bingbot keeps /p40 open: 279 cells, not 40 × 7.
    const ragged = judgedWith(
      41,
      'User-agent: *\nDisallow: /\n\nUser-agent: Bingbot\nDisallow: /\nAllow: /p40\n',
    );
    expect(ragged.violationCount).toBe(41 * 7 - 1);
    expect(ragged.grid).toBeUndefined();
    expect(
      intentLead(ragged.state, ragged.violations, ragged.violationCount, undefined, ragged.grid),
    ).toBe('/ is blocked for Googlebot, and 285 more page × crawler pairs differ');
    expect(judgedWith(20, 'User-agent: *\nDisallow: /\n').grid).toBeUndefined();
  });
});

describe('what an incident leads with', () => {
  const cell = (path: string, agent: string, expected: 'allowed' | 'disallowed' = 'allowed') => ({
    url: `https://shop.example${path}`,
    agent,
    expected,
  });
  const SEARCH = ['Googlebot', 'Googlebot-Image', 'Bingbot', 'DuckDuckBot'];

  it('says every differing page and crawler when it knows them all, and otherwise how many pairs more', () => {
    // Every pair of two pages × four crawlers, in the verdicts' order (crawler by crawler).
    const all = SEARCH.flatMap((agent) => [cell('/pricing', agent), cell('/cart', agent)]);
    expect(intentLead('not-as-intended', all, 8, undefined)).toBe(
      '/pricing and /cart are blocked for Googlebot, Googlebot-Image and 2 more crawlers',
    );
    expect(
      intentLead('not-as-intended', [cell('/team', 'GPTBot', 'disallowed')], 1, undefined),
    ).toBe('/team is open to GPTBot');
    // Only the first cells are listed with an incident: the rest are counted, not guessed at.
    expect(intentLead('not-as-intended', all.slice(0, 6), 8, undefined)).toBe(
      '/pricing is blocked for Googlebot, and 7 more page × crawler pairs differ',
    );
    // Two pages, each for crawlers of its own: each page with its crawlers.
    expect(intentLead('not-as-intended', all.slice(0, 3), 3, undefined)).toBe(
      '/pricing is blocked for Googlebot and Googlebot-Image, /cart for Googlebot',
    );
    // Three pages, not every pair of them: the first and how many more.
    const three = [...all.slice(0, 3), cell('/team', 'Bingbot')];
    expect(intentLead('not-as-intended', three, 4, undefined)).toBe(
      '/pricing is blocked for Googlebot, and 3 more page × crawler pairs differ',
    );
    // Why the site is not judged page by page, in its own words: never "cannot be checked"
    // of a site robowatch checked and found down.
    expect(
      intentLead(
        'cannot-check',
        [],
        0,
        'robots.txt answers 503: Google crawls nothing on the site while it does',
      ),
    ).toBe('robots.txt answers 503: Google crawls nothing on the site while it does');
  });
});

describe('how a page is named (pathOf)', () => {
  it('names a watched URL by its path and query, as the URL parser reads them', () => {
    const watched = [
      '/',
      '/pricing',
      '/search?q=shoes&page=2',
      '/café/menü',
      '/a b/%7Euser',
      '/p?next=/cart',
      '/./x/../y',
    ].map((watch) => normaliseWatch(watch, origin));
    for (const url of watched) {
      const parsed = new URL(url);
      expect(pathOf(url)).toBe(parsed.pathname + parsed.search);
    }
    expect(pathOf(watched[3]!)).toBe('/caf%C3%A9/men%C3%BC');
  });

  it('says "/" for a bare origin, drops a fragment, and leaves text that is no URL as typed', () => {
    expect(pathOf('https://shop.example')).toBe('/');
    expect(pathOf('https://shop.example?x=/y')).toBe('/?x=/y');
    expect(pathOf('https://shop.example#top')).toBe('/');
    expect(pathOf('https://shop.example/a#b/c')).toBe('/a');
    // A page's query typed by hand (the verdict history's url=): not taken for the home page.
    expect(pathOf('pricing')).toBe('pricing');
    expect(pathOf('javascript:alert(1)')).toBe('javascript:alert(1)');
  });
});
