/** The semantic diff: change events between two states of a site. */
import { describe, expect, it } from 'vitest';
import {
  diffStates,
  effectiveRules,
  boundEvents,
  eventJson,
  sitemapsOf,
} from '../../../src/policy/changes/events.js';
import type { StateView } from '../../../src/policy/changes/events.js';
import { computeVerdicts } from '../../../src/policy/verdicts.js';
import type { WatchedAgent } from '../../../src/policy/verdicts.js';

const SITE = 'https://e.com';
const agents = [
  { token: 'Googlebot', profile: 'google' as const },
  { token: 'GPTBot', profile: 'google' as const },
];
const watches = ['https://e.com/', 'https://e.com/a', 'https://e.com/b'];

function view(text: string | null, status = 200): StateView {
  const body = text === null ? null : new TextEncoder().encode(text);
  const access =
    status >= 200 && status < 300 ? 'ok' : status >= 500 ? 'unreachable' : 'unavailable';
  return {
    fetchStatus: { access, status },
    verdicts: computeVerdicts(
      { fetch: { status, error: null }, body, lastGoodBody: body, stale: false },
      watches,
      agents,
    ),
    rules: body ? effectiveRules(body, agents) : null,
    sitemaps: body ? sitemapsOf(body) : null,
  };
}

/** A 200 answer's verdicts for these URLs and crawlers, without its rules and sitemaps. */
function pairsView(
  text: string,
  urls: readonly string[],
  crawlers: readonly WatchedAgent[],
): StateView {
  const body = new TextEncoder().encode(text);
  return {
    fetchStatus: { access: 'ok', status: 200 },
    verdicts: computeVerdicts(
      { fetch: { status: 200, error: null }, body, lastGoodBody: body, stale: false },
      urls,
      crawlers,
    ),
    rules: null,
    sitemaps: null,
  };
}

