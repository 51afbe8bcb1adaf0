/** The weekly digest: what needs attention, changes as causes, health, AI crawlers; rendered, bounded. */
import { describe, expect, it } from 'vitest';
import type { ChangeCause } from '../../../src/policy/changes/cause-model.js';
import { readFileSync } from 'node:fs';
import { buildDigest } from '../../../src/policy/digest.js';
import { normaliseRegistry } from '../../../src/policy/registry.js';
import { shippedRegistry } from '../../../src/config/registry.js';
import type { DigestChange, DigestSiteInput } from '../../../src/policy/digest.js';
import type { FileCondition } from '../../../src/policy/file-condition.js';
import type { ViolationGrid } from '../../../src/policy/intent.js';
import { linksFrom } from '../../../src/policy/links.js';
import { computeVerdicts } from '../../../src/policy/verdicts.js';
import { digestData, renderDigest } from '../../../src/notify/render-digest.js';

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
const context = { links: linksFrom('https://rw.example.com'), timeZone: 'UTC' };

/** A rule added that newly blocks /blog/ for CCBot, as a check records it. */
const blocks = (pattern = '/blog/'): ChangeCause => ({
  type: 'rule',
  change: 'added',
  group: { agents: ['CCBot'], line: 7 },
  rule: { directive: 'disallow', pattern, line: 8 },
  previous: null,
  readers: ['CCBot'],
  pairs: [{ url: 'https://a.com/blog/', agent: 'CCBot', allowed: false, flipped: true }],
});
const change = (h: number, causes: ChangeCause[] | null, id = 2): DigestChange => ({
  at: hour(h),
  snapshotId: id,
  previousId: id - 1,
  causes,
  events: causes?.length ?? 3,
});

const site = (overrides: Partial<DigestSiteInput> = {}): DigestSiteInput => ({
  siteId: 1,
  origin: 'https://a.com',
  profile: 'google',
  agents,
  changes: [],
  checks: [0, 24, 48].map((h) => ({ at: hour(h), fetch: ok, stale: false })),
  verdicts,
  body,
  now: { fetch: ok, stale: false, since: hour(-100), fileCondition: 'robots' },
  ...overrides,
});

