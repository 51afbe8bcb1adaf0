import type { SiteConfig } from '../../config/config.js';
import { rankEvents } from '../../policy/alerts.js';
import { causeHeadline } from '../../policy/wording/explain.js';
import { headline } from '../../policy/wording/format.js';
import { dailyAccess } from '../../policy/history.js';
import type { DayAccess, DayStates } from '../../policy/history.js';
import { siteCondition } from '../../policy/site-condition.js';
import type { SiteCondition } from '../../policy/site-condition.js';
import { nextCheckAt } from '../../policy/periods.js';
import type { Profile } from '../../robots/index.js';
import type { ReadStore } from '../ports.js';
import type { SiteOverview } from '../records.js';
import type { WatchVerdict } from '../../policy/verdicts.js';
import { blockedCrawlers } from '../../policy/intent.js';
import type { BlockedCrawlers, SiteState } from '../../policy/intent.js';

export const STRIP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface OverviewRow {
  readonly id: number;
  readonly site: SiteConfig;
  /** Where it stands, as crawlers see it (an HTML page served with 200 is not "ok"). */
  readonly condition: SiteCondition;
  readonly overview: SiteOverview;
  /** The last change in a few words: the most severe cause of the latest new state. */
  readonly lastChange: {
    readonly at: Date;
    readonly snapshotId: number;
    readonly headline: string;
    /** How many more causes that state had. */
    readonly more: number;
  } | null;
  /**
   * How many watched crawlers may not fetch at least one watched URL, of how many; with
   * `intent`, how those blocks stand against the site's intent (absent when not judged).
   */
  readonly blocking: {
    readonly crawlers: number;
    readonly of: number;
    readonly intent?: BlockedCrawlers;
  } | null;
  /** When it is next checked: its planned run, else its place in the next period. */
  readonly nextCheckAt: Date;
  readonly days: readonly DayAccess[];
}

/**
 * What the overview sorts and filters by, most urgent first: robowatch cannot check it
 * (its address guard refuses the host: nothing is known); robots.txt cannot be read
 * (Google crawls nothing); what is served is not a usable robots.txt; not as its owner
 * intends (a crawler kept from a page meant to be crawled, or let into one meant to be
 * kept out); pages newly blocked this week (while still blocked); a watched crawler
 * blocked from a watched page; no robots.txt (everything crawlable); as intended; fine;
 * not checked yet; paused. A site can be in several.
 */
export const TRIAGE_STATES = [
  'cannot-check',
  'down',
  'not-robots',
  'not-as-intended',
  'new-blocks',
  'blocking',
  'all-allowed',
  'as-intended',
  'ok',
  'unchecked',
  'paused',
] as const;
export type TriageState = (typeof TRIAGE_STATES)[number];

export function isTriageState(value: string): value is TriageState {
  return (TRIAGE_STATES as readonly string[]).includes(value);
}

/** How many sites are in a state, in words for the top of the overview. */
export const STATE_COUNT_TEXT: Record<TriageState, (n: number) => string> = {
  'cannot-check': (n) =>
    `${n} robowatch cannot check: ${n === 1 ? 'its host resolves' : 'their hosts resolve'} to a private address`,
  down: (n) =>
    `${n} site${n === 1 ? '' : 's'} down: robots.txt cannot be read, so Google crawls nothing`,
  'not-robots': (n) =>
    `${n} serving something that is not a usable robots.txt (an HTML page, or over 500 KiB)`,
  'not-as-intended': (n) =>
    `${n} not as intended: a crawler is kept from a page meant to be crawled, or let into one meant to be kept out`,
  'new-blocks': (n) => `${n} with watched pages newly blocked this week`,
  blocking: (n) => `${n} where a watched crawler may not fetch a watched page`,
  'all-allowed': (n) => `${n} without a robots.txt: everything is crawlable`,
  'as-intended': (n) => `${n} as intended`,
  ok: (n) => `${n} fine`,
  unchecked: (n) => `${n} not checked yet`,
  paused: (n) => `${n} paused`,
};

