/**
 * The explanation layer: a change between two states of a site as causes, each with its
 * consequence and the pairs it explains. Scenarios with the default crawler presets
 * (24 crawlers), and the exactly-once invariant on real histories.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtInPresets, DEFAULT_AGENTS } from '../../../src/config/agents.js';
import { shippedRegistry } from '../../../src/config/registry.js';
import {
  CHANGED_TOPICS,
  causeAlerts,
  flippedCount,
} from '../../../src/policy/changes/cause-model.js';
import type {
  ChangeCause,
  GroupCause,
  RuleCause,
} from '../../../src/policy/changes/cause-model.js';
import { causesOfChange } from '../../../src/policy/changes/causes.js';
import { answeredFrom } from '../../../src/policy/fetch-result.js';
import { causeHeadline, explainCause } from '../../../src/policy/wording/explain.js';
import { computeVerdicts } from '../../../src/policy/verdicts.js';
import type { WatchedAgent } from '../../../src/policy/verdicts.js';
import { checkHistory, readVersions } from '../../support/cause-check.js';
import { fixturePath } from '../../support/fixtures.js';

const AGENT_PRESETS = builtInPresets(shippedRegistry().registry);
const agents: WatchedAgent[] = DEFAULT_AGENTS.flatMap((entry) =>
  entry.startsWith('@') ? AGENT_PRESETS[entry]! : [entry],
)
  // Applebot is a search engine's crawler and in the AI registry: watched once.
  .filter((t, i, all) => all.findIndex((u) => u.toLowerCase() === t.toLowerCase()) === i)
  .map((token) => ({ token, profile: 'google' }));
const tokens = agents.map((a) => a.token);
const SITE = 'https://shop.example.com';
const watches = ['/', '/pricing', '/cart', '/politics/vote', '/private/x', '/blog/post'].map(
  (p) => SITE + p,
);

const encode = (text: string) => new TextEncoder().encode(text);

/** Twelve Disallow rules for everyone, and GPTBot kept out of the blog. */
const FILE =
  'User-agent: *\n' +
  ['/cart', '/private/', '/tmp/', '/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h', '/i']
    .map((p) => `Disallow: ${p}\n`)
    .join('') +
  '\nUser-agent: GPTBot\nDisallow: /blog/\n';

interface Served {
  readonly status: number | null;
  readonly error?: 'too-many-redirects' | 'dns';
  readonly body?: string | Uint8Array;
  readonly truncated?: boolean;
  /** Where it was answered from (answeredFrom); absent: not known. */
  readonly from?: string | null;
}

/** The state a check records for what a server served, carrying the last good copy. */
function stateOf(served: Served, lastGood: Uint8Array | null) {
  const fetch = { status: served.status, error: served.error ?? null };
  const ok = served.status !== null && served.status >= 200 && served.status < 300;
  const body =
    ok && served.body !== undefined
      ? typeof served.body === 'string'
        ? encode(served.body)
        : served.body
      : null;
  const good = body ?? lastGood;
  return {
    fetch,
    stale: false,
    ...(served.from === undefined ? {} : { answeredFrom: served.from }),
    lastGood: good && { body: good, truncated: served.truncated ?? false, cut: null },
    verdicts: computeVerdicts({ fetch, body, lastGoodBody: good, stale: false }, watches, agents),
  };
}

function explain(before: Served, after: Served, since?: Date): ChangeCause[] {
  const b = stateOf(before, null);
  const a = stateOf(after, b.lastGood?.body ?? null);
  return causesOfChange({
    profile: 'google',
    agents,
    before: b,
    after: a,
    ...(since ? { since: { access: since, file: since } } : {}),
  });
}

const at = new Date('2026-11-23T03:12:00Z');
const words = (cause: ChangeCause) => explainCause(cause, { agents: tokens, at }, 10);
const headline = (cause: ChangeCause) => causeHeadline(cause, { agents: tokens, at });