describe('buildDigest', () => {
  it('says all clear when nothing changed, nothing failed and nothing needs attention', () => {
    const digest = buildDigest('seo@a.com', period, [site()]);
    expect(digest.allClear).toBe(true);
    expect(digest.sites[0]!.health).toEqual({
      checks: 3,
      neverChecked: false,
      okShare: 1,
      notRobots: 0,
      incidents: [],
    });
    expect(digest.sites[0]!.attention).toEqual([]);
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
    const registry = shippedRegistry().registry;
    const [summary] = buildDigest('seo@a.com', period, [site()], registry).sites;
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
      site({ checks, changes: [change(3, [blocks()])] }),
    ]);
    expect(digest.allClear).toBe(false);
    expect(digest.sites[0]!.health).toEqual({
      checks: 5,
      neverChecked: false,
      okShare: 0.4,
      notRobots: 0,
      incidents: [
        { start: hour(1), end: hour(3), status: { access: 'unreachable', status: 503 } },
        { start: hour(4), end: null, status: { access: 'unavailable', status: 404 } },
      ],
    });
    // Said as what robots.txt answered, beside the fetch health (not as an intent incident).
    expect(renderDigest(digest, context).text).toMatch(
      /\n {4}Fetch health: 5 checks, 40% found robots\.txt\.\n {4}robots\.txt answered 503 from [^,]+, until [^(]+ \(2 h\)\n {4}robots\.txt answered 404 from [^,]+, still going at the end of the period\n/,
    );
  });

  it('sums up a server that flaps, instead of a line per outage', () => {
    // 503 for an hour, five times over (the last still going), and one timeout.
    const checks = [0, 10, 20, 30, 40].flatMap((h) => [
      { at: hour(h), fetch: { status: 503, error: null }, stale: false },
      { at: hour(h + 1), fetch: ok, stale: false },
    ]);
    checks.push(
      { at: hour(50), fetch: { status: null, error: 'timeout' } as never, stale: false },
      { at: hour(53), fetch: ok, stale: false },
      { at: hour(160), fetch: { status: 503, error: null }, stale: false },
    );
    const digest = buildDigest('seo@a.com', period, [
      site({ checks, changes: [change(3, [blocks()])] }),
    ]);
    const text = renderDigest(digest, context).text;
    expect(text).toContain(
      '    robots.txt answered 503 6 times from 2026-06-01 08:00 on, and still at the end of the period: 13 h in all, the longest 8 h\n',
    );
    // Fewer outages of a kind are each said.
    expect(text).toContain(
      '    robots.txt could not be fetched from 2026-06-03 10:00, until 2026-06-03 13:00 (3 h): no complete answer within the time limit\n',
    );
    const ended = buildDigest('seo@a.com', period, [
      site({ checks: checks.slice(0, -1), changes: [change(3, [blocks()])] }),
    ]);
    expect(renderDigest(ended, context).text).toContain(
      '    robots.txt answered 503 5 times between 2026-06-01 08:00 and 2026-06-03 01:00: 5 h in all, the longest 1 h\n',
    );
  });

  it('says a change made again and again once, with how often and when last', () => {
    // A deploy that adds the rule and a rollback that removes it, four times over.
    const removes = {
      ...blocks(),
      change: 'removed',
      pairs: [{ url: 'https://a.com/blog/', agent: 'CCBot', allowed: true, flipped: true }],
    } as ChangeCause;
    const flips = [0, 1, 2, 3].flatMap((d) => [
      change(24 * d + 1, [blocks()], 2 * d + 2),
      change(24 * d + 2, [removes], 2 * d + 3),
    ]);
    const digest = buildDigest('seo@a.com', period, [site({ changes: flips })]);
    const text = renderDigest(digest, context).text;
    // It blocked one page for one crawler, however often.
    expect(text).toContain(
      '  - a.com: /blog/ is now disallowed for CCBot (Disallow: /blog/, line 8).\n',
    );
    expect(text).toContain(
      [
        '    2026-06-01 09:00  `Disallow: /blog/` added to the CCBot group (line 8), 4 times, the last 2026-06-04 09:00',
        '      now disallowed for CCBot: /blog/',
        '    2026-06-01 10:00  `Disallow: /blog/` removed from the CCBot group (it was line 8), 4 times, the last 2026-06-04 10:00',
        '      now allowed for CCBot: /blog/',
        '    Fetch health',
      ].join('\n'),
    );
  });

  it('does not count an HTML page served with 200 as robots.txt found, in its fetch health', () => {
    // Three checks answered 200: the last two with an HTML page, which holds no rules.
    const checks = [0, 24, 48].map((h) => ({
      at: hour(h),
      fetch: ok,
      stale: false,
      fileCondition: h === 0 ? ('robots' as const) : ('html' as const),
    }));
    const digest = buildDigest('seo@a.com', period, [
      site({ checks, changes: [change(3, [blocks()])] }),
    ]);
    expect(digest.sites[0]!.health).toMatchObject({ checks: 3, okShare: 1, notRobots: 2 });
    const { text } = renderDigest(digest, context);
    expect(text).toContain(
      'Fetch health: 3 checks, all answered with a file; 2 of them a file crawlers cannot read as robots.txt (no rules).',
    );
    expect(text).not.toContain('all found robots.txt');
  });

  it('puts first what needs attention: down, gone, HTML or cut, new blocks', () => {
    const at = (
      fetch: { status: number | null; error: null },
      fileCondition: FileCondition | null,
    ) => site({ now: { fetch, stale: false, since: hour(5), fileCondition } });
    const kinds = (input: DigestSiteInput) =>
      buildDigest('x', period, [input]).sites[0]!.attention.map((a) => a.kind);
    expect(kinds(at({ status: 503, error: null }, 'robots'))).toEqual(['down']);
    expect(kinds(at({ status: 404, error: null }, 'robots'))).toEqual(['gone']);
    expect(kinds(at(ok, 'html'))).toEqual(['not-robots']);
    expect(kinds(at(ok, 'cut'))).toEqual(['cut']);
    expect(kinds(site({ changes: [change(3, [blocks()])] }))).toEqual(['blocks']);
  });

  it('needs attention first when robowatch cannot check a site, saying so and not that crawlers are blocked', () => {
    const refused = site({
      refused: { since: hour(30), reason: '127.0.0.1 is a private or reserved address' },
    });
    const digest = buildDigest('x', period, [refused]);
    expect(digest.sites[0]!.attention.map((a) => a.kind)).toEqual(['refused']);
    const text = renderDigest(digest, context).text;
    expect(text).toContain(
      'a.com: robowatch could not check this site since 2026-06-02 14:00: 127.0.0.1 is a private or reserved address, and robowatch does not fetch such addresses; what crawlers may do now is not known (fetch.allowPrivateAddresses allows it).',
    );
  });
});

