/**
 * Trends on a known small history: four sites over four months, their states changing
 * mid-month, robots.txt gone on one and unreachable on another, one site not watching
 * the crawler; shares forward-filled month by month, by crawler and by group, plain and
 * weighted by rank.
 */
import { describe, expect, it } from 'vitest';
import { monthsBetween, rankWeight, TrendTotals } from '../../../src/policy/trends.js';
import type { Trend, TrendGroup, TrendSite, TrendState } from '../../../src/policy/trends.js';

/** The trends of `sites` from the first state of any (or `from`), as robowatch trends adds them up. */
function computeTrends(
  sites: readonly TrendSite[],
  groups: readonly TrendGroup[],
  now: Date,
  options: { readonly weighted?: boolean; readonly from?: Date } = {},
): Trend[] {
  const first = sites.reduce<Date | null>(
    (min, s) => (s.states[0] && (min === null || s.states[0].at < min) ? s.states[0].at : min),
    null,
  );
  if (first === null) return groups.map((g) => ({ group: g.name, points: [] }));
  const from = options.from !== undefined && options.from > first ? options.from : first;
  const totals = new TrendTotals(from, now, groups, options);
  for (const site of sites) totals.add(site);
  return totals.trends();
}

const at = (day: string) => new Date(`${day}T12:00:00Z`);
/** A state where each crawler has this many of 2 watched URLs disallowed. */
const state = (
  day: string,
  disallowed: Record<string, number>,
  access: TrendState['access'] = 'ok',
): TrendState => ({
  at: at(day),
  access,
  counts: new Map(Object.entries(disallowed).map(([a, d]) => [a, { disallowed: d, watched: 2 }])),
});

const sites: TrendSite[] = [
  // Blocks GPTBot fully from February on.
  {
    rank: 1,
    states: [
      state('2026-01-10', { gptbot: 0, ccbot: 0 }),
      state('2026-02-15', { gptbot: 2, ccbot: 0 }),
    ],
  },
  // Partly, then its robots.txt is gone (404) in March.
  {
    rank: 3,
    states: [
      state('2026-01-20', { gptbot: 1, ccbot: 1 }),
      state('2026-03-05', { gptbot: 0, ccbot: 0 }, 'unavailable'),
    ],
  },
  // First seen in February; unreachable in April (Google crawls nothing).
  {
    rank: 7,
    states: [
      state('2026-02-01', { gptbot: 0, ccbot: 2 }),
      state('2026-04-02', { gptbot: 2, ccbot: 2 }, 'unreachable'),
    ],
  },
  // Does not watch GPTBot.
  { rank: null, states: [state('2026-01-01', { ccbot: 2 })] },
];

describe('trends', () => {
  it('gives, per month, the share of sites blocking a crawler fully, partly, not at all, or without robots.txt', () => {
    const [gpt] = computeTrends(sites, [{ name: 'GPTBot', agents: ['gptbot'] }], at('2026-04-20'));
    expect(gpt!.points).toEqual([
      { month: '2026-01', sites: 2, full: 0, partly: 0.5, none: 0.5, noRobotsTxt: 0 },
      { month: '2026-02', sites: 3, full: 1 / 3, partly: 1 / 3, none: 1 / 3, noRobotsTxt: 0 },
      { month: '2026-03', sites: 3, full: 1 / 3, partly: 0, none: 1 / 3, noRobotsTxt: 1 / 3 },
      { month: '2026-04', sites: 3, full: 2 / 3, partly: 0, none: 0, noRobotsTxt: 1 / 3 },
    ]);
  });

  it('counts a group as fully blocked only when every watched crawler of it is', () => {
    const [both] = computeTrends(
      sites,
      [{ name: '@ai-training', agents: ['gptbot', 'ccbot'] }],
      at('2026-02-28'),
    );
    expect(both!.points).toEqual([
      // site 1: none of both; site 2: partly; site 4 (CCBot only): full.
      { month: '2026-01', sites: 3, full: 1 / 3, partly: 1 / 3, none: 1 / 3, noRobotsTxt: 0 },
      // site 1: GPTBot full, CCBot not: partly; site 3 likewise.
      { month: '2026-02', sites: 4, full: 0.25, partly: 0.75, none: 0, noRobotsTxt: 0 },
    ]);
  });

  it('weighs sites by rank when asked (sites without a rank left out), and starts where asked', () => {
    const [gpt] = computeTrends(sites, [{ name: 'GPTBot', agents: ['gptbot'] }], at('2026-02-28'), {
      weighted: true,
      from: at('2026-02-01'),
    });
    const w1 = rankWeight(1);
    const w3 = rankWeight(3);
    const w7 = rankWeight(7);
    expect(w1).toBe(1);
    expect(w3).toBe(0.5);
    expect(gpt!.points).toHaveLength(1);
    const [feb] = gpt!.points;
    expect(feb!.sites).toBeCloseTo(w1 + w3 + w7);
    expect(feb!.full).toBeCloseTo(w1 / (w1 + w3 + w7));
    expect(feb!.partly).toBeCloseTo(w3 / (w1 + w3 + w7));
  });

  it('lists months across a year end, and nothing before any state', () => {
    expect(monthsBetween(at('2025-11-30'), at('2026-01-01')).map((m) => m.month)).toEqual([
      '2025-11',
      '2025-12',
      '2026-01',
    ]);
    expect(monthsBetween(at('2025-11-30'), at('2026-01-01'))[1]!.end.toISOString()).toBe(
      '2025-12-31T23:59:59.999Z',
    );
    expect(computeTrends([], [{ name: 'GPTBot', agents: ['gptbot'] }], at('2026-01-01'))).toEqual([
      { group: 'GPTBot', points: [] },
    ]);
  });
});