/** The bit of a state in a site's state bits. */
export function stateBit(state: TriageState): number {
  return 1 << TRIAGE_STATES.indexOf(state);
}
const BIT = Object.fromEntries(TRIAGE_STATES.map((s) => [s, stateBit(s)])) as Record<
  TriageState,
  number
>;
const PAUSED = BIT.paused;

/** The states a site is in, as bits (bit i: TRIAGE_STATES[i]), from its standing. */
export function siteStateBits(
  standing: {
    condition: SiteCondition;
    blocking: boolean;
    newBlocks: boolean;
    intent?: SiteState | null;
  },
  paused: boolean,
): number {
  let bits = 0;
  const { condition } = standing;
  // Not checked: what the last check saw is not what robowatch knows now.
  if (condition === 'refused') return BIT['cannot-check'] | (paused ? BIT.paused : 0);
  // A site that is down blocks every page for Google: that is its one problem, not also
  // "pages newly blocked" or "a crawler blocked".
  if (condition === 'unreachable') bits |= BIT.down;
  else {
    // A block lifted since is no longer news.
    if (standing.newBlocks && standing.blocking) bits |= BIT['new-blocks'];
    if (standing.blocking) bits |= BIT.blocking;
  }
  if (standing.intent === 'not-as-intended') bits |= BIT['not-as-intended'];
  if (standing.intent === 'as-intended') bits |= BIT['as-intended'];
  if (condition === 'not-robots' || condition === 'cut') bits |= BIT['not-robots'];
  if (condition === 'unavailable') bits |= BIT['all-allowed'];
  if (condition === 'none') bits |= BIT.unchecked;
  if ((bits & ~BIT['as-intended']) === 0) bits |= BIT.ok;
  if (paused) bits |= BIT.paused;
  return bits;
}

/** Where each site stands now: its condition under its profile, by id (one query). */
export async function siteConditionsOf(
  store: Pick<ReadStore, 'loadSiteStandings'>,
  since: Date,
): Promise<{
  condition(id: number, profile: Profile): SiteCondition;
  blocking(id: number): boolean;
  newBlocks(id: number): boolean;
  intent(id: number): SiteState | null;
  /** The site's standing among the few there are (sites in one share all of the above but newBlocks); -1: not checked, or refused. */
  group(id: number): number;
}> {
  const standings = await store.loadSiteStandings(since);
  const groupOf = groupIndex(standings.groups);
  // A condition per group and profile: a few computations, not one per site.
  const memo = new Map<Profile, SiteCondition[]>();
  return {
    condition(id, profile) {
      if (standings.refused.has(id)) return 'refused';
      const group = groupOf(id);
      if (group < 0) return 'none';
      let row = memo.get(profile);
      if (row === undefined) memo.set(profile, (row = []));
      return (row[group] ??= siteCondition(standings.groups[group]!.current, profile));
    },
    blocking: (id) => {
      const group = groupOf(id);
      return group >= 0 && standings.groups[group]!.blocking;
    },
    newBlocks: (id) => standings.newBlocks.has(id),
    intent: (id) => {
      const group = groupOf(id);
      return group < 0 ? null : standings.groups[group]!.intent;
    },
    group: (id) => (standings.refused.has(id) ? -1 : groupOf(id)),
  };
}

/**
 * Each site's group by its id: a table indexed by id (ids count up from 1, so it is about
 * as long as there are sites; 100,000 sites went into a Map in 10 ms a page), or a Map
 * where the ids are too sparse for one.
 */
function groupIndex(
  groups: readonly { readonly ids: readonly number[] }[],
): (id: number) => number {
  let count = 0;
  let max = 0;
  for (const g of groups) {
    count += g.ids.length;
    for (const id of g.ids) if (id > max) max = id;
  }
  if (max > 4 * count + 65_536) {
    const map = new Map<number, number>();
    groups.forEach((g, i) => {
      for (const id of g.ids) map.set(id, i);
    });
    return (id) => map.get(id) ?? -1;
  }
  const table = new Int32Array(max + 1).fill(-1);
  groups.forEach((g, i) => {
    for (const id of g.ids) table[id] = i;
  });
  return (id) => (id >= 0 && id <= max ? table[id]! : -1);
}

