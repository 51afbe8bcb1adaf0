import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flippedPlaces } from '../../../src/policy/changes/events.js';
import { computedCells, computeVerdicts } from '../../../src/policy/verdicts.js';
import type { VerdictCause, WatchVerdict } from '../../../src/policy/verdicts.js';
import {
  decodeVerdicts,
  encodeVerdicts,
  StoredVerdicts,
} from '../../../src/policy/verdict-sets.js';

const cause = fc.oneof(
  fc.constant(null),
  fc.record({
    type: fc.constant('rule' as const),
    directive: fc.constantFrom('allow' as const, 'disallow' as const),
    pattern: fc.constantFrom('/', '/x', '/private/*', '/*.pdf$', '/ünï'),
    line: fc.integer({ min: 1, max: 400 }),
  }),
  fc.record({
    type: fc.constant('access' as const),
    access: fc.constantFrom('unreachable' as const, 'unavailable' as const),
  }),
) as fc.Arbitrary<VerdictCause | null>;

/** Verdicts of some (URL, agent) cells, each cell at most once, as a check produces them. */
const verdicts = fc
  .uniqueArray(
    fc.record({
      url: fc.constantFrom(
        'https://e.com/',
        'https://e.com/pricing',
        'https://e.com/a?b=c',
        'https://e.com/x y',
      ),
      agent: fc.constantFrom('Googlebot', 'GPTBot', '*', 'googlebot-news', 'Bingbot'),
      allowed: fc.boolean(),
      cause,
    }),
    { selector: (v) => `${v.url} ${v.agent}`, maxLength: 20 },
  )
  .map((rows) =>
    rows.map((r): WatchVerdict => ({ ...r, profile: r.agent === 'GPTBot' ? 'rfc9309' : 'google' })),
  );

const key = (v: WatchVerdict) => `${v.url} ${v.agent}`;
const sorted = (rows: readonly WatchVerdict[]) =>
  [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1));

