/**
 * The weekly digest (DESIGN.md: "digest"): a period's summary for one recipient. Pure:
 * built from what the store recorded, rendered elsewhere (notify/render-digest.ts).
 */
import { compileAgent } from '../robots/index.js';
import type { Profile } from '../robots/index.js';
import type { Access, FetchOutcome } from './access.js';
import type { ChangeCause, CoverageCause } from './changes/cause-model.js';
import type { Registry, RegistryVersion } from './registry.js';
import type { RegistryCause } from './registry-update.js';
import { fetchStatusOf } from './changes/events.js';
import type { FetchStatus } from './changes/events.js';
import { isRobotsFile } from './file-condition.js';
import type { FileCondition } from './file-condition.js';
import { intentCauses } from './incidents.js';
import type { SiteState, Violation, ViolationGrid } from './intent.js';
import { ParseCache, siteAccess } from './verdicts.js';
import type { WatchedAgent, WatchVerdict } from './verdicts.js';
import {
  registryUpdates,
  bodyKey,
  operatorStandings,
  purposeStandings,
  coverageStandings,
} from './digest-standings.js';
import type { PurposeStanding, OperatorStanding } from './digest-standings.js';

export interface DigestPeriod {
  readonly start: Date;
  readonly end: Date;
}

/** A new state of a site in the period: when, and its causes. */
export interface DigestChange {
  readonly at: Date;
  readonly snapshotId: number;
  readonly previousId: number | null;
  /** Its causes; null for a state recorded before robowatch explained changes. */
  readonly causes: readonly ChangeCause[] | null;
  /** How many change events it brought (what a state without causes can say). */
  readonly events: number;
}

/** Where a site stands at the end of the period. */
export interface DigestNow {
  readonly fetch: FetchOutcome;
  readonly stale: boolean;
  /** When this state was first seen. */
  readonly since: Date;
  /** What its file is, when it has one (the last good copy's, through an outage). */
  readonly fileCondition: FileCondition | null;
}

/** What the store recorded of one site, for one period. */
export interface DigestSiteInput {
  /** Null for a site never checked that has no row yet (a preview that writes nothing). */
  readonly siteId: number | null;
  readonly origin: string;
  /** What people call it (null: its origin is its name). */
  readonly name?: string | null;
  readonly profile: Profile;
  readonly agents: readonly WatchedAgent[];
  /** Its new states in the period, oldest first. */
  readonly changes: readonly DigestChange[];
  /** Every check in the period, oldest first, with what it saw. */
  readonly checks: readonly {
    readonly at: Date;
    readonly fetch: FetchOutcome;
    readonly stale: boolean;
    /** What the file it found is for crawlers (null or absent: no body, or not known). */
    readonly fileCondition?: FileCondition | null;
  }[];
  /** The verdicts of the site's current state. */
  readonly verdicts: readonly WatchVerdict[];
  /** The file that applies now (the last good copy), if there is one. */
  readonly body: Uint8Array | null;
  /** Its current state; null before its first check. */
  readonly now: DigestNow | null;
  /**
   * Each crawler's allowed sitemap URLs: for the state current at the period's start and
   * for the latest (null where none was computed; absent: sitemaps not read).
   */
  readonly coverage?: { readonly start: CoverageAt | null; readonly end: CoverageAt | null };
  /** What the AI crawler registry's updates in the period meant for it, oldest first. */
  readonly registry?: readonly RegistryFindingAt[];
  /** robowatch refuses to check it (its address guard) at the digest's time, or null. */
  readonly refused?: { readonly since: Date; readonly reason: string } | null;
  /**
   * The site judged against its owner's intent at the digest's time (null: not judged
   * yet; absent: the caller does not judge, and newly blocked pages are what needs attention).
   */
  readonly intent?: DigestIntent | null;
  /** Its incidents that resolved in the period and stayed resolved, oldest first. */
  readonly recovered?: readonly RecoveredIncident[];
}

/** A site's state against its owner's intent, as last judged. */
export interface DigestIntent {
  readonly state: SiteState;
  readonly since: Date | null;
  /** The cells that differ (cut; the count says how many). */
  readonly violations: readonly Violation[];
  readonly violationCount: number;
  /** For `cannot-check`: why. */
  readonly reason: string | null;
  /** Past the cells kept, every differing cell as one block, when they make one. */
  readonly grid?: ViolationGrid;
}

/** An incident that opened and resolved: what broke, and for how long. */
export interface RecoveredIncident {
  readonly id: number;
  readonly openedAt: Date;
  readonly resolvedAt: Date;
  readonly siteState: 'not-as-intended' | 'cannot-check';
  readonly causes: readonly string[];
  /** The most cells that differed at once. */
  readonly worstCount: number;
}