describe('renderDigest', () => {
  const twoSites = () =>
    buildDigest('seo@a.com', period, [
      site({ changes: [change(3, [blocks('/<b>x</b>')])] }),
      site({ siteId: 2, origin: 'https://b.com' }),
      site({
        siteId: 3,
        origin: 'https://c.com',
        now: {
          fetch: { status: 503, error: null },
          stale: false,
          since: hour(50),
          fileCondition: 'robots',
        },
      }),
    ]);

  // A site without a name is its host in every part, as its alerts and incident call it.
  it('says what needs attention first, then the changes by site, then the all-clear sites', () => {
    const { subject, text } = renderDigest(twoSites(), context);
    expect(subject).toBe(
      'robowatch digest 2026-06-01 to 2026-06-08: 2 sites need attention (3 sites)',
    );
    const lines = text.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      'robowatch digest for seo@a.com, 2026-06-01 08:00 to 2026-06-08 08:00 (times in UTC).',
      '',
      'Needs attention',
      '  - a.com: /blog/ is now disallowed for CCBot (Disallow: /<b>x</b>, line 8).',
      '    https://rw.example.com/sites/1/diff?from=1&to=2',
      '  - c.com: robots.txt answers 503 since 2026-06-03 10:00: Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again (after 30 days it uses its last good copy).',
      '    https://rw.example.com/sites/3',
      '',
    ]);
    expect(text).toContain(
      '  a.com  https://rw.example.com/sites/1\n    2026-06-01 11:00  `Disallow: /<b>x</b>` added to the CCBot group (line 8)\n      now disallowed for CCBot: /blog/',
    );
    expect(text).toContain(
      'All clear (no change, no incident this period)\n  b.com: 3 checks, all found robots.txt.',
    );
  });

  it('writes times in the configured time zone, and escapes the file in HTML', () => {
    const { text, html } = renderDigest(twoSites(), { ...context, timeZone: 'America/New_York' });
    expect(text).toContain('2026-06-01 04:00 to 2026-06-08 04:00 (times in America/New_York).');
    expect(text).toContain('    2026-06-01 07:00  `Disallow: /<b>x</b>`');
    expect(html).toContain('Disallow: /&lt;b&gt;x&lt;/b&gt;');
    expect(html).not.toContain('<b>x</b>');
  });

  it('has an all-clear line', () => {
    const { subject, text } = renderDigest(buildDigest('seo@a.com', period, [site()]), context);
    expect(subject).toBe('robowatch digest 2026-06-01 to 2026-06-08: all clear (1 site)');
    expect(text).toContain(
      'All clear: no robots.txt changes and no fetch incidents on the 1 site this period.',
    );
  });

  it('stays small with thousands of sites and changes', () => {
    const many = Array.from({ length: 3_000 }, (_, i) =>
      site({
        siteId: i,
        origin: `https://s${i}.example.com`,
        changes: Array.from({ length: 20 }, (_, j) =>
          change(j, [blocks(`/p${j}/${'y'.repeat(50)}`)], j + 2),
        ),
      }),
    );
    const { text, html } = renderDigest(buildDigest('seo@a.com', period, many), context);
    expect(text.length + html.length).toBeLessThan(250_000);
    expect(text).toContain('and 2,900 more sites: https://rw.example.com/');
  });
});