type ListedSite = { id: number; site: SiteConfig; pausedAt?: Date | null };

/** A list of sites' ids, profiles (by their place in `profiles`) and pauses, packed. */
interface PackedSites {
  readonly ids: Int32Array;
  readonly profile: Uint8Array;
  readonly profiles: readonly Profile[];
  readonly paused: Uint8Array;
}

/**
 * The lists already packed: the catalog keeps its list of sites until they change, and a
 * page that lists them all reads it as it is. Reading each site's entry and settings for
 * 100,000 sites cost a page 20–30 ms, most of it waiting on memory.
 */
const packedLists = new WeakMap<readonly ListedSite[], PackedSites>();

function packed(sites: readonly ListedSite[]): PackedSites {
  let found = packedLists.get(sites);
  if (found !== undefined) return found;
  const ids = new Int32Array(sites.length);
  const profile = new Uint8Array(sites.length);
  const paused = new Uint8Array(sites.length);
  const profiles: Profile[] = [];
  for (let i = 0; i < sites.length; i++) {
    const { id, site, pausedAt } = sites[i]!;
    ids[i] = id;
    let p = profiles.indexOf(site.profile);
    if (p < 0) p = profiles.push(site.profile) - 1;
    profile[i] = p;
    paused[i] = pausedAt !== undefined && pausedAt !== null ? 1 : 0;
  }
  found = { ids, profile, profiles, paused };
  packedLists.set(sites, found);
  return found;
}

/**
 * The state bits of these sites, in their order. A list is packed once (above): one
 * passed again must not have changed (the catalog makes a new list when its sites do).
 */
export async function siteStateBitsOf(
  store: Pick<ReadStore, 'loadSiteStandings'>,
  sites: readonly ListedSite[],
  now: Date,
): Promise<Int32Array> {
  const standing = await siteConditionsOf(store, new Date(now.getTime() - 7 * DAY_MS));
  const { ids, profile, profiles, paused } = packed(sites);
  const bits = new Int32Array(ids.length);
  // Sites of one standing and profile are in the same states: worked out once for them
  // all (100,000 sites, a standing object each, cost a page 25 ms), paused or not.
  const memo: number[][] = profiles.map(() => []);
  const statesOf = (id: number, p: number, newBlocks: boolean, isPaused: boolean) =>
    siteStateBits(
      {
        condition: standing.condition(id, profiles[p]!),
        blocking: standing.blocking(id),
        newBlocks,
        intent: standing.intent(id),
      },
      isPaused,
    );
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const p = profile[i]!;
    const group = standing.group(id);
    const newBlocks = standing.newBlocks(id);
    if (group < 0 || newBlocks) {
      bits[i] = statesOf(id, p, newBlocks, paused[i] === 1);
      continue;
    }
    const shared = (memo[p]![group] ??= statesOf(id, p, false, false));
    bits[i] = paused[i] === 1 ? shared | PAUSED : shared;
  }
  return bits;
}

/**
 * How many sites are in each state. Counted by bit position: looking each state's bit up
 * by its name for 100,000 sites cost a page 30 ms.
 */
function countStates(bits: Int32Array): Record<TriageState, number> {
  const byBit = new Array<number>(TRIAGE_STATES.length).fill(0);
  for (let i = 0; i < bits.length; i++)
    for (let b = bits[i]!; b !== 0; b &= b - 1) byBit[31 - Math.clz32(b & -b)]! += 1;
  return Object.fromEntries(TRIAGE_STATES.map((s, i) => [s, byBit[i]!])) as Record<
    TriageState,
    number
  >;
}

/** The page of a list shown, with how many there are in all and how many pages they make. */
export interface ChosenPage<T> {
  readonly total: number;
  readonly page: number;
  readonly pages: number;
  readonly shown: T[];
}

/** Page `asked` (kept within the pages there are) of `total` items; `take(from, to)` gives them. */
export function pageOf<T>(
  total: number,
  perPage: number,
  asked: number,
  take: (from: number, to: number) => T[],
): ChosenPage<T> {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const page = Math.min(Math.max(1, asked), pages);
  return { total, page, pages, shown: take((page - 1) * perPage, page * perPage) };
}

