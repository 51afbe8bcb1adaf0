/**
 * The gate's four reports say the same findings: JUnit that a real XML parser reads
 * (whatever the draft holds), GitHub annotations on the draft's lines that make them,
 * JSON with the verdict and the exit status, and text for people.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { gateReport } from '../../../src/cli/gate-report.js';
import type { GateReport } from '../../../src/monitor/gate.js';
import { gateDraft } from '../../../src/policy/gate.js';

const context = { file: 'robowatch.yaml', cwd: '/srv', env: {}, version: '9.9.9' };
const origin = 'https://shop.example';
const bytes = (text: string) => new TextEncoder().encode(text);
const PATHS = [
  ...Array.from({ length: 200 }, (_, i) => `/blog/post-${i}`),
  ...Array.from({ length: 50 }, (_, i) => `/shop/item-${i}`),
  '/pricing',
];
const LIVE = 'User-agent: *\nDisallow: /admin\n';

const SHOP = `agents: [Googlebot, Bingbot, GPTBot]
sites:
  - url: ${origin}
    name: Shop
    watch: [/, /pricing, /blog/post-1, /shop/item-1]
`;

function reportFor(
  draft: string,
  paths: string[] | null = PATHS,
  live = LIVE,
  newOnly = false,
  configuration = SHOP,
): GateReport {
  const config = parseConfig(configuration, context);
  const site = config.sites[0]!;
  const result = gateDraft({
    profile: site.profile,
    agents: site.agents,
    watches: site.watches,
    intent: site.intent.rules,
    draft: bytes(draft),
    live: { status: 200, error: null, body: bytes(live), cut: null },
    paths,
    thresholds: config.notify.coverage,
    newOnly,
  });
  return {
    site,
    result,
    live: {
      url: `${origin}/robots.txt`,
      status: 200,
      error: null,
      errorDetail: null,
      cut: null,
      redirect: null,
    },
    urlSet:
      paths === null
        ? null
        : { roots: [`${origin}/sitemap.xml`], urls: paths.length, problems: [] },
  };
}

interface Junit {
  readonly testsuites: {
    readonly testsuite: {
      readonly tests: string;
      readonly failures: string;
      readonly skipped: string;
      readonly 'system-out': string;
      readonly testcase: {
        name: string;
        failure?: { type: string; message: string };
        skipped?: unknown;
      }[];
    };
  };
}

/** The report as a CI system's JUnit reader sees it. */
function parseJunit(xml: string): Junit {
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as Junit;
}

/** The JSON report, as much of it as the tests read. */
interface GateJson {
  passed: boolean;
  intent: { from: string; violations: unknown[] };
  coverage: { changes: unknown[] };
}

const at = new Date('2026-11-27T10:00:00Z');
const FILE = 'public/robots,v2.txt';
/** Blocks /pricing (line 4) and 200 blog posts (line 3); a lint warning on line 5. */
const BAD =
  'User-agent: *\nDisallow: /admin\nDisallow: /blog\nDisallow: /pricing\nCrawl-delay: 5\n';