describe('the sitemaps in the digest', () => {
  /** A rule that blocks every product page: most of the sitemap URLs, no watched page. */
  const coverageCause = (newlyDisallowed: number, significant = true): ChangeCause => ({
    type: 'coverage',
    agents: ['Googlebot', 'GPTBot'],
    urls: 306,
    newlyDisallowed,
    newlyAllowed: 0,
    prefixes: [{ prefix: '/products/', urls: newlyDisallowed }],
    rules: [{ directive: 'disallow', pattern: '/products/', line: 3, urls: newlyDisallowed }],
    samples: ['/products/0'],
    significant,
    pairs: [],
  });
  const withCoverage = (causes: ChangeCause[]) =>
    site({
      changes: [change(30, causes)],
      coverage: {
        start: { urls: 306, allowed: { Googlebot: 304, GPTBot: 304, CCBot: 306 } },
        end: { urls: 306, allowed: { Googlebot: 4, GPTBot: 4, CCBot: 306 } },
      },
    });

  it('needs attention when a change blocks a share of the sitemaps, and says where they stand', () => {
    const digest = buildDigest('seo@a.com', period, [withCoverage([coverageCause(300)])]);
    const [summary] = digest.sites;
    expect(summary!.attention.map((a) => a.kind)).toEqual(['coverage']);
    expect(summary!.coverage).toEqual([
      {
        agents: ['Googlebot', 'GPTBot'],
        urls: 306,
        allowed: 4,
        before: { urls: 306, allowed: 304 },
      },
      { agents: ['CCBot'], urls: 306, allowed: 306, before: { urls: 306, allowed: 306 } },
    ]);
    const { text, html } = renderDigest(digest, context);
    expect(text).toContain(
      'a.com: 300 sitemap URLs (98.0%) now disallowed for Googlebot and GPTBot (Disallow: /products/, line 3).',
    );
    expect(text).toContain(
      'Sitemap URLs they may fetch: Googlebot and GPTBot 4 of 306 (1.3%), was 304 of 306 (99.3%) at the start of the period; CCBot 306 of 306 (100%)',
    );
    expect(html).toContain('Sitemap URLs they may fetch:');
    const data = digestData(digest, context) as { attention: { kind: string; link: string }[] };
    expect(data.attention[0]).toMatchObject({
      kind: 'coverage',
      link: 'https://rw.example.com/sites/1/diff?from=1&to=2',
    });
  });

  it('says sitemaps that list no URL of the site say nothing of coverage, not "0 of 0"', () => {
    const empty = site({
      changes: [change(3, [blocks()])],
      coverage: {
        start: { urls: 0, allowed: { Googlebot: 0, GPTBot: 0 } },
        end: { urls: 0, allowed: { Googlebot: 0, GPTBot: 0 } },
      },
    });
    const { text } = renderDigest(buildDigest('seo@a.com', period, [empty]), context);
    expect(text).not.toContain('0 of 0');
    expect(text).toContain(
      'Sitemaps: they list no URL of this site (or could not be read), so robowatch cannot say how much of them crawlers may fetch.',
    );
  });

  it('does not need attention for a change under notify.coverage, nor without sitemaps', () => {
    const small = buildDigest('seo@a.com', period, [withCoverage([coverageCause(2, false)])]);
    expect(small.sites[0]!.attention).toEqual([]);
    expect(buildDigest('seo@a.com', period, [site()]).sites[0]!.coverage).toEqual([]);
    expect(renderDigest(buildDigest('seo@a.com', period, [site()]), context).text).not.toContain(
      'Sitemap URLs',
    );
  });
});