/**
 * A page of the sites in one of the states (`wanted`: its bit; -1: any), problems first
 * (one bucket per urgency, each in the order given: a stable sort) or as given. Only the
 * page is taken from the order, by each site's bucket: building the whole ordered list of
 * 100,000 sites, to show 100 of them, cost a page 15–25 ms.
 */
function orderedPage<T>(
  sites: readonly T[],
  bits: Int32Array,
  wanted: number,
  order: 'problems' | 'given',
  perPage: number,
  asked: number,
): ChosenPage<T> {
  const NONE = 255;
  const bucket = new Uint8Array(sites.length);
  const sizes = new Array<number>(TRIAGE_STATES.length + 1).fill(0);
  let total = 0;
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i]!;
    if ((b & wanted) === 0) {
      bucket[i] = NONE;
      continue;
    }
    const u = order === 'problems' ? urgency(b) : 0;
    bucket[i] = u;
    sizes[u]! += 1;
    total += 1;
  }
  return pageOf(total, perPage, asked, (from, to) => {
    const shown: T[] = [];
    // The buckets in order, each from where the page starts in it to where it ends.
    let start = 0;
    sizes.forEach((size, u) => {
      const end = start + size;
      if (end > from && start < to) {
        let at = start;
        for (let i = 0; i < sites.length && at < to; i++) {
          if (bucket[i] !== u) continue;
          if (at >= from) shown.push(sites[i]!);
          at += 1;
        }
      }
      start = end;
    });
    return shown;
  });
}

/** Where a site goes when problems come first: its most urgent state; paused sites last. */
function urgency(bits: number): number {
  if ((bits & BIT.paused) !== 0) return TRIAGE_STATES.length;
  // Blocked as its owner intends: not a problem, whatever it blocks.
  const judged =
    (bits & BIT['as-intended']) !== 0
      ? bits & ~(BIT.blocking | BIT['new-blocks'] | BIT['all-allowed'])
      : bits;
  return 31 - Math.clz32(judged & -judged);
}