describe('status changes, in crawl terms', () => {
  it('a 503: one cause, first, that says Google crawls nothing, with every pair it blocks', () => {
    const causes = explain({ status: 200, body: FILE }, { status: 503 });
    expect(causes.map((c) => c.type)).toEqual(['fetch_status']);
    const [cause] = causes;
    expect(headline(cause!)).toBe('robots.txt answers 503 (Google crawls nothing)');
    expect(words(cause!).consequence).toMatch(
      /^Google treats the whole site as disallowed: it crawls nothing/,
    );
    // Allowed before, disallowed now: every such pair, all explained here.
    const allowedBefore = stateOf({ status: 200, body: FILE }, null).verdicts.filter(
      (v) => v.allowed,
    ).length;
    expect(flippedCount(cause!)).toBe(allowedBefore);
    expect(cause!.pairs.every((p) => !p.allowed)).toBe(true);
    expect(causeAlerts(cause!, CHANGED_TOPICS)).toBe(true);
  });

  it('a 404: every URL crawlable, and the file’s Disallow rules set aside', () => {
    const [cause, ...rest] = explain({ status: 200, body: FILE }, { status: 404 });
    expect(rest).toEqual([]);
    expect(headline(cause!)).toBe('robots.txt answers 404 (every URL crawlable)');
    expect(words(cause!).consequence).toBe(
      "Every URL is crawlable; the file's 13 Disallow rules no longer apply.",
    );
  });

  it('a redirect loop is treated like a 404', () => {
    const [cause] = explain(
      { status: 200, body: FILE },
      { status: 301, error: 'too-many-redirects' },
    );
    expect(headline(cause!)).toBe(
      'robots.txt redirects more than 5 times (treated like a 404: every URL crawlable)',
    );
    expect(words(cause!).consequence).toMatch(/^Google treats a redirect loop like a 404: as/);
  });

  it('404 → 410 is the same for crawlers: reported as such, not alerted by default', () => {
    const [cause, ...rest] = explain({ status: 404 }, { status: 410 });
    expect(rest).toEqual([]);
    expect(cause).toMatchObject({ type: 'fetch_status', effectChanged: false, pairs: [] });
    expect(headline(cause!)).toBe('robots.txt answers 410 instead of 404');
    expect(words(cause!).consequence).toBe('Same effect for crawlers: every URL stays crawlable.');
    expect(causeAlerts(cause!, CHANGED_TOPICS)).toBe(false);
  });

  it('a recovery says how long the incident lasted', () => {
    const since = new Date(at.getTime() - (3 * 60 + 20) * 60_000);
    const [cause] = explain({ status: 503 }, { status: 200, body: FILE }, since);
    expect(words(cause!).title).toBe('robots.txt answers 200 again after 3 h 20 min of 503');
    expect(cause!.pairs.every((p) => p.allowed)).toBe(true);
  });
});