describe("the registry's AI crawlers in the digest", () => {
  const registry = normaliseRegistry(
    JSON.parse(
      readFileSync(new URL('../../../registry/ai-robots.json', import.meta.url), 'utf8'),
    ) as unknown,
  );
  // GPTBot named and kept out; the rest of the training crawlers through *, while the
  // file asks not to train: those that say they obey robots.txt contradict it.
  const file = new TextEncoder().encode(
    'User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n',
  );

  it('says per purpose how many are blocked, allowed by name or through *, and contradict', () => {
    const digest = buildDigest(
      'seo@a.com',
      period,
      [site({ body: file, changes: [change(30, [blocks()])] })],
      registry,
    );
    const training = digest.sites[0]!.aiPurposes.find((p) => p.purpose === 'training')!;
    const all = registry.agents.filter((a) => a.purposes.includes('training')).length;
    expect(training.blocked).toBe(1); // GPTBot
    expect(training.named).toBe(0);
    expect(training.throughStar).toBe(all - 1);
    expect(training.contradictions).toBeGreaterThan(0);
    expect(training.contradictions).toBeLessThan(all - 1); // not those that do not obey
    const { text } = renderDigest(digest, context);
    expect(text).toMatch(
      new RegExp(
        `AI crawlers in the registry, by purpose: AI training: 1 blocked, ${all - 1} allowed through \\* \\(.+\\), ${training.contradictions} contradict the usage lines; AI search: `,
      ),
    );
  });

  it('says for the operators with the most crawlers how many are kept out', () => {
    const digest = buildDigest(
      'seo@a.com',
      period,
      [site({ body: file, changes: [change(30, [blocks()])] })],
      registry,
    );
    const operators = digest.sites[0]!.aiOperators;
    expect(operators).toHaveLength(8);
    // GPTBot alone is kept out: OpenAI 1 of its 5; Google's 8 crawlers all read *.
    expect(operators.find((o) => o.operator === 'OpenAI')).toEqual({
      operator: 'OpenAI',
      crawlers: 5,
      blocked: 1,
    });
    expect(operators[0]).toEqual({ operator: 'Google', crawlers: 8, blocked: 0 });
    expect(renderDigest(digest, context).text).toContain(
      'By operator, kept out of the home page: Google 0 of 8, ',
    );
  });

  it('says nothing of them for an all-clear site, or without a registry', () => {
    expect(
      buildDigest('seo@a.com', period, [site({ body: file })], registry).sites[0]!.aiPurposes,
    ).toEqual([]);
    const changed = site({ body: file, changes: [change(30, [blocks()])] });
    expect(buildDigest('seo@a.com', period, [changed]).sites[0]!.aiPurposes).toEqual([]);
  });
});

describe('needs attention', () => {
  it('is what is still wrong at the end of the period: a block lifted since is not listed', () => {
    const blocking = buildDigest('seo@a.com', period, [site({ changes: [change(3, [blocks()])] })]);
    expect(blocking.sites[0]!.attention.map((a) => a.kind)).toEqual(['blocks']);
    const lifted = buildDigest('seo@a.com', period, [
      site({
        changes: [change(3, [blocks()])],
        verdicts: verdicts.map((v) => ({ ...v, allowed: true, cause: null })),
      }),
    ]);
    expect(lifted.sites[0]!.attention).toEqual([]);
    // The change is still reported, as what happened in the period.
    expect(lifted.sites[0]!.changes).toHaveLength(1);
  });
});

