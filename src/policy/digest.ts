/**
 * The weekly digest (DESIGN.md: "digest"): a period's summary for one recipient. Pure:
 * built from what the store recorded, rendered elsewhere (notify/render-digest.ts).
 */
import { compileAgent } from '../robots/index.js';
import type { Profile } from '../robots/index.js';
import type { Access, FetchOutcome } from './access.js';
import { rankEvents } from './alerts.js';
import { isAiCrawler } from './crawlers.js';
import type { ChangeEvent, FetchStatus } from './events.js';
import { ParseCache, siteAccess } from './verdicts.js';
import type { WatchedAgent, WatchVerdict } from './verdicts.js';

export interface DigestPeriod {
  readonly start: Date;
  readonly end: Date;
}

/** What the store recorded of one site, for one period. */
export interface DigestSiteInput {
  readonly origin: string;
  readonly profile: Profile;
  readonly agents: readonly WatchedAgent[];
  /** Change events in the period, oldest first. */
  readonly events: readonly { readonly at: Date; readonly event: ChangeEvent }[];
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

export interface DigestSite {
  readonly origin: string;
  /** The period's changes, most important first. */
  readonly changes: readonly { readonly at: Date; readonly event: ChangeEvent }[];
  /** Watched URLs disallowed now, per agent (agents with none left out). */
  readonly disallowed: readonly { readonly agent: string; readonly urls: readonly string[] }[];
  readonly health: {
    readonly checks: number;
    /** Share of checks that found robots.txt ok; null without checks. */
    readonly okShare: number | null;
    readonly incidents: readonly Incident[];
  };
  readonly ai: readonly AiStanding[];
}

export interface Digest {
  readonly recipient: string;
  readonly period: DigestPeriod;
  readonly sites: readonly DigestSite[];
  /** Nothing changed and nothing failed, anywhere. */
  readonly allClear: boolean;
}

export function buildDigest(
  recipient: string,
  period: DigestPeriod,
  inputs: readonly DigestSiteInput[],
): Digest {
  const sites = inputs.map(summariseSite);
  return {
    recipient,
    period,
    sites,
    allClear: sites.every((s) => s.changes.length === 0 && s.health.incidents.length === 0),
  };
}

function summariseSite(input: DigestSiteInput): DigestSite {
  const ranked = rankEvents(input.events.map((e) => e.event));
  const at = new Map(input.events.map((e) => [e.event, e.at]));
  const byAgent = new Map<string, string[]>();
  for (const v of input.verdicts) {
    if (!v.allowed) byAgent.set(v.agent, [...(byAgent.get(v.agent) ?? []), v.url]);
  }
  const cache = new ParseCache();
  const ai = input.agents
    .filter((agent) => isAiCrawler(agent.token))
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
  return {
    origin: input.origin,
    changes: ranked.map((event) => ({ at: at.get(event)!, event })),
    disallowed: [...byAgent].map(([agent, urls]) => ({ agent, urls })),
    health: health(input),
    ai,
  };
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
