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
  // Counted without allocating: this runs for every state of every site and group.
  let present = false;
  let allFull = true;
  let allNone = true;
  for (const agent of group.agents) {
    const c = state.counts.get(agent);
    if (c === undefined) continue;
    present = true;
    if (!(c.watched > 0 && c.disallowed >= c.watched)) allFull = false;
    if (c.disallowed !== 0) allNone = false;
  }
  if (!present) return null;
  if (state.access === 'unavailable') return 'noRobotsTxt';
  if (state.access === 'unreachable') return 'full'; // Google crawls nothing
  if (allFull) return 'full';
  if (allNone) return 'none';
  return 'partly';
}

const STANDINGS = ['full', 'partly', 'none', 'noRobotsTxt'] as const;

/**
 * Trends added up a site at a time (100,000 sites × 8 years need not be held at once):
 * each site's states are read once for each group that concerns it, then counted into the
 * months they stand at the end of. With `per-agent`, each crawler a site watches is a
 * group of its own, made as it is first seen.
 */
export class TrendTotals {
  readonly #months: { month: string; end: Date }[];
  readonly #weighted: boolean;
  readonly #groups: TrendGroup[];
  /** Per group, per month: sites, then each standing (weights). */
  readonly #totals: Float64Array[];
  /** `per-agent`: the group of each crawler. */
  readonly #agents: Map<string, number> | null;

  constructor(
    from: Date,
    now: Date,
    groups: readonly TrendGroup[] | 'per-agent',
    options: { readonly weighted?: boolean } = {},
  ) {
    this.#months = monthsBetween(from, now);
    this.#weighted = options.weighted === true;
    this.#agents = groups === 'per-agent' ? new Map() : null;
    this.#groups = groups === 'per-agent' ? [] : [...groups];
    this.#totals = this.#groups.map(() => this.#row());
  }

  #row(): Float64Array {
    return new Float64Array(this.#months.length * (STANDINGS.length + 1));
  }

  /** The groups that concern a site: per crawler, those its states watch; else all. */
  #groupsOf(site: TrendSite): number[] {
    const agents = this.#agents;
    if (agents === null) return this.#groups.map((_, g) => g);
    const found = new Set<number>();
    for (const state of site.states)
      for (const agent of state.counts.keys()) {
        let g = agents.get(agent);
        if (g === undefined) {
          g = this.#groups.length;
          agents.set(agent, g);
          this.#groups.push({ name: agent, agents: [agent] });
          this.#totals.push(this.#row());
        }
        found.add(g);
      }
    return [...found];
  }

  add(site: TrendSite): void {
    const weight = this.#weighted ? rankWeight(site.rank) : 1;
    if (weight === 0 || site.states.length === 0) return;
    const groups = this.#groupsOf(site);
    // Each state's standing for each of the site's groups (-1: it watches none of them).
    const codes = site.states.map((state) =>
      groups.map((g) => {
        const where = standing(state, this.#groups[g]!);
        return where === null ? -1 : STANDINGS.indexOf(where);
      }),
    );
    const width = STANDINGS.length + 1;
    let i = -1; // the site's state at the end of the month being counted
    this.#months.forEach(({ end }, m) => {
      while (i + 1 < site.states.length && site.states[i + 1]!.at <= end) i++;
      if (i < 0) return; // not seen yet
      const at = codes[i]!;
      for (let k = 0; k < groups.length; k++) {
        const code = at[k]!;
        if (code < 0) continue;
        const total = this.#totals[groups[k]!]!;
        total[m * width] = total[m * width]! + weight;
        total[m * width + 1 + code] = total[m * width + 1 + code]! + weight;
      }
    });
  }

  /** Each group's points, month by month (per crawler: in code-point order). */
  trends(): Trend[] {
    const width = STANDINGS.length + 1;
    const out = this.#groups.map((group, g) => {
      const t = this.#totals[g]!;
      return {
        group: group.name,
        points: this.#months.map(({ month }, m) => {
          const sites = t[m * width]!;
          const share = (k: number) => (sites === 0 ? 0 : t[m * width + 1 + k]! / sites);
          return {
            month,
            sites,
            full: share(0),
            partly: share(1),
            none: share(2),
            noRobotsTxt: share(3),
          };
        }),
      };
    });
    return this.#agents === null
      ? out
      : out.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  }
}