describe('compact verdict sets', () => {
  it('give back exactly the verdicts stored, each with its profile and cause', () => {
    fc.assert(
      fc.property(verdicts, (rows) => {
        expect(sorted(decodeVerdicts(encodeVerdicts(rows)))).toEqual(sorted(rows));
      }),
    );
  });

  it('give back a grid of verdicts crawler by crawler, whether or not each lists the URLs alike', () => {
    const urls = [
      'https://e.com/',
      'https://e.com/pricing',
      'https://e.com/a?b=c',
      'https://e.com/x',
    ];
    const grid = fc
      .tuple(
        fc.uniqueArray(fc.constantFrom('Googlebot', 'GPTBot', '*', 'Bingbot'), { minLength: 1 }),
        fc.array(fc.tuple(fc.boolean(), cause), { minLength: 16, maxLength: 16 }),
        // Some crawlers list the URLs in another order, or fewer of them.
        fc.array(fc.constantFrom('same', 'reversed', 'fewer'), { minLength: 4, maxLength: 4 }),
      )
      .map(([agents, cells, orders]) =>
        agents.flatMap((agent, a) => {
          const order = orders[a] ?? 'same';
          const listed =
            order === 'reversed' ? [...urls].reverse() : order === 'fewer' ? urls.slice(1) : urls;
          return listed.map((url, u): WatchVerdict => {
            const [allowed, c] = cells[a * 4 + u]!;
            return { url, agent, profile: 'google', allowed, cause: c };
          });
        }),
      );
    fc.assert(
      fc.property(grid, (rows) => {
        expect(decodeVerdicts(encodeVerdicts(rows), 'by-agent').map(key).sort()).toEqual(
          rows.map(key).sort(),
        );
        expect(sorted(decodeVerdicts(encodeVerdicts(rows)))).toEqual(sorted(rows));
      }),
    );
  });

  it("find each verdict's counterpart in a stored set, by place or by URL and crawler", () => {
    const asked = fc.array(
      fc.record({
        url: fc.constantFrom('https://e.com/', 'https://e.com/pricing', 'https://e.com/other'),
        agent: fc.constantFrom('Googlebot', 'GPTBot', '*', 'Slurp'),
      }),
    );
    fc.assert(
      fc.property(verdicts, asked, (rows, questions) => {
        const stored = new StoredVerdicts(encodeVerdicts(rows));
        const byKey = new Map(rows.map((r) => [key(r), r]));
        // At the place each was stored, and at any other place.
        for (const [i, row] of rows.entries()) {
          expect(stored.find(row, i)).toEqual(row);
          expect(stored.allowed(row, i)).toBe(row.allowed);
        }
        for (const [i, question] of questions.entries()) {
          const want = byKey.get(`${question.url} ${question.agent}`);
          expect(stored.find(question, i)).toEqual(want);
          expect(stored.allowed(question, i)).toBe(want?.allowed);
        }
      }),
    );
  });

  it("encode a check's verdicts from the cells it made as it computed them, as from the list", () => {
    const bodies = [
      'User-agent: *\nDisallow: /private\nAllow: /private/ok\n',
      'User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n',
      'User-agent: Googlebot\nDisallow: /a\n\nUser-agent: googlebot\nDisallow: /b\n\nUser-agent: *\nDisallow: /b\n',
      '',
    ];
    const watchList = [
      'https://e.com/',
      'https://e.com/private/a',
      'https://e.com/private/ok',
      'https://e.com/x',
      'https://e.com/a',
      'https://e.com/b',
    ];
    const crawlers = [
      { token: 'Googlebot', profile: 'google' as const },
      { token: 'GPTBot', profile: 'rfc9309' as const },
      { token: 'CCBot', profile: 'google' as const },
      { token: '*', profile: 'google' as const },
      { token: 'Slurp', profile: 'legacy' as const },
    ];
    const input = fc.record({
      body: fc.constantFrom(...bodies),
      status: fc.constantFrom(200, 200, 404, 503),
      watches: fc.subarray(watchList, { minLength: 1 }),
      agents: fc.subarray(crawlers, { minLength: 1 }),
    });
    fc.assert(
      fc.property(input, ({ body, status, watches, agents }) => {
        const bytes = new TextEncoder().encode(body);
        const computed = computeVerdicts(
          {
            fetch: { status, error: null },
            body: status === 200 ? bytes : null,
            lastGoodBody: bytes,
            stale: false,
          },
          watches,
          agents,
        );
        // A copy is a list like any other: encoded from its rows.
        expect(encodeVerdicts(computed)).toEqual(encodeVerdicts([...computed]));
      }),
    );
  });

  it("find a check's flipped verdicts cell by cell against a stored set for the same watches, as verdict by verdict", () => {
    const bodies = [
      'User-agent: *\nDisallow: /private\n',
      'User-agent: *\nDisallow: /private\nDisallow: /blog/\n\nUser-agent: GPTBot\nDisallow: /\n',
      'User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /\n',
      '',
    ];
    const watches = ['https://e.com/', 'https://e.com/private/a', 'https://e.com/blog/x'];
    const agents = [
      { token: 'Googlebot', profile: 'google' as const },
      { token: 'GPTBot', profile: 'rfc9309' as const },
      { token: '*', profile: 'google' as const },
    ];
    const state = (body: string, status: number) => {
      const bytes = new TextEncoder().encode(body);
      return {
        fetch: { status, error: null },
        body: status === 200 ? bytes : null,
        lastGoodBody: bytes,
        stale: false,
      };
    };
    const side = fc.record({ body: fc.constantFrom(...bodies), status: fc.constantFrom(200, 503) });
    fc.assert(
      fc.property(side, side, (a, b) => {
        const before = new StoredVerdicts(
          encodeVerdicts(computeVerdicts(state(a.body, a.status), watches, agents)),
        );
        const after = computeVerdicts(state(b.body, b.status), watches, agents);
        const oneByOne = after.flatMap((v, i) => (before.allowed(v, i) === v.allowed ? [] : [i]));
        expect(flippedPlaces(before, after)).toEqual(oneByOne);
        // Other watches: no cell-by-cell answer (each verdict is looked up instead).
        const other = computeVerdicts(state(b.body, b.status), watches.slice(1), agents);
        expect(before.flipsOf(computedCells(other)!)).toBeNull();
      }),
    );
  });

  it('give the verdicts of a check back in the order it computed them, crawler by crawler', () => {
    const state = {
      fetch: { status: 200, error: null },
      body: new TextEncoder().encode('User-agent: *\nDisallow: /private\n'),
      lastGoodBody: null,
      stale: false,
    };
    const computed = computeVerdicts(
      state,
      ['https://e.com/', 'https://e.com/private/a', 'https://e.com/shop'],
      [
        { token: 'Googlebot', profile: 'google' },
        { token: 'GPTBot', profile: 'rfc9309' },
      ],
    );
    expect(decodeVerdicts(encodeVerdicts(computed), 'by-agent')).toEqual(computed);
    expect(decodeVerdicts(encodeVerdicts(computed)).map(key)).toEqual([
      'https://e.com/ Googlebot',
      'https://e.com/ GPTBot',
      'https://e.com/private/a Googlebot',
      'https://e.com/private/a GPTBot',
      'https://e.com/shop Googlebot',
      'https://e.com/shop GPTBot',
    ]);
  });

  it('store each distinct URL, agent and cause once, and count what the overview shows', () => {
    const rule = { type: 'rule', directive: 'disallow', pattern: '/private/', line: 2 } as const;
    const rows: WatchVerdict[] = [
      { url: 'u1', agent: 'Googlebot', profile: 'google', allowed: false, cause: rule },
      { url: 'u1', agent: '*', profile: 'google', allowed: false, cause: { ...rule } },
      { url: 'u2', agent: 'Googlebot', profile: 'google', allowed: true, cause: null },
    ];
    const set = encodeVerdicts(rows);
    expect(set).toEqual({
      urls: ['u1', 'u2'],
      agents: ['Googlebot', '*'],
      profiles: ['google', 'google'],
      causes: [rule],
      // (u1, Googlebot) cause 1 disallowed; (u1, *) the same; (u2, Googlebot) no cause, allowed; (u2, *) none.
      cells: [2, 2, 1, -1],
      counts: [
        { agent: '*', disallowed: 1, watched: 1 },
        { agent: 'Googlebot', disallowed: 1, watched: 2 },
      ],
    });
  });
});