describe('where robots.txt is answered from', () => {
  const WWW = 'https://www.example.net/robots.txt';
  const titles = (before: Served, after: Served) =>
    explain(before, after).map((c) => `${c.type}: ${words(c).title}`);

  it('a redirect to another host, the same file: one cause, no page changes, not alerted by default', () => {
    const causes = explain(
      { status: 200, body: FILE, from: null },
      { status: 200, body: FILE, from: WWW },
    );
    expect(causes).toEqual([{ type: 'source', before: null, after: WWW, pairs: [] }]);
    expect(words(causes[0]!)).toMatchObject({
      title: `robots.txt now redirects to ${WWW}`,
      consequence: `Crawlers follow up to five redirects: what ${WWW} answers is this site's robots.txt.`,
    });
    expect(causeAlerts(causes[0]!, CHANGED_TOPICS)).toBe(false);
    expect(causeAlerts(causes[0]!, ['redirect_changed'])).toBe(true);
  });

  it('a redirect ended or moved says where it went', () => {
    expect(
      titles({ status: 200, body: FILE, from: WWW }, { status: 200, body: FILE, from: null }),
    ).toEqual([`source: robots.txt no longer redirects to ${WWW}`]);
    expect(
      titles(
        { status: 200, body: FILE, from: WWW },
        { status: 200, body: FILE, from: 'https://cdn.example.net/site/robots.txt' },
      ),
    ).toEqual([
      `source: robots.txt now redirects to https://cdn.example.net/site/robots.txt, not ${WWW}`,
    ]);
  });

  it('a redirect to a file with other rules: the move and the rules, each its own cause', () => {
    const causes = explain(
      { status: 200, body: FILE, from: null },
      {
        status: 200,
        body: FILE.replace('Disallow: /tmp/\n', 'Disallow: /tmp/\nDisallow: /pricing\n'),
        from: WWW,
      },
    );
    expect(causes.map((c) => c.type).sort()).toEqual(['rule', 'source']);
    expect(causes.find((c) => c.type === 'source')!.pairs).toEqual([]);
  });

  it('http → https on the same host, or another query string, is not a move', () => {
    const site = 'http://shop.example.com';
    expect(
      answeredFrom({ finalUrl: 'https://shop.example.com/robots.txt', error: null }, site),
    ).toBe(null);
    expect(
      answeredFrom({ finalUrl: 'https://www.example.net/robots.txt?session=1', error: null }, site),
    ).toBe(WWW);
    // A redirect loop answers from nowhere: it is a status, not a place.
    expect(answeredFrom({ finalUrl: WWW, error: 'too-many-redirects' }, site)).toBe(null);
    expect(
      explain({ status: 200, body: FILE, from: WWW }, { status: 200, body: FILE, from: `${WWW}` }),
    ).toEqual([]);
  });

  it('where a side was answered from is not known (a state recorded before): no cause', () => {
    expect(explain({ status: 200, body: FILE }, { status: 200, body: FILE, from: WWW })).toEqual(
      [],
    );
  });
});

describe('a file that is not robots.txt', () => {
  it('an HTML page served with 200 alerts like the 404 it amounts to', () => {
    const causes = explain(
      { status: 200, body: FILE },
      { status: 200, body: '<!DOCTYPE html>\n<html><head><title>Oops</title></head></html>' },
    );
    expect(causes.map((c) => c.type)).toEqual(['file_condition']);
    expect(headline(causes[0]!)).toBe('robots.txt is an HTML page (every URL crawlable)');
    expect(words(causes[0]!).consequence).toBe(
      "Crawlers find no rules in an HTML page, so every URL is crawlable, as with a 404; the previous file's 13 Disallow rules no longer apply.",
    );
    expect(causes[0]!.pairs.length).toBeGreaterThan(0);
    expect(causeAlerts(causes[0]!, CHANGED_TOPICS)).toBe(true);
  });

  it('a file past 500 KiB: cut, and its 14,000 rules summed up in one cause', () => {
    const big =
      'User-agent: *\n' +
      Array.from(
        { length: 14_000 },
        (_, i) => `Disallow: /archive/${i}/page-${'x'.repeat(30)}\n`,
      ).join('');
    expect(big.length).toBeGreaterThan(512_000);
    const causes = explain(
      { status: 200, body: FILE },
      { status: 200, body: encode(big).slice(0, 512_000), truncated: true },
    );
    const cut = causes.find((c) => c.type === 'file_condition')!;
    expect(headline(cut)).toBe('robots.txt is over 500 KiB (the rest is ignored)');
    expect(causeAlerts(cut, CHANGED_TOPICS)).toBe(true);
    // The rules that decided watched pages are causes of their own …
    expect(causes.filter((c) => c.type === 'rule').map((c) => words(c).title)).toEqual([
      '`Disallow: /cart` removed from the `*` group (it was line 2)',
      '`Disallow: /private/` removed from the `*` group (it was line 3)',
      '`Disallow: /b` removed from the `*` group (it was line 6)',
    ]);
    // … and the thousands of others are one.
    const summary = causes.find((c) => c.type === 'rules')!;
    expect(words(summary).title).toMatch(
      /^\d,\d{3} rules added, 9 rules removed in the `\*` group \(line 1\)$/,
    );
    // Ten of each kind as examples, additions first; the rest counted.
    expect(words(summary).details).toHaveLength(19);
    expect(words(summary).details[0]).toBe(
      '+ Disallow: /archive/0/page-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (line 2)',
    );
    expect(words(summary).detailsMore).toBeGreaterThan(8_000);
    expect(causes.length).toBeLessThan(10);
  });
});

