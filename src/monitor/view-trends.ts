/**
 * Trends over the recorded history (policy/trends.ts) for the CLI, the API and the web
 * page: each watched site's states with their access under its profile, grouped by
 * crawler, by operator of the AI crawler registry, or by purpose.
 */
import type { Config, SiteConfig } from '../config/config.js';
import type { FetchErrorKind } from '../policy/fetch-result.js';
import { PURPOSES } from '../policy/registry.js';
import { computeTrends } from '../policy/trends.js';
import type { Trend, TrendGroup, TrendState } from '../policy/trends.js';
import { siteAccess } from '../policy/verdicts.js';

export const TREND_BY = ['agent', 'operator', 'purpose'] as const;
export type TrendBy = (typeof TREND_BY)[number];

/** A state of a site as the store gives it for trends. */
export interface TrendRow {
  readonly origin: string;
  readonly at: Date;
  readonly status: number | null;
  readonly error: string | null;
  readonly stale: boolean;
  readonly counts: readonly { agent: string; disallowed: number; watched: number }[];
}

export interface TrendOptions {
  readonly by: TrendBy;
  readonly weighted: boolean;
  readonly now: Date;
  readonly from?: Date;
}

/** The trends of the watched sites (groups no site watches left out). */
export async function viewTrends(
  store: { loadTrendRows(): Promise<TrendRow[]> },
  /** The watched sites: their origin, profile and rank (a SiteConfig has them). */
  watchedSites: readonly Pick<SiteConfig, 'origin' | 'profile' | 'rank'>[],
  config: Pick<Config, 'registry' | 'presets'>,
  options: TrendOptions,
): Promise<Trend[]> {
  const byOrigin = new Map(watchedSites.map((s) => [s.origin, s]));
  const sites = new Map<string, { rank: number | null; states: TrendState[] }>();
  const watched = new Set<string>();
  for (const row of await store.loadTrendRows()) {
    const site = byOrigin.get(row.origin);
    if (site === undefined) continue; // no longer watched
    let entry = sites.get(row.origin);
    if (entry === undefined)
      sites.set(row.origin, (entry = { rank: site.rank ?? null, states: [] }));
    const counts = new Map(
      row.counts.map((c) => [
        c.agent.toLowerCase(),
        { disallowed: c.disallowed, watched: c.watched },
      ]),
    );
    for (const agent of counts.keys()) watched.add(agent);
    entry.states.push({
      at: row.at,
      access: siteAccess(
        {
          fetch: { status: row.status, error: row.error as FetchErrorKind | null },
          stale: row.stale,
        },
        site.profile,
      ),
      counts,
    });
  }
  const registry = config.registry.active.registry;
  const lower = (tokens: readonly string[]) => tokens.map((t) => t.toLowerCase());
  const groups: TrendGroup[] =
    options.by === 'agent'
      ? [...watched].sort().map((a) => ({ name: a, agents: [a] }))
      : options.by === 'purpose'
        ? PURPOSES.filter((p) => p !== 'other').map((p) => ({
            name: `@ai-${p}`,
            agents: lower(
              registry.agents.filter((a) => a.purposes.includes(p)).map((a) => a.token),
            ),
          }))
        : Object.entries(config.presets)
            .filter(([name]) => name.startsWith('@operator:'))
            .map(([name, tokens]) => ({ name, agents: lower(tokens) }))
            .filter((g) => g.agents.some((a) => watched.has(a)));
  return computeTrends([...sites.values()], groups, options.now, {
    weighted: options.weighted,
    ...(options.from === undefined ? {} : { from: options.from }),
  }).filter((t) => t.points.some((p) => p.sites > 0));
}