/** A registry update's cause for a site, and when it was recorded. */
export interface RegistryFindingAt {
  readonly at: Date;
  readonly cause: RegistryCause;
}

/** A snapshot's coverage as the digest needs it: the set's size and each crawler's allowed URLs. */
export interface CoverageAt {
  readonly urls: number;
  readonly allowed: Readonly<Record<string, number>>;
}

/** Crawlers with the same allowed sitemap URLs at both ends of the period. */
export interface CoverageStanding {
  readonly agents: readonly string[];
  readonly urls: number;
  readonly allowed: number;
  /** At the period's start (null: not computed then). */
  readonly before: { readonly urls: number; readonly allowed: number } | null;
}

/** A run of checks that did not find robots.txt ok. */
export interface Incident {
  readonly start: Date;
  /** The first check that found it ok again; null: still going at the end of the period. */
  readonly end: Date | null;
  readonly status: FetchStatus;
}

export interface AiStanding {
  readonly agent: string;
  /** Watched URLs it may not fetch, of how many. */
  readonly disallowed: number;
  readonly watched: number;
  /** No group of the file names it: it obeys "*" (or nothing). null: no file to tell. */
  readonly underStar: boolean | null;
}

/** Why a site is at the top of the digest. */
export type Attention =
  /** robowatch cannot check it now: its address guard refuses the host. */
  | { readonly kind: 'refused'; readonly reason: string; readonly since: Date }
  /** robots.txt is unreachable now: Google crawls nothing. */
  | { readonly kind: 'down'; readonly status: FetchStatus; readonly since: Date }
  /** robots.txt is gone (4xx): every URL is crawlable. */
  | { readonly kind: 'gone'; readonly status: FetchStatus; readonly since: Date }
  /** What it serves is not robots.txt (an HTML page, UTF-16, binary data). */
  | { readonly kind: 'not-robots'; readonly condition: FileCondition; readonly since: Date }
  /** The file is past 500 KiB: the rest is ignored. */
  | { readonly kind: 'cut'; readonly since: Date }
  /** A change newly blocked a share of the sitemap URLs above notify.coverage; `cause` is the largest. */
  | {
      readonly kind: 'coverage';
      readonly cause: CoverageCause;
      readonly snapshotId: number;
      readonly previousId: number | null;
      readonly since: Date;
    }
  /** A registry update's new crawlers may crawl the site though the file keeps others of their purpose out. */
  | { readonly kind: 'registry'; readonly cause: RegistryCause; readonly since: Date }
  /** Watched cells differ from the owner's intent now (sites judged against intent). */
  | {
      readonly kind: 'intent';
      readonly violations: readonly Violation[];
      readonly violationCount: number;
      readonly grid?: ViolationGrid;
      readonly causes: readonly string[];
      /** Since when the site has not been as intended (null: not known). */
      readonly since: Date | null;
    }
  /** Watched pages were newly disallowed in the period; `cause` did most of it (sites not judged). */
  | {
      readonly kind: 'blocks';
      readonly pairs: number;
      readonly cause: ChangeCause;
      readonly snapshotId: number;
      readonly previousId: number | null;
      /** When that cause's change was seen. */
      readonly since: Date;
    };

export interface DigestSite {
  /** Null for a site never checked that has no row yet (a preview that writes nothing). */
  readonly siteId: number | null;
  readonly origin: string;
  /** What people call it (null: its origin is its name). */
  readonly name: string | null;
  readonly profile: Profile;
  /** The watched crawlers (for saying crawler lists). */
  readonly agents: readonly string[];
  /** The period's new states with their causes, oldest first. */
  readonly changes: readonly DigestChange[];
  /** Watched URLs disallowed now, per agent (agents with none left out). */
  readonly disallowed: readonly { readonly agent: string; readonly urls: readonly string[] }[];
  readonly health: {
    readonly checks: number;
    /** Never checked at all (no state, nothing refused): added since the last check. */
    readonly neverChecked: boolean;
    /** Share of checks that found robots.txt ok; null without checks. */
    readonly okShare: number | null;
    /**
     * Of those, how many found a file crawlers cannot read as robots.txt (an HTML page,
     * UTF-16, binary data): answered, but with no rules.
     */
    readonly notRobots: number;
    readonly incidents: readonly Incident[];
  };
  readonly ai: readonly AiStanding[];
  /** The AI registry's crawlers by purpose against the file now ([] without a registry). */
  readonly aiPurposes: readonly PurposeStanding[];
  /** The registry's largest operators against the file now ([] without a registry). */
  readonly aiOperators: readonly OperatorStanding[];
  /** The sitemap URLs each crawler may fetch now, and at the period's start; [] without. */
  readonly coverage: readonly CoverageStanding[];
  /** What needs attention, most urgent first. */
  readonly attention: readonly Attention[];
  /** Its state against its owner's intent at the digest's time (null: not judged). */
  readonly intent: SiteState | null;
  /** What broke and recovered in the period (its resolved incidents), oldest first. */
  readonly recovered: readonly RecoveredIncident[];
  /** Nothing changed, nothing failed, nothing needs attention, nothing broke. */
  readonly clear: boolean;
}