describe('needs attention, for a site judged against its intent', () => {
  const blockedOnPurpose = site({
    changes: [change(3, [blocks()])],
    intent: {
      state: 'as-intended',
      since: hour(4),
      violations: [],
      violationCount: 0,
      reason: null,
    },
  });
  const pricing = {
    url: 'https://a.com/pricing',
    agent: 'Googlebot',
    expected: 'allowed' as const,
    cause: { type: 'rule' as const, directive: 'disallow' as const, pattern: '/pricing', line: 4 },
  };

  it('does not list a page blocked on purpose, though a change blocked it this period', () => {
    const digest = buildDigest('seo@a.com', period, [blockedOnPurpose]);
    expect(digest.sites[0]!.attention).toEqual([]);
    expect(digest.sites[0]!.intent).toBe('as-intended');
    // What happened is still said, with the site's standing.
    const email = renderDigest(digest, context);
    expect(email.text).not.toContain('Needs attention');
    expect(email.text).toContain('Against intent: as its owner intends.');
    expect(email.text).toContain('Disallow: /blog/');
  });

  it('lists what differs from the intent at the digest’s time, with its cause', () => {
    const digest = buildDigest('seo@a.com', period, [
      site({
        name: 'Shop',
        intent: {
          state: 'not-as-intended',
          since: hour(30),
          violations: [pricing, { ...pricing, agent: 'Bingbot' }],
          violationCount: 2,
          reason: null,
        },
      }),
    ]);
    expect(digest.sites[0]!.attention.map((a) => a.kind)).toEqual(['intent']);
    const email = renderDigest(digest, context);
    expect(email.subject).toContain('1 site needs attention');
    // Several cells: said as the incident's alert says them.
    expect(email.text).toContain(
      'Shop (a.com): Not as intended since 2026-06-02 14:00: /pricing is blocked for Googlebot and Bingbot. Why: Disallow: /pricing (line 4) blocks pages meant to be crawled.',
    );
    expect(email.html).toContain('/pricing is blocked for Googlebot and Bingbot.');
  });

  it('says a block past the cells kept whole, as its incident alert did', () => {
    const crawlers = [
      'Googlebot',
      'Bingbot',
      'DuckDuckBot',
      'Applebot',
      'YandexBot',
      'Slurp',
      'Baiduspider',
    ];
    // The first 200 of 40 pages × 7 crawlers are kept, crawler by crawler within a page.
    const cells = Array.from({ length: 40 }, (_, p) =>
      crawlers.map((agent) => ({ ...pricing, url: `https://a.com/p${p}`, agent })),
    ).flat();
    const judged = (grid?: ViolationGrid) =>
      renderDigest(
        buildDigest('seo@a.com', period, [
          site({
            intent: {
              state: 'not-as-intended',
              since: hour(30),
              violations: cells.slice(0, 200),
              violationCount: 280,
              reason: null,
              ...(grid === undefined ? {} : { grid }),
            },
          }),
        ]),
        context,
      ).text;
    expect(
      judged({
        expected: 'allowed',
        paths: ['/p0', '/p1', '/p2'],
        pathCount: 40,
        agents: crawlers.slice(0, 3),
        agentCount: 7,
      }),
    ).toContain(
      'a.com: Not as intended since 2026-06-02 14:00: /p0, /p1 and 38 more pages are blocked for Googlebot, Bingbot and 5 more crawlers. Why:',
    );
    // A state judged before the block was kept: the first pair, and how many more.
    expect(judged()).toContain(
      'a.com: Not as intended since 2026-06-02 14:00: /p0 is blocked for Googlebot, and 279 more page × crawler pairs differ. Why:',
    );
  });

  it('says a missing file only where the owner meant to keep pages out', () => {
    const gone = {
      fetch: { status: 404, error: null },
      stale: false,
      since: hour(5),
      fileCondition: null,
    };
    const fine = buildDigest('seo@a.com', period, [
      site({
        now: gone,
        intent: {
          state: 'as-intended',
          since: hour(5),
          violations: [],
          violationCount: 0,
          reason: null,
        },
      }),
    ]);
    expect(fine.sites[0]!.attention).toEqual([]);
    const open = buildDigest('seo@a.com', period, [
      site({
        now: gone,
        intent: {
          state: 'not-as-intended',
          since: hour(5),
          violations: [
            {
              url: 'https://a.com/admin',
              agent: 'Googlebot',
              expected: 'disallowed',
              cause: { type: 'access', access: 'unavailable' },
            },
          ],
          violationCount: 1,
          reason: null,
        },
      }),
    ]);
    expect(open.sites[0]!.attention.map((a) => a.kind)).toEqual(['gone', 'intent']);
  });

  it('tells what broke and recovered in the period, with how long, apart from what needs attention', () => {
    const digest = buildDigest('seo@a.com', period, [
      site({
        intent: {
          state: 'as-intended',
          since: hour(50),
          violations: [],
          violationCount: 0,
          reason: null,
        },
        recovered: [
          {
            id: 7,
            openedAt: hour(48),
            resolvedAt: hour(50),
            siteState: 'not-as-intended',
            causes: ['Disallow: /pricing (line 4) blocks pages meant to be crawled'],
            worstCount: 3,
          },
        ],
      }),
    ]);
    expect(digest.allClear).toBe(false);
    expect(digest.sites[0]!.attention).toEqual([]);
    const email = renderDigest(digest, context);
    expect(email.text).toContain('Broke and recovered this period');
    expect(email.text).toContain(
      'a.com was not as intended (at worst 3 watched page × crawler pairs) from 2026-06-03 08:00 to 2026-06-03 10:00 (2 h): Disallow: /pricing (line 4) blocks pages meant to be crawled; as intended since.',
    );
    expect(email.text).toContain('https://rw.example.com/incidents/7');
    const data = digestData(digest, context) as { recovered: { incident: number }[] };
    expect(data.recovered.map((r) => r.incident)).toEqual([7]);
  });
});