export interface OverviewPage {
  readonly rows: readonly OverviewRow[];
  /**
   * How many of the sites matching the text and tag filters are in each state (null when
   * the standings were not loaded: the API without a state filter).
   */
  readonly counts: Readonly<Record<TriageState, number>> | null;
  /** Sites matching the filter, over all pages. */
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

/**
 * The overview: each configured site (matching `query`, a page at a time) with where it
 * stands, its last change in words, how many crawlers it blocks, its next check, and a
 * 90-day strip.
 */
export async function viewOverview(
  store: Pick<
    ReadStore,
    'loadOverview' | 'loadDailyStates' | 'loadSiteStandings' | 'loadVerdictsOf'
  >,
  sites: readonly { id: number; site: SiteConfig; pausedAt?: Date | null }[],
  options: {
    /** Matches origins and names, ignoring case. */
    query: string;
    /** Only sites with this tag, when given. */
    tag?: string;
    /** Only sites in this state, when given. */
    state?: TriageState;
    /** `problems`: the most urgent first (then in the order given); `given`: as given. */
    order?: 'problems' | 'given';
    /** Whether to count the sites in each state (the page's summary line). */
    counts?: boolean;
    page: number;
    perPage: number;
    now: Date;
    timezone: string;
    /** Whether to load the 90-day strip (the API does not show it). */
    strip?: boolean;
    /** Whether to judge each blocked crawler against the site's intent (the page's column). */
    blockedIntent?: boolean;
  },
): Promise<OverviewPage> {
  const matches = siteFilter(options.query, options.tag);
  // Without a filter, the list as it is (the catalog's: its sites packed once, above).
  const matching =
    options.query.trim() === '' && options.tag === undefined
      ? sites
      : sites.filter(({ site }) => matches(site));
  const order = options.order ?? 'given';
  let counts: Record<TriageState, number> | null = null;
  let chosen: ChosenPage<(typeof matching)[number]> | undefined;
  if (options.state !== undefined || order === 'problems' || options.counts === true) {
    const bits = await siteStateBitsOf(store, matching, options.now);
    counts = countStates(bits);
    const wanted = options.state === undefined ? -1 : BIT[options.state];
    chosen = orderedPage(matching, bits, wanted, order, options.perPage, options.page);
  }
  const { total, page, pages, shown } =
    chosen ??
    pageOf(matching.length, options.perPage, options.page, (from, to) => matching.slice(from, to));
  const ids = shown.map((s) => s.id);
  const since = new Date(options.now.getTime() - STRIP_DAYS * DAY_MS);
  const [overviews, daily] = await Promise.all([
    store.loadOverview(ids),
    options.strip === false ? new Map<number, DayStates[]>() : store.loadDailyStates(ids, since),
  ]);
  const byId = new Map(overviews.map((o) => [o.id, o]));
  // The current verdicts of the sites that block a crawler, for which of those blocks
  // their owners intend: one query for the page. A site whose robots.txt as a whole
  // decides (down, not robots.txt, cut) is not judged page by page: nor are its blocks.
  const intentOf = new Map(shown.map(({ id, site }) => [id, site.intent.rules]));
  const verdicts =
    options.blockedIntent === true
      ? await store.loadVerdictsOf(
          overviews.flatMap((o) =>
            o.current !== null &&
            o.refused === null &&
            o.intent?.state !== 'cannot-check' &&
            (intentOf.get(o.id)?.length ?? 0) > 0 &&
            o.disallowed.some((d) => d.disallowed > 0)
              ? [o.current.id]
              : [],
          ),
        )
      : new Map<number, never>();
  return {
    rows: shown.flatMap(({ id, site }) => {
      const overview = byId.get(id);
      if (overview === undefined) return [];
      const agents = site.agents.map((a) => a.token);
      return [
        {
          id,
          site,
          condition:
            overview.refused === null ? siteCondition(overview.current, site.profile) : 'refused',
          overview,
          lastChange: lastChangeOf(overview, agents),
          blocking: blockingOf(overview, site, verdicts),
          nextCheckAt: nextCheckAt(
            site.origin,
            site.schedule,
            options.timezone,
            options.now,
            overview.nextDueAt,
          ),
          days: dailyAccess(daily.get(id) ?? [], site.profile, options.now, STRIP_DAYS),
        },
      ];
    }),
    counts,
    total,
    page,
    pages,
  };
}

/** How many crawlers a site blocks from a watched page, judged against its intent when its verdicts are given. */
function blockingOf(
  overview: SiteOverview,
  site: SiteConfig,
  verdicts: ReadonlyMap<number, readonly WatchVerdict[]>,
): OverviewRow['blocking'] {
  if (overview.current === null) return null;
  const crawlers = overview.disallowed.filter((d) => d.disallowed > 0).length;
  const cells = verdicts.get(overview.current.id);
  return {
    crawlers,
    of: overview.disallowed.length,
    ...(cells === undefined ? {} : { intent: blockedCrawlers(site.intent.rules, cells) }),
  };
}

/** Whether a site matches a filter: `query` in its origin or name (any case), and `tag`. */
export function siteFilter(query: string, tag: string | undefined): (site: SiteConfig) => boolean {
  const needle = query.trim().toLowerCase();
  return (site) =>
    (needle === '' ||
      site.origin.includes(needle) ||
      (site.name?.toLowerCase().includes(needle) ?? false)) &&
    (tag === undefined || site.tags.includes(tag));
}

/** The last change in a few words: its most severe cause (or, recorded before causes, event). */
export function lastChangeOf(
  overview: Pick<SiteOverview, 'lastChange'>,
  agents: readonly string[],
): OverviewRow['lastChange'] {
  const last = overview.lastChange;
  if (last === null) return null;
  if (last.causes !== null) {
    const [first] = last.causes;
    if (first === undefined) return null;
    return {
      at: last.at,
      snapshotId: last.snapshotId,
      headline: causeHeadline(first, { agents, at: last.at }),
      more: last.causes.length - 1,
    };
  }
  const [event, ...rest] = rankEvents(last.events);
  return event === undefined
    ? null
    : { at: last.at, snapshotId: last.snapshotId, headline: headline(event), more: rest.length };
}