/** An update of the AI crawler registry in the period (the same for every site). */
export interface RegistryUpdate {
  readonly at: Date;
  readonly version: RegistryVersion;
  readonly previous: RegistryVersion;
  readonly added: number;
  readonly removed: readonly string[];
  /** The digest's sites where new crawlers get in against the file's stance. */
  readonly against: number;
}

export interface Digest {
  readonly recipient: string;
  readonly period: DigestPeriod;
  readonly sites: readonly DigestSite[];
  /** The registry's updates in the period, oldest first. */
  readonly registry: readonly RegistryUpdate[];
  /** Nothing changed and nothing failed, anywhere. */
  readonly allClear: boolean;
}

export function buildDigest(
  recipient: string,
  period: DigestPeriod,
  inputs: readonly DigestSiteInput[],
  /** The AI crawler registry, for each site's standing by purpose (none: not said). */
  registry?: Registry,
): Digest {
  // Said for the sites the digest details (changes, incidents, attention), computed once
  // per distinct file: a fleet of sites serving one file costs one evaluation.
  type Standings = Pick<DigestSite, 'aiPurposes' | 'aiOperators'>;
  const none: Standings = { aiPurposes: [], aiOperators: [] };
  const known = new Map<string, Standings>();
  const standings = (input: DigestSiteInput): Standings => {
    if (registry === undefined || input.body === null) return none;
    const key = `${input.profile}\n${bodyKey(input.body)}`;
    let found = known.get(key);
    if (found === undefined)
      known.set(
        key,
        (found = {
          aiPurposes: purposeStandings(input, registry),
          aiOperators: operatorStandings(input, registry),
        }),
      );
    return found;
  };
  const aiTokens = new Set(registry?.agents.map((a) => a.token.toLowerCase()));
  const sites = inputs.map((input) => {
    const site = summariseSite(input, aiTokens);
    return { ...site, ...(site.clear ? none : standings(input)) };
  });
  return {
    recipient,
    period,
    sites,
    registry: registryUpdates(inputs),
    allClear: sites.every((s) => s.clear),
  };
}

function summariseSite(
  input: DigestSiteInput,
  /** The registry's AI crawlers (lowercase): the watched ones among them are the AI section. */
  aiTokens: ReadonlySet<string>,
): Omit<DigestSite, 'aiPurposes' | 'aiOperators'> {
  const byAgent = new Map<string, string[]>();
  for (const v of input.verdicts) {
    if (!v.allowed) byAgent.set(v.agent, [...(byAgent.get(v.agent) ?? []), v.url]);
  }
  const cache = new ParseCache();
  const ai = input.agents
    .filter((agent) => aiTokens.has(agent.token.toLowerCase()))
    .map((agent) => {
      const own = input.verdicts.filter((v) => v.agent === agent.token);
      const source = input.body
        ? compileAgent(cache.parse(input.body, agent.profile), agent.token).source
        : null;
      return {
        agent: agent.token,
        disallowed: own.filter((v) => !v.allowed).length,
        watched: own.length,
        underStar: source === null ? null : source !== 'specific',
      };
    });
  const siteHealth = health(input);
  const attention = attentionOf(input);
  return {
    siteId: input.siteId,
    origin: input.origin,
    name: input.name ?? null,
    profile: input.profile,
    agents: input.agents.map((a) => a.token),
    changes: input.changes,
    disallowed: [...byAgent].map(([agent, urls]) => ({ agent, urls })),
    health: siteHealth,
    ai,
    coverage: coverageStandings(input),
    attention,
    intent: input.intent?.state ?? null,
    recovered: input.recovered ?? [],
    clear:
      input.changes.length === 0 &&
      siteHealth.incidents.length === 0 &&
      attention.length === 0 &&
      (input.recovered ?? []).length === 0,
  };
}

/**
 * What needs attention at the digest's time: the state now (refused, down, gone, not
 * robots.txt, cut), then, for a site judged against its intent, the cells that differ from
 * it (a page blocked on purpose is not a problem); for one not judged, new blocks.
 */