describe('the gate’s reports', () => {
  it('JUnit: valid XML with a test case per watched page and crawler, failures where the draft fails', () => {
    const xml = gateReport('junit', reportFor(BAD), { file: FILE, at });
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = parseJunit(xml).testsuites.testsuite;
    const cases = suite.testcase;
    // The file, four watched pages, three crawlers over the URL set.
    expect(cases.map((c) => c.name)).toEqual([
      'the draft is read as robots.txt',
      `as intended: ${origin}/`,
      `as intended: ${origin}/pricing`,
      `as intended: ${origin}/blog/post-1`,
      `as intended: ${origin}/shop/item-1`,
      'sitemap URL set: Googlebot',
      'sitemap URL set: Bingbot',
      'sitemap URL set: GPTBot',
    ]);
    const failed = cases.filter((c) => c.failure !== undefined).map((c) => c.name);
    expect(failed).toEqual([
      `as intended: ${origin}/pricing`,
      `as intended: ${origin}/blog/post-1`,
      'sitemap URL set: Googlebot',
      'sitemap URL set: Bingbot',
      'sitemap URL set: GPTBot',
    ]);
    expect(Number(suite.failures)).toBe(failed.length);
    expect(Number(suite.tests)).toBe(cases.length);
    expect(cases[2]!.failure!.message).toBe(
      '`/pricing` is blocked for Googlebot and Bingbot, meant to be crawled. Why: Disallow: /pricing (line 4) blocks pages meant to be crawled.',
    );
    expect(cases[5]!.failure!.message).toMatch(/^In all, the draft newly blocks 201 \(80\.1%\)/);
    expect(suite['system-out']).toContain('FAIL: the draft must not ship for Shop (shop.example)');
  });

  it('JUnit stays valid XML whatever the draft holds: markup, quotes, control characters', () => {
    const hostile =
      'User-agent: *\nDisallow: /pricing<script>"&\'\u0001\u001b]]>\nDisallow: /pricing\n\u0002bad: line\n';
    const xml = gateReport('junit', reportFor(hostile), { file: FILE, at });
    expect(XMLValidator.validate(xml)).toBe(true);
    // Characters XML 1.0 forbids even escaped (the validator lets them by; CI readers do not).
    // eslint-disable-next-line no-control-regex
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
    const doc = parseJunit(xml);
    // The lint finding quotes the bad key: its control character shown as an escape.
    expect(doc.testsuites.testsuite['system-out']).toContain('Unknown key "\\x02bad" on line 4');
  });

  it('GitHub: an annotation per finding on the line of the draft that causes it', () => {
    const out = gateReport('github', reportFor(BAD), { file: FILE, at });
    const lines = BAD.split('\n');
    const annotations = out
      .split('\n')
      .filter((l) => l.startsWith('::'))
      .map((l) => {
        const m = /^::(error|warning|notice) ([^:]*)::(.*)$/.exec(l)!;
        const props = Object.fromEntries(
          m[2]!.split(',').map((p) => p.split('=') as [string, string]),
        );
        return { level: m[1], props, message: m[3]! };
      });
    // The path's comma is escaped, so the property list still splits right.
    expect(annotations.every((a) => a.props['file'] === 'public/robots%2Cv2.txt')).toBe(true);
    const errors = annotations.filter((a) => a.level === 'error');
    expect(errors.length).toBeGreaterThanOrEqual(3);
    for (const e of errors) {
      const line = lines[Number(e.props['line']) - 1]!;
      // Each error sits on the rule it quotes.
      expect(e.message).toContain(line.replace('Disallow: ', ''));
      expect(line).toMatch(/^Disallow: \/(blog|pricing)$/);
    }
    expect(annotations.find((a) => a.level === 'notice')).toMatchObject({
      props: { line: '5' },
      message: 'Crawl-delay is ignored by Google; Bing and Yandex honour it.',
    });
    // "%" is escaped in messages (80.1% → 80.1%25): nothing is lost when GitHub reads it.
    expect(out).toContain('(80.1%25)');
    expect(out.trim().split('\n').at(-1)).toMatch(/^FAIL: the draft must not ship for Shop/);
  });

  it('JSON: the verdict, the exit status and each difference with its line', () => {
    const doc = JSON.parse(gateReport('json', reportFor(BAD), { file: FILE, at })) as GateJson;
    expect(doc).toMatchObject({ passed: false, exitCode: 1, site: { origin, name: 'Shop' } });
    // Which intent judged it: the file names none, so the built-in one.
    expect(doc.intent.from).toBe('built-in');
    expect(doc.intent.violations).toContainEqual({
      url: `${origin}/pricing`,
      agent: 'Googlebot',
      expected: 'allowed',
      line: 4,
      why: 'Disallow: /pricing (line 4) blocks pages meant to be crawled',
      live: false,
    });
    expect(doc.coverage.changes[0]).toMatchObject({ newlyDisallowed: 201, significant: true });
    const ok = JSON.parse(gateReport('json', reportFor(LIVE), { file: FILE, at })) as GateJson;
    expect(ok).toMatchObject({ passed: true, exitCode: 0, findings: [] });
  });

  it('with --new-only: a difference the live file already has is a warning, and the verdict says so', () => {
    const live = 'User-agent: *\nDisallow: /pricing\n';
    const report = reportFor(
      'User-agent: *\nDisallow: /pricing\nDisallow: /admin\n',
      null,
      live,
      true,
    );
    const text = gateReport('text', report, { file: FILE, at });
    expect(text).toContain(
      'PASS (--new-only): the draft makes nothing worse for Shop (shop.example); 2 watched page × crawler pairs differ from the intent as live.',
    );
    expect(text).toMatch(
      /Warnings \(1\):\n {2}line 2: Not as intended: .* The live file already does this\./,
    );
    // What the draft adds is what fails it, said as what crawlers would do.
    const worse = reportFor(
      'User-agent: *\nDisallow: /pricing\nDisallow: /blog\n',
      null,
      live,
      true,
    );
    expect(gateReport('text', worse, { file: FILE, at })).toContain(
      'FAIL: the draft must not ship for Shop (shop.example): once deployed, /blog/post-1 would be blocked for Googlebot and Bingbot (2 watched page × crawler pairs newly differ from the intent).',
    );
  });

  it('text: a draft crawlers would not read as robots.txt says what they would do once it is deployed', () => {
    const text = gateReport('text', reportFor('<!doctype html><html><body>Shop</body></html>\n'), {
      file: FILE,
      at,
    });
    expect(text).toContain(
      'FAIL: the draft must not ship for Shop (shop.example): crawlers would not read it as robots.txt.',
    );
    expect(text).toContain(
      'Errors (1):\n  The draft cannot be judged: Once deployed, robots.txt is an HTML page: crawlers find no rules in it and crawl everything.\n',
    );
  });

  it('text: a block of more pairs than are listed is said whole, not only the crawlers listed', () => {
    // 40 pages × the 7 search engines shut: 280 pairs, more than are listed.
    const pages = Array.from({ length: 40 }, (_, i) => `/p${i}`);
    const report = reportFor(
      'User-agent: *\nDisallow: /\n',
      null,
      LIVE,
      false,
      `agents: ['@search']\nsites:\n  - url: ${origin}\n    watch: [${pages.join(', ')}]\n`,
    );
    // In JUnit, every page fails with the block, not only those whose cells are listed.
    const cases = parseJunit(gateReport('junit', report, { file: FILE, at })).testsuites.testsuite
      .testcase;
    const pageCases = cases.filter((c) => c.name.startsWith('as intended: '));
    expect(pageCases).toHaveLength(40);
    expect(new Set(pageCases.map((c) => c.failure?.message))).toEqual(
      new Set([
        'All 280 watched page × crawler pairs differ from the intent as one block: /p0, /p1 and 38 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers.',
      ]),
    );
    const text = gateReport('text', report, { file: FILE, at });
    expect(text).toContain(
      '\nFAIL: the draft must not ship for shop.example: once deployed, /p0, /p1 and 38 more pages would be blocked for Googlebot, Googlebot-Image and 5 more crawlers (280 watched page × crawler pairs differ from the intent).\n',
    );
    expect(text).toMatch(
      / {2}Not as intended: and \d+ more watched page × crawler pairs differ from the intent \(not listed\); all 280 as one block: \/p0, \/p1 and 38 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers\.\n/,
    );
  });

  it('JUnit: past the pairs the text lists, each page still fails with all of its crawlers', () => {
    // 250 blog pages × 2 crawlers blocked, 50 other pages open: 500 pairs, 200 listed.
    const blog = Array.from({ length: 250 }, (_, i) => `/blog/p${i}`);
    const other = Array.from({ length: 50 }, (_, i) => `/shop/p${i}`);
    const report = reportFor(
      'User-agent: *\nDisallow: /blog/\n',
      null,
      LIVE,
      false,
      `agents: [Googlebot, Bingbot]\nsites:\n  - url: ${origin}\n    watch: [${[...blog, ...other].join(', ')}]\n`,
    );
    const suite = parseJunit(gateReport('junit', report, { file: FILE, at })).testsuites.testsuite;
    const byName = new Map(suite.testcase.map((c) => [c.name, c]));
    for (const path of blog)
      expect(byName.get(`as intended: ${origin}${path}`)?.failure?.message).toBe(
        `\`${path}\` is blocked for Googlebot and Bingbot, meant to be crawled. Why: Disallow: /blog/ (line 2) blocks pages meant to be crawled.`,
      );
    for (const path of other) {
      const passed = byName.get(`as intended: ${origin}${path}`);
      expect([passed?.name, passed?.failure]).toEqual([`as intended: ${origin}${path}`, undefined]);
    }
    // Only the sitemap URL set's cases are skipped (not read here), no page's.
    expect([suite.failures, suite.skipped]).toEqual(['250', '2']);
    expect(suite.testcase.filter((c) => c.skipped !== undefined).map((c) => c.name)).toEqual([
      'sitemap URL set: Googlebot',
      'sitemap URL set: Bingbot',
    ]);
    expect(gateReport('text', report, { file: FILE, at })).toContain(
      'FAIL: the draft must not ship for shop.example: once deployed, /blog/p0, /blog/p1 and 248 more pages would be blocked for Googlebot and Bingbot (500 watched page × crawler pairs differ from the intent).',
    );
  });

  it('text: the verdict first, then errors with their lines, then what the draft changes', () => {
    const text = gateReport('text', reportFor(BAD, null), { file: FILE, at });
    expect(text.split('\n').slice(0, 5)).toEqual([
      `robowatch gate: ${FILE} for Shop (shop.example)`,
      'Live file: https://shop.example/robots.txt answers 200',
      'Watched: 4 pages × 3 crawlers; the built-in intent judges 8 pairs; sitemap URL set: not read',
      '',
      'FAIL: the draft must not ship for Shop (shop.example): once deployed, /pricing and /blog/post-1 would be blocked for Googlebot and Bingbot (4 watched page × crawler pairs differ from the intent).',
    ]);
    expect(text).toContain(
      '  line 4: Not as intended: `/pricing` is blocked for Googlebot and Bingbot',
    );
    expect(text).toContain('What the draft changes (');
    expect(gateReport('text', reportFor(LIVE, null), { file: FILE, at })).toContain(
      'PASS: the draft keeps Shop (shop.example) as intended.',
    );
  });
});
