/**
 * Trends over the recorded history (policy/trends.ts) for the CLI, the API and the web
 * page: each watched site's states with their access under its profile, grouped by
 * crawler, by operator of the AI crawler registry, or by purpose.
 */
import type { Config, SiteConfig } from '../../config/config.js';
import type { FetchErrorKind } from '../../policy/fetch-result.js';
import { PURPOSE_WORDS, PURPOSES } from '../../policy/registry.js';
import type { Purpose } from '../../policy/registry.js';
import { TrendTotals } from '../../policy/trends.js';
import type { Trend, TrendState } from '../../policy/trends.js';
import { siteAccess } from '../../policy/verdicts.js';
import type { TrendRow } from '../records-export.js';

export const TREND_BY = ['agent', 'operator', 'purpose'] as const;
export type TrendBy = (typeof TREND_BY)[number];

export interface TrendOptions {
  readonly by: TrendBy;
  readonly weighted: boolean;
  readonly now: Date;
  readonly from?: Date;
}

/** What trends read from the store: where the history starts, then each site's states. */
export interface TrendSource {
  /** The first state of any watched site; null when nothing was recorded. */
  trendStart(): Promise<Date | null>;
  /** Each watched site's states, oldest first (the archived before the live), a site at a time. */
  trendSites(): AsyncIterable<readonly TrendRow[]>;
}

/** A trend with its group as people read it: "GPTBot", "OpenAI", "AI training". */
export interface LabelledTrend extends Trend {
  readonly label: string;
}

/**
 * The trends of the watched sites (groups no site watches left out), read a site at a
 * time: the memory is one page of sites, however long the history.
 */
export async function viewTrends(
  store: TrendSource,
  /** The watched sites: their origin, profile and rank (a SiteConfig has them). */
  watchedSites: readonly Pick<SiteConfig, 'origin' | 'profile' | 'rank'>[],
  config: Pick<Config, 'registry' | 'presets' | 'sites'>,
  options: TrendOptions,
): Promise<LabelledTrend[]> {
  const byOrigin = new Map(watchedSites.map((s) => [s.origin, s]));
  const first = await store.trendStart();
  if (first === null) return [];
  const from = options.from !== undefined && options.from > first ? options.from : first;
  const registry = config.registry.active.registry;
  const lower = (tokens: readonly string[]) => tokens.map((t) => t.toLowerCase());
  const totals = new TrendTotals(
    from,
    options.now,
    options.by === 'agent'
      ? 'per-agent'
      : options.by === 'purpose'
        ? PURPOSES.filter((p) => p !== 'other').map((p) => ({
            name: `@ai-${p}`,
            agents: lower(
              registry.agents.filter((a) => a.purposes.includes(p)).map((a) => a.token),
            ),
          }))
        : Object.entries(config.presets)
            .filter(([name]) => name.startsWith('@operator:'))
            .map(([name, tokens]) => ({ name, agents: lower(tokens) })),
    { weighted: options.weighted },
  );
  // The same counts (the store gives repeated ones as one object) make one map.
  const maps = new WeakMap<TrendRow['counts'], TrendState['counts']>();
  const countsMap = (counts: TrendRow['counts']) => {
    let map = maps.get(counts);
    if (map === undefined)
      maps.set(
        counts,
        (map = new Map(
          counts.map((c) => [
            c.agent.toLowerCase(),
            { disallowed: c.disallowed, watched: c.watched },
          ]),
        )),
      );
    return map;
  };
  for await (const rows of store.trendSites()) {
    const site = byOrigin.get(rows[0]?.origin ?? '');
    if (site === undefined) continue; // no longer watched
    totals.add({
      rank: site.rank ?? null,
      states: rows.map((row) => ({
        at: row.at,
        access: siteAccess(
          {
            fetch: { status: row.status, error: row.error as FetchErrorKind | null },
            stale: row.stale,
          },
          site.profile,
        ),
        counts: countsMap(row.counts),
      })),
    });
  }
  const label = labels(config, options.by);
  return totals
    .trends()
    .filter((t) => t.points.some((p) => p.sites > 0))
    .map((t) => ({ ...t, label: label(t.group) }));
}

/**
 * How each group is called: a crawler as the configuration, its presets or the registry
 * spell it (the trends count tokens in lower case), an operator by its name in the
 * registry, a purpose in words.
 */
function labels(
  config: Pick<Config, 'registry' | 'presets' | 'sites'>,
  by: TrendBy,
): (group: string) => string {
  const registry = config.registry.active.registry;
  if (by === 'purpose')
    return (group) => PURPOSE_WORDS[group.slice('@ai-'.length) as Purpose] ?? group;
  if (by === 'operator') {
    const names = new Map<string, string>(
      registry.agents.flatMap((a) =>
        a.operatorSlug === null || a.operator === null
          ? []
          : [[`@operator:${a.operatorSlug}`, a.operator] as const],
      ),
    );
    return (group) => names.get(group) ?? group;
  }
  const spelled = new Map<string, string>();
  const know = (token: string) => {
    if (!spelled.has(token.toLowerCase())) spelled.set(token.toLowerCase(), token);
  };
  for (const site of config.sites) for (const agent of site.agents) know(agent.token);
  for (const tokens of Object.values(config.presets)) tokens.forEach(know);
  for (const agent of registry.agents) know(agent.token);
  return (group) => spelled.get(group) ?? group;
}