function attentionOf(input: DigestSiteInput): Attention[] {
  const out: Attention[] = [];
  const now = input.now;
  const judged = input.intent ?? null;
  // Not known now: what the last check saw may no longer hold.
  if (input.refused !== undefined && input.refused !== null)
    out.push({ kind: 'refused', reason: input.refused.reason, since: input.refused.since });
  if (now !== null) {
    const status = fetchStatusOf(now.fetch, input.profile, now.stale);
    if (status.access === 'unreachable') out.push({ kind: 'down', status, since: now.since });
    // A missing file lets every crawler in: a problem only where the owner meant to keep some out.
    else if (
      status.access === 'unavailable' &&
      (judged === null || judged.state === 'not-as-intended')
    )
      out.push({ kind: 'gone', status, since: now.since });
    const condition = now.fileCondition;
    if (status.access === 'ok' && condition !== null && !isRobotsFile(condition))
      out.push({ kind: 'not-robots', condition, since: now.since });
    if (condition === 'cut') out.push({ kind: 'cut', since: now.since });
  }
  // A registry update let new crawlers in against the file's stance.
  const against = (input.registry ?? []).filter((f) => f.cause.purposes.some((p) => p.contradicts));
  const latest = against[against.length - 1];
  if (latest !== undefined) out.push({ kind: 'registry', cause: latest.cause, since: latest.at });
  let coverage: { cause: CoverageCause; change: DigestChange } | undefined;
  for (const change of input.changes)
    for (const cause of change.causes ?? [])
      if (
        cause.type === 'coverage' &&
        cause.significant &&
        cause.newlyDisallowed > (coverage?.cause.newlyDisallowed ?? 0)
      )
        coverage = { cause, change };
  if (coverage !== undefined)
    out.push({
      kind: 'coverage',
      cause: coverage.cause,
      snapshotId: coverage.change.snapshotId,
      previousId: coverage.change.previousId,
      since: coverage.change.at,
    });
  // Judged against intent: the cells that differ now, not what changed in the period.
  if (judged !== null) {
    if (judged.state === 'not-as-intended')
      out.push({
        kind: 'intent',
        violations: judged.violations,
        violationCount: judged.violationCount,
        ...(judged.grid === undefined ? {} : { grid: judged.grid }),
        causes: intentCauses(judged),
        since: judged.since,
      });
    return out;
  }
  let worst: { cause: ChangeCause; change: DigestChange; pairs: number } | undefined;
  // Each pair once, however often the period blocked it (a rule added, rolled back, added).
  const blocked = new Set<string>();
  // A page blocked and unblocked again within the period is not a problem at its end.
  const stillBlocked = new Set(
    input.verdicts.filter((v) => !v.allowed).map((v) => `${v.url}\n${v.agent}`),
  );
  for (const change of input.changes) {
    for (const cause of change.causes ?? []) {
      const keys = cause.pairs
        .filter((p) => p.flipped && !p.allowed)
        .map((p) => `${p.url}\n${p.agent}`)
        .filter((key) => stillBlocked.has(key));
      const pairs = keys.length;
      if (pairs === 0 || cause.type === 'fetch_status') continue; // said as "down" already
      for (const key of keys) blocked.add(key);
      if (worst === undefined || pairs > worst.pairs) worst = { cause, change, pairs };
    }
  }
  if (worst !== undefined)
    out.push({
      kind: 'blocks',
      pairs: blocked.size,
      cause: worst.cause,
      snapshotId: worst.change.snapshotId,
      previousId: worst.change.previousId,
      since: worst.change.at,
    });
  return out;
}

function health(input: DigestSiteInput): DigestSite['health'] {
  const incidents: Incident[] = [];
  let open: { start: Date; status: FetchStatus } | undefined;
  let ok = 0;
  let notRobots = 0;
  for (const check of input.checks) {
    const access: Access = siteAccess({ fetch: check.fetch, stale: check.stale }, input.profile);
    if (access === 'ok') {
      ok++;
      const condition = check.fileCondition ?? null;
      if (condition !== null && condition !== 'robots' && condition !== 'cut') notRobots++;
      if (open !== undefined) {
        incidents.push({ ...open, end: check.at });
        open = undefined;
      }
    } else if (open === undefined) {
      open = {
        start: check.at,
        status: {
          access,
          ...(check.fetch.status === null ? {} : { status: check.fetch.status }),
          ...(check.fetch.error === null ? {} : { error: check.fetch.error }),
        },
      };
    }
  }
  if (open !== undefined) incidents.push({ ...open, end: null });
  return {
    checks: input.checks.length,
    neverChecked:
      input.checks.length === 0 &&
      input.now === null &&
      (input.refused === undefined || input.refused === null),
    okShare: input.checks.length === 0 ? null : ok / input.checks.length,
    notRobots,
    incidents,
  };
}
