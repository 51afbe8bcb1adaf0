/**
 * The weekly digest (DESIGN.md: "digest"): a period's summary for one recipient. Pure:
 * built from what the store recorded, rendered elsewhere (notify/render-digest.ts).
 */
import { compileAgent, parseRobotsTxt } from '../robots/index.js';
import type { Profile } from '../robots/index.js';
import type { Access, FetchOutcome } from './access.js';
import type { ChangeCause, CoverageCause } from './changes/cause-model.js';
import { findContradictions } from './contradictions.js';
import type { Purpose, Registry, RegistryVersion } from './registry.js';
import type { RegistryCause } from './registry-update.js';
import { fetchStatusOf } from './changes/events.js';
import type { FetchStatus } from './changes/events.js';
import { isRobotsFile } from './file-condition.js';
import type { FileCondition } from './file-condition.js';
import { ParseCache, siteAccess } from './verdicts.js';
import type { WatchedAgent, WatchVerdict } from './verdicts.js';

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
  readonly siteId: number;
  readonly origin: string;
  readonly profile: Profile;
  readonly agents: readonly WatchedAgent[];
  /** Its new states in the period, oldest first. */
  readonly changes: readonly DigestChange[];
  /** Every check in the period, oldest first, with what it saw. */
  readonly checks: readonly {
    readonly at: Date;
    readonly fetch: FetchOutcome;
    readonly stale: boolean;
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
  /** Watched pages were newly disallowed in the period; `cause` did most of it. */
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
  readonly siteId: number;
  readonly origin: string;
  readonly profile: Profile;
  /** The watched crawlers (for saying crawler lists). */
  readonly agents: readonly string[];
  /** The period's new states with their causes, oldest first. */
  readonly changes: readonly DigestChange[];
  /** Watched URLs disallowed now, per agent (agents with none left out). */
  readonly disallowed: readonly { readonly agent: string; readonly urls: readonly string[] }[];
  readonly health: {
    readonly checks: number;
    /** Share of checks that found robots.txt ok; null without checks. */
    readonly okShare: number | null;
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
  /** Nothing changed, nothing failed, nothing needs attention. */
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

/** The registry updates the sites' findings speak of, once each. */
function registryUpdates(inputs: readonly DigestSiteInput[]): RegistryUpdate[] {
  const updates = new Map<string, RegistryUpdate>();
  for (const input of inputs)
    for (const { at, cause } of input.registry ?? []) {
      const key = cause.version.sha256;
      const against = cause.purposes.some((p) => p.contradicts) ? 1 : 0;
      const known = updates.get(key);
      updates.set(
        key,
        known === undefined
          ? {
              at,
              version: cause.version,
              previous: cause.previous,
              added: cause.added,
              removed: cause.removed,
              against,
            }
          : { ...known, against: known.against + against },
      );
    }
  return [...updates.values()].sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A body as a map key (its bytes as a binary string). */
function bodyKey(body: Uint8Array): string {
  let key = '';
  for (let i = 0; i < body.length; i += 8192)
    key += String.fromCharCode(...body.subarray(i, i + 8192));
  return key;
}

/** For each purpose, how the registry's crawlers of that purpose stand at the site's root. */
export interface PurposeStanding {
  readonly purpose: Purpose;
  /** May not fetch the home page. */
  readonly blocked: number;
  /** May, through the `*` group (or no group at all). */
  readonly throughStar: number;
  /** May, by a group that names them. */
  readonly named: number;
  /** Crawlers whose rules contradict the usage lines (see contradictions.ts). */
  readonly contradictions: number;
  /** The operators of the crawlers allowed through `*`, most crawlers first (a few). */
  readonly starOperators: readonly string[];
}

/** An operator's crawlers in the registry against a site's file: how many may not fetch its home page. */
export interface OperatorStanding {
  readonly operator: string;
  readonly crawlers: number;
  readonly blocked: number;
}

/** Operators with at least this many crawlers in the registry are said one by one. */
const OPERATORS_SAID = 8;

/** The registry's operators with the most crawlers, against the site's file. */
function operatorStandings(input: DigestSiteInput, registry: Registry): OperatorStanding[] {
  if (input.body === null || input.now === null) return [];
  const parsed = parseRobotsTxt(input.body, { profile: input.profile, lint: false });
  const byOperator = new Map<string, { crawlers: number; blocked: number }>();
  for (const agent of registry.agents) {
    if (agent.operator === null) continue;
    const known = byOperator.get(agent.operator) ?? { crawlers: 0, blocked: 0 };
    known.crawlers++;
    if (!compileAgent(parsed, agent.token).evaluate('/').allowed) known.blocked++;
    byOperator.set(agent.operator, known);
  }
  return [...byOperator]
    .sort((a, b) => b[1].crawlers - a[1].crawlers || (a[0] < b[0] ? -1 : 1))
    .slice(0, OPERATORS_SAID)
    .map(([operator, c]) => ({ operator, ...c }));
}

/** The registry's crawlers by purpose against the site's file; none without a file. */
function purposeStandings(input: DigestSiteInput, registry: Registry): PurposeStanding[] {
  if (input.body === null || input.now === null) return [];
  const parsed = parseRobotsTxt(input.body, { profile: input.profile, lint: false });
  const contradicting = new Set(
    findContradictions(parsed, registry).flatMap((c) =>
      c.agents.map((a) => `${c.purpose}\n${a.toLowerCase()}`),
    ),
  );
  const standings: PurposeStanding[] = [];
  for (const purpose of ['training', 'search', 'user', 'agent'] as const) {
    const agents = registry.agents.filter((a) => a.purposes.includes(purpose));
    if (agents.length === 0) continue;
    let blocked = 0;
    let throughStar = 0;
    let named = 0;
    let contradictions = 0;
    const operators = new Map<string, number>();
    for (const agent of agents) {
      const rules = compileAgent(parsed, agent.token);
      if (contradicting.has(`${purpose}\n${agent.token.toLowerCase()}`)) contradictions++;
      if (!rules.evaluate('/').allowed) blocked++;
      else if (rules.source === 'specific') named++;
      else {
        throughStar++;
        if (agent.operator !== null)
          operators.set(agent.operator, (operators.get(agent.operator) ?? 0) + 1);
      }
    }
    standings.push({
      purpose,
      blocked,
      throughStar,
      named,
      contradictions,
      starOperators: [...operators]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([name]) => name)
        .slice(0, 3),
    });
  }
  return standings;
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
    profile: input.profile,
    agents: input.agents.map((a) => a.token),
    changes: input.changes,
    disallowed: [...byAgent].map(([agent, urls]) => ({ agent, urls })),
    health: siteHealth,
    ai,
    coverage: coverageStandings(input),
    attention,
    clear:
      input.changes.length === 0 && siteHealth.incidents.length === 0 && attention.length === 0,
  };
}

/** What needs attention: the state now (down, gone, not robots.txt, cut), then new blocks. */
function attentionOf(input: DigestSiteInput): Attention[] {
  const out: Attention[] = [];
  const now = input.now;
  // Not known now: what the last check saw may no longer hold.
  if (input.refused !== undefined && input.refused !== null)
    out.push({ kind: 'refused', reason: input.refused.reason, since: input.refused.since });
  if (now !== null) {
    const status = fetchStatusOf(now.fetch, input.profile, now.stale);
    if (status.access === 'unreachable') out.push({ kind: 'down', status, since: now.since });
    else if (status.access === 'unavailable') out.push({ kind: 'gone', status, since: now.since });
    const condition = now.fileCondition;
    if (status.access === 'ok' && condition !== null && !isRobotsFile(condition))
      out.push({ kind: 'not-robots', condition, since: now.since });
    if (condition === 'cut') out.push({ kind: 'cut', since: now.since });
  }
  let worst: { cause: ChangeCause; change: DigestChange; pairs: number } | undefined;
  let blocked = 0;
  for (const change of input.changes) {
    for (const cause of change.causes ?? []) {
      const pairs = cause.pairs.filter((p) => p.flipped && !p.allowed).length;
      if (pairs === 0 || cause.type === 'fetch_status') continue; // said as "down" already
      blocked += pairs;
      if (worst === undefined || pairs > worst.pairs) worst = { cause, change, pairs };
    }
  }
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
  if (worst !== undefined)
    out.push({
      kind: 'blocks',
      pairs: blocked,
      cause: worst.cause,
      snapshotId: worst.change.snapshotId,
      previousId: worst.change.previousId,
      since: worst.change.at,
    });
  return out;
}

/** Each crawler's sitemap URLs allowed at the end, with the start; crawlers alike together. */
function coverageStandings(input: DigestSiteInput): CoverageStanding[] {
  const end = input.coverage?.end;
  if (end === null || end === undefined) return [];
  const start = input.coverage?.start ?? null;
  const groups = new Map<string, { agents: string[]; value: Omit<CoverageStanding, 'agents'> }>();
  for (const agent of input.agents) {
    const allowed = end.allowed[agent.token];
    if (allowed === undefined) continue;
    const was = start?.allowed[agent.token];
    const value = {
      urls: end.urls,
      allowed,
      before: start === null || was === undefined ? null : { urls: start.urls, allowed: was },
    };
    const key = JSON.stringify(value);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { agents: [agent.token], value });
    else group.agents.push(agent.token);
  }
  return [...groups.values()].map(({ agents, value }) => ({ agents, ...value }));
}

function health(input: DigestSiteInput): DigestSite['health'] {
  const incidents: Incident[] = [];
  let open: { start: Date; status: FetchStatus } | undefined;
  let ok = 0;
  for (const check of input.checks) {
    const access: Access = siteAccess({ fetch: check.fetch, stale: check.stale }, input.profile);
    if (access === 'ok') {
      ok++;
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
    okShare: input.checks.length === 0 ? null : ok / input.checks.length,
    incidents,
  };
}