describe('a site whose robots.txt as a whole decides, in the digest', () => {
  it('says it cannot be judged against the intent, and a recovered outage says why, never "could not be checked"', () => {
    const down = site({
      now: {
        fetch: { status: 503, error: null },
        stale: false,
        since: hour(50),
        fileCondition: 'robots',
      },
      intent: {
        state: 'cannot-check',
        since: hour(50),
        violations: [],
        violationCount: 0,
        reason: 'robots.txt answers 503: Google crawls nothing on the site while it does',
      },
    });
    const recovered = site({
      siteId: 2,
      origin: 'https://b.com',
      intent: {
        state: 'as-intended',
        since: hour(42),
        violations: [],
        violationCount: 0,
        reason: null,
      },
      recovered: [
        {
          id: 9,
          openedAt: hour(40),
          resolvedAt: hour(42),
          siteState: 'cannot-check',
          causes: ['robots.txt answers 503: Google crawls nothing on the site while it does'],
          worstCount: 0,
        },
      ],
    });
    const text = renderDigest(buildDigest('seo@a.com', period, [down, recovered]), context).text;
    expect(text).toContain(
      'Against intent: not judged page by page now ("Needs attention" says why).',
    );
    expect(text).toContain(
      'b.com could not be judged against its owner’s intent from 2026-06-03 00:00 to 2026-06-03 02:00 (2 h): robots.txt answers 503: Google crawls nothing on the site while it does; as intended since.',
    );
    expect(text).not.toContain('could not be checked');
  });
});

