/**
 * Trends over the recorded history (issue 14's research view): per month, for a crawler
 * or a group of crawlers (an operator's, a purpose's), the share of sites whose robots.txt
 * blocks it from every watched URL, from some, from none, or that have no robots.txt at
 * all. Each site counts with its state at the end of the month (the last one seen by
 * then: forward-filled), from the month it was first seen; a site that does not watch any
 * of a group's crawlers does not count for that group. Optionally weighted by rank. Pure.
 */
import type { Access } from './access.js';

/** One state of a site, as trends need it. */
export interface TrendState {
  readonly at: Date;
  readonly access: Access;
  /** Per watched crawler (lowercase token): watched URLs disallowed, of how many. */
  readonly counts: ReadonlyMap<string, { readonly disallowed: number; readonly watched: number }>;
}

export interface TrendSite {
  /** Its rank in the list it was imported from; null when it has none. */
  readonly rank: number | null;
  /** Its states, oldest first. */
  readonly states: readonly TrendState[];
}

/** A crawler, or a group of them: "GPTBot", "@operator:openai", "@ai-training". */
export interface TrendGroup {
  readonly name: string;
  /** Its crawlers' tokens, lowercase. */
  readonly agents: readonly string[];
}

export interface TrendPoint {
  /** YYYY-MM. */
  readonly month: string;
  /** Sites counted (watching one of the group's crawlers), or their total weight. */
  readonly sites: number;
  /** Shares of `sites`, 0 to 1: blocked from every watched URL (or robots.txt unreachable), some, none, no robots.txt. */
  readonly full: number;
  readonly partly: number;
  readonly none: number;
  readonly noRobotsTxt: number;
}

export interface Trend {
  readonly group: string;
  readonly points: readonly TrendPoint[];
}

/** A rank's weight: 1 / log2(1 + rank), so the top site weighs 1 and the 1,000th 0.1. */
export function rankWeight(rank: number | null): number {
  return rank === null ? 0 : 1 / Math.log2(1 + rank);
}

/** The months from `from`'s to `to`'s, as YYYY-MM with their end instant (UTC). */
export function monthsBetween(from: Date, to: Date): { month: string; end: Date }[] {
  const out: { month: string; end: Date }[] = [];
  let y = from.getUTCFullYear();
  let m = from.getUTCMonth();
  while (y < to.getUTCFullYear() || (y === to.getUTCFullYear() && m <= to.getUTCMonth())) {
    out.push({
      month: `${y}-${String(m + 1).padStart(2, '0')}`,
      end: new Date(Date.UTC(y, m + 1, 1) - 1),
    });
    m++;
    if (m === 12) {
      m = 0;
      y++;
    }
  }
  return out;
}

type Standing = 'full' | 'partly' | 'none' | 'noRobotsTxt';

/** Where a group stands in one state; null when the site watches none of its crawlers. */
function standing(state: TrendState, group: TrendGroup): Standing | null {
  const counts = group.agents.flatMap((a) => {
    const c = state.counts.get(a);
    return c === undefined ? [] : [c];
  });
  if (counts.length === 0) return null;
  if (state.access === 'unavailable') return 'noRobotsTxt';
  if (state.access === 'unreachable') return 'full'; // Google crawls nothing
  if (counts.every((c) => c.watched > 0 && c.disallowed >= c.watched)) return 'full';
  if (counts.every((c) => c.disallowed === 0)) return 'none';
  return 'partly';
}

/**
 * The trends of each group, month by month from the first state of any site to `now`.
 * With `weighted`, a site counts by its rank's weight (sites without a rank not at all).
 */
export function computeTrends(
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
  const months = monthsBetween(from, now);
  const totals = groups.map(() =>
    months.map(() => ({ sites: 0, full: 0, partly: 0, none: 0, noRobotsTxt: 0 })),
  );
  for (const site of sites) {
    const weight = options.weighted === true ? rankWeight(site.rank) : 1;
    if (weight === 0) continue;
    let i = -1; // the site's state at the end of the month being counted
    months.forEach(({ end }, m) => {
      while (i + 1 < site.states.length && site.states[i + 1]!.at <= end) i++;
      if (i < 0) return; // not seen yet
      const state = site.states[i]!;
      groups.forEach((group, g) => {
        const where = standing(state, group);
        if (where === null) return;
        const total = totals[g]![m]!;
        total.sites += weight;
        total[where] += weight;
      });
    });
  }
  return groups.map((group, g) => ({
    group: group.name,
    points: months.map(({ month }, m) => {
      const t = totals[g]![m]!;
      const share = (n: number) => (t.sites === 0 ? 0 : n / t.sites);
      return {
        month,
        sites: t.sites,
        full: share(t.full),
        partly: share(t.partly),
        none: share(t.none),
        noRobotsTxt: share(t.noRobotsTxt),
      };
    }),
  }));
}