describe('diffStates', () => {
  it('emits nothing for a baseline', () => {
    expect(diffStates(SITE, null, view('User-agent: *\nDisallow: /'))).toEqual([]);
  });

  it('reports verdicts that flip, with the rule that now decides', () => {
    const events = diffStates(
      SITE,
      view('User-agent: *\nDisallow: /a\n'),
      view('User-agent: *\nDisallow: /b\n'),
    );
    expect(events.filter((e) => e.type !== 'rules_changed')).toEqual([
      {
        type: 'newly_disallowed',
        site: SITE,
        url: 'https://e.com/b',
        agent: 'Googlebot',
        cause: { type: 'rule', directive: 'disallow', pattern: '/b', line: 2 },
      },
      {
        type: 'newly_disallowed',
        site: SITE,
        url: 'https://e.com/b',
        agent: 'GPTBot',
        cause: { type: 'rule', directive: 'disallow', pattern: '/b', line: 2 },
      },
      // No rule allows /a now: the cause is the rule that stopped applying.
      {
        type: 'newly_allowed',
        site: SITE,
        url: 'https://e.com/a',
        agent: 'Googlebot',
        cause: { type: 'rule', directive: 'disallow', pattern: '/a', line: 2 },
      },
      {
        type: 'newly_allowed',
        site: SITE,
        url: 'https://e.com/a',
        agent: 'GPTBot',
        cause: { type: 'rule', directive: 'disallow', pattern: '/a', line: 2 },
      },
    ]);
  });

  it('writes each event out as JSON.stringify does, quotes and other scripts included', () => {
    const site = 'https://xn--bcher-kva.example';
    const urls = [`${site}/"quoted"/a`, `${site}/b\\ü?q=1`, `${site}/ok`];
    const agentsWithQuotes = [...agents, { token: 'Bot"1', profile: 'rfc9309' as const }];
    const state = (text: string) => pairsView(text, urls, agentsWithQuotes);
    const events = diffStates(
      site,
      state('User-agent: *\nDisallow: /"quoted"\n'),
      state('User-agent: *\nDisallow: /b\\\nDisallow: /ok\n'),
    );
    expect(events.map((e) => e.type).sort()).toEqual([
      ...Array<string>(3).fill('newly_allowed'),
      ...Array<string>(6).fill('newly_disallowed'),
    ]);
    for (const event of events) expect(eventJson(event)).toBe(JSON.stringify(event));
  });

  it('writes a bounded event out as it was cut, and the others as they were', () => {
    const many = Array.from({ length: 600 }, (_, i) => `Disallow: /x${i}\n`).join('');
    const events = diffStates(
      SITE,
      view('User-agent: *\nAllow: /\n'),
      view(`User-agent: *\n${many}Disallow: /a\n`),
    );
    expect(events.map((e) => e.type)).toEqual([
      'newly_disallowed',
      'newly_disallowed',
      'rules_changed',
    ]);
    const bounded = boundEvents(events);
    const cut = bounded[2]!;
    expect(cut.type === 'rules_changed' && [cut.added.length, cut.addedTotal]).toEqual([500, 1202]);
    expect(bounded.map(eventJson)).toEqual(bounded.map((event) => JSON.stringify(event)));
    // The events not cut are the same events.
    expect(bounded.slice(0, 2)).toEqual(events.slice(0, 2));
  });

  it('compares each URL and agent with its own verdict when the watches were reordered or added', () => {
    const before = view('User-agent: *\nDisallow: /a\n');
    const after = view('User-agent: *\nDisallow: /a\n');
    const reordered = { ...after, verdicts: [...after.verdicts].reverse() };
    expect(diffStates(SITE, before, reordered)).toEqual([]);
    // A URL watched only now has no verdict before it: no event for it.
    const more = computeVerdicts(
      {
        fetch: { status: 200, error: null },
        body: new TextEncoder().encode('User-agent: *\nDisallow: /\n'),
        lastGoodBody: null,
        stale: false,
      },
      ['https://e.com/new', ...watches],
      agents,
    );
    const events = diffStates(SITE, before, { ...before, verdicts: more });
    expect(events.map((e) => e.type === 'newly_disallowed' && e.url).sort()).toEqual([
      'https://e.com/',
      'https://e.com/',
      'https://e.com/b',
      'https://e.com/b',
    ]);
  });

  it('reports rule changes per agent, ignoring order, comments, whitespace and escaping', () => {
    const before = view('User-agent: *\nDisallow: /a\nDisallow: /caf%c3%a9\n');
    expect(
      diffStates(
        SITE,
        before,
        view('# hi\nUser-agent: *\nDisallow: /café\n  Disallow:   /a   # x\n'),
      ),
    ).toEqual([]);
    const events = diffStates(
      SITE,
      before,
      view('User-agent: GPTBot\nDisallow: /a\nDisallow: /caf%C3%A9\n\nUser-agent: *\nAllow: /\n'),
    );
    expect(events.find((e) => e.type === 'rules_changed')).toEqual({
      type: 'rules_changed',
      site: SITE,
      added: [{ agent: 'Googlebot', directive: 'allow', pattern: '/', line: 6 }],
      removed: [
        { agent: 'Googlebot', directive: 'disallow', pattern: '/a', line: 2 },
        { agent: 'Googlebot', directive: 'disallow', pattern: '/caf%c3%a9', line: 3 },
      ],
    });
  });

  it('counts a repeated rule: removing one of two copies is a change', () => {
    const events = diffStates(
      SITE,
      view('User-agent: *\nDisallow: /a\nDisallow: /a\n'),
      view('User-agent: *\nDisallow: /a\n'),
    );
    expect(events).toEqual([
      {
        type: 'rules_changed',
        site: SITE,
        added: [],
        removed: [
          { agent: 'Googlebot', directive: 'disallow', pattern: '/a', line: 3 },
          { agent: 'GPTBot', directive: 'disallow', pattern: '/a', line: 3 },
        ],
      },
    ]);
  });

  it('reports a status change first, and access as the cause', () => {
    const events = diffStates(SITE, view('User-agent: *\nDisallow: /a\n'), view(null, 503));
    expect(events[0]).toEqual({
      type: 'fetch_status_changed',
      site: SITE,
      before: { access: 'ok', status: 200 },
      after: { access: 'unreachable', status: 503 },
    });
    expect(
      events.slice(1).every((e) => e.type === 'newly_disallowed' && e.cause.type === 'access'),
    ).toBe(true);
    expect(events).toHaveLength(1 + 4); // / and /b for two agents; /a was disallowed already
  });

  it('reports sitemaps added and removed', () => {
    const events = diffStates(
      SITE,
      view('Sitemap: https://e.com/1.xml\nSitemap: https://e.com/2.xml\n'),
      view('Sitemap: https://e.com/2.xml\nSitemap: https://e.com/3.xml\n'),
    );
    expect(events).toEqual([
      {
        type: 'sitemaps_changed',
        site: SITE,
        added: ['https://e.com/3.xml'],
        removed: ['https://e.com/1.xml'],
      },
    ]);
  });

  it('reports a change that lets 200,000 pairs in (no list is spread into a call)', () => {
    const many = Array.from({ length: 1000 }, (_, i) => `https://e.com/p${i}`);
    const crawlers = Array.from({ length: 200 }, (_, i) => ({
      token: `Bot${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`,
      profile: 'google' as const,
    }));
    const state = (text: string) => pairsView(text, many, crawlers);
    const events = diffStates(SITE, state('User-agent: *\nDisallow: /\n'), state(''));
    expect(events).toHaveLength(200_000);
    expect(events.every((e) => e.type === 'newly_allowed')).toBe(true);
  });
});