describe('rule and group changes', () => {
  it('one rule added to `*` is one cause, with every crawler that reads `*`', () => {
    const causes = explain(
      { status: 200, body: FILE },
      { status: 200, body: FILE.replace('Disallow: /i\n', 'Disallow: /i\nDisallow: /politics/\n') },
    );
    expect(causes).toHaveLength(1);
    const cause = causes[0] as RuleCause;
    expect(words(cause).title).toBe('`Disallow: /politics/` added to the `*` group (line 14)');
    expect(words(cause).lines).toEqual([
      'now disallowed for all 44 crawlers that read the `*` group: /politics/vote',
    ]);
    expect(headline(cause)).toBe(
      '/politics/vote is now disallowed for 44 crawlers (Disallow: /politics/, line 14)',
    );
  });

  it('a new Googlebot group that shadows `*`: one group cause, pairs both ways', () => {
    const causes = explain(
      { status: 200, body: FILE },
      { status: 200, body: `${FILE}\nUser-agent: Googlebot\nDisallow: /pricing\n` },
    );
    const group = causes.find((c) => c.type === 'group') as GroupCause;
    expect(group.moved).toEqual([{ agent: 'Googlebot', from: 'star', to: 'own' }]);
    expect(words(group).consequence).toBe(
      'Googlebot now reads this group instead of the `*` group.',
    );
    // /cart is crawlable for Googlebot again: not "rule removed", not a contradiction.
    expect(group.pairs).toContainEqual({
      url: `${SITE}/cart`,
      agent: 'Googlebot',
      allowed: true,
      flipped: true,
    });
    expect(group.pairs).toContainEqual({
      url: `${SITE}/pricing`,
      agent: 'Googlebot',
      allowed: false,
      flipped: true,
    });
    // Nothing else claims a Googlebot pair.
    expect(causes.filter((c) => c !== group).flatMap((c) => c.pairs)).toEqual([]);
  });

  it('an edited rule is one change, not a removal and an addition', () => {
    const causes = explain(
      { status: 200, body: FILE },
      { status: 200, body: FILE.replace('Disallow: /private/\n', 'Disallow: /private/y/\n') },
    );
    expect(causes.map((c) => words(c).title)).toEqual([
      'line 3 of the `*` group changed from `Disallow: /private/` to `Disallow: /private/y/`',
    ]);
    expect(words(causes[0]!).lines).toEqual([
      'now allowed for all 44 crawlers that read the `*` group: /private/x',
    ]);
  });

  it('an outage between two edits does not hide them', () => {
    const b = stateOf({ status: 200, body: FILE }, null);
    const down = stateOf({ status: 503 }, b.lastGood!.body);
    const edited = FILE.replace('Disallow: /i\n', 'Disallow: /i\nDisallow: /pricing\n');
    const up = stateOf({ status: 200, body: edited }, b.lastGood!.body);
    const causes = causesOfChange({ profile: 'google', agents, before: down, after: up });
    const rule = causes.find((c) => c.type === 'rule')!;
    expect(words(rule).title).toBe('`Disallow: /pricing` added to the `*` group (line 14)');
    // /pricing was disallowed during the outage and still is: not a flip, but a change
    // from the file before it, said as such.
    expect(rule.pairs.every((p) => !p.flipped && !p.allowed)).toBe(true);
  });
});

describe('every changed pair is explained by exactly one cause', () => {
  const sites = readdirSync(fixturePath('history')).filter((f) => f !== 'MANIFEST.json');
  it('has histories to replay', () => expect(sites.length).toBeGreaterThanOrEqual(5));
  it.each(sites)('%s', (site) => {
    const { problems, steps } = checkHistory(readVersions(fixturePath(`history/${site}`)));
    expect(steps).toBeGreaterThan(3);
    expect(problems).toEqual([]);
  });
});