describe('what broke and recovered, and what became of the site after', () => {
  const recovered = (id: number, from: number, to: number) => ({
    id,
    openedAt: hour(from),
    resolvedAt: hour(to),
    siteState: 'not-as-intended' as const,
    causes: ['Disallow: /pricing (line 4) blocks pages meant to be crawled'],
    worstCount: 1,
  });

  it('says a site broke again after an incident, rather than "as intended since"', () => {
    const flapping = site({
      intent: {
        state: 'not-as-intended',
        since: hour(60),
        violations: [],
        violationCount: 1,
        reason: null,
      },
      recovered: [recovered(7, 40, 42), recovered(8, 50, 52)],
    });
    const digest = buildDigest('seo@a.com', period, [flapping]);
    const lines = renderDigest(digest, context)
      .text.split('\n')
      .filter((l) => l.startsWith('  - a.com was not as intended'));
    expect(lines).toEqual([
      '  - a.com was not as intended (at worst 1 watched page × crawler pair) from 2026-06-03 00:00 to 2026-06-03 02:00 (2 h): Disallow: /pricing (line 4) blocks pages meant to be crawled; it broke again at 2026-06-03 10:00.',
      '  - a.com was not as intended (at worst 1 watched page × crawler pair) from 2026-06-03 10:00 to 2026-06-03 12:00 (2 h): Disallow: /pricing (line 4) blocks pages meant to be crawled; it is broken again now (under "Needs attention").',
    ]);
    const data = digestData(digest, context) as { recovered: { text: string }[] };
    expect(data.recovered.map((r) => r.text.split('; ').at(-1))).toEqual([
      'it broke again at 2026-06-03 10:00.',
      'it is broken again now (under "Needs attention").',
    ]);
  });
});

describe('a site never checked, in a preview that gives it no row', () => {
  it('is not checked yet, says nothing of the AI crawlers, and links to the overview', () => {
    const digest = buildDigest(
      'seo@a.com',
      period,
      [
        site({ changes: [change(3, [blocks()])] }),
        site({
          siteId: null,
          origin: 'https://new.example',
          checks: [],
          verdicts: [],
          body: null,
          now: null,
        }),
      ],
      shippedRegistry().registry,
    );
    const { text } = renderDigest(digest, context);
    // Before any verdict, "AI crawlers: allowed: GPTBot, CCBot, ClaudeBot" would be a guess.
    expect(text).toContain(
      'All clear (no change, no incident this period)\n  new.example: Not checked yet: its robots.txt has not been fetched, so nothing is known of what crawlers may fetch there.',
    );
    expect(text).not.toMatch(/fetch there\. AI crawlers/);
    const data = digestData(digest, context) as { sites: { site: string; link: string }[] };
    expect(data.sites.map((s) => [s.site, s.link])).toEqual([
      ['https://a.com', 'https://rw.example.com/sites/1'],
      ['https://new.example', 'https://rw.example.com/'],
    ]);
  });
});

describe('digest data, for webhooks', () => {
  it("carries the attention list and each site's changes in words, with links", () => {
    const digest = buildDigest('hook', period, [
      site({ name: 'Shop', changes: [change(3, [blocks()])] }),
    ]);
    const data = digestData(digest, context) as {
      attention: unknown[];
      sites: { changes: unknown[] }[];
    };
    expect(data.attention).toEqual([
      {
        site: 'https://a.com',
        name: 'Shop',
        kind: 'blocks',
        text: '/blog/ is now disallowed for CCBot (Disallow: /blog/, line 8).',
        link: 'https://rw.example.com/sites/1/diff?from=1&to=2',
      },
    ]);
    // Each line of the digest calls the site by its name, with its host.
    const { text } = renderDigest(digest, context);
    expect(text).toContain('Shop (a.com): /blog/ is now disallowed for CCBot');
    expect(data.sites[0]!.changes).toEqual([
      {
        at: '2026-06-01 11:00',
        title: '`Disallow: /blog/` added to the CCBot group (line 8)',
        consequence: 'now disallowed for CCBot: /blog/',
      },
    ]);
  });
});
