import type { Directive, Profile, RobotsRule } from '../../robots/index.js';
import type { Access, FetchOutcome } from '../access.js';
import type { FetchErrorKind } from '../fetch-result.js';
import { computedCells, lookupOf, ParseCache, siteAccess } from '../verdicts.js';
import { sameRules } from './group-diff.js';
import type { RecordedVerdicts, VerdictCause, WatchedAgent, WatchVerdict } from '../verdicts.js';

/** A site's fetch status as change events show it. */
export interface FetchStatus {
  readonly access: Access;
  readonly status?: number;
  readonly error?: FetchErrorKind;
}

/** A fetch outcome as change events show it: the site's access under its profile, and what the server said. */
export function fetchStatusOf(fetch: FetchOutcome, profile: Profile, stale: boolean): FetchStatus {
  return {
    access: siteAccess({ fetch, stale }, profile),
    ...(fetch.status === null ? {} : { status: fetch.status }),
    ...(fetch.error === null ? {} : { error: fetch.error }),
  };
}

/** One rule an agent obeys. */
export interface EffectiveRule {
  readonly agent: string;
  readonly directive: Directive;
  readonly pattern: string;
  readonly line: number;
}

/** A difference between two consecutive states of a site (DESIGN.md: "change event"). */
export type ChangeEvent =
  | {
      readonly type: 'newly_disallowed' | 'newly_allowed';
      readonly site: string;
      readonly url: string;
      readonly agent: string;
      readonly cause: VerdictCause;
    }
  | {
      readonly type: 'fetch_status_changed';
      readonly site: string;
      readonly before: FetchStatus;
      readonly after: FetchStatus;
    }
  | {
      readonly type: 'rules_changed';
      readonly site: string;
      readonly added: readonly EffectiveRule[];
      readonly removed: readonly EffectiveRule[];
      /** Set where a bounded message lists only the first rules (see boundEvents). */
      readonly addedTotal?: number;
      readonly removedTotal?: number;
    }
  | {
      readonly type: 'sitemaps_changed';
      readonly site: string;
      readonly added: readonly string[];
      readonly removed: readonly string[];
      readonly addedTotal?: number;
      readonly removedTotal?: number;
    };

export type ChangeEventType = ChangeEvent['type'];

/** Every change event type, in the order a reader meets them (config, filters, API errors). */
export const CHANGE_EVENT_TYPES = [
  'newly_disallowed',
  'newly_allowed',
  'fetch_status_changed',
  'rules_changed',
  'sitemaps_changed',
] as const satisfies readonly ChangeEventType[];

/** Whether a string names a change event type. */
export function isChangeEventType(value: string): value is ChangeEventType {
  return (CHANGE_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * An agent's rules in a body. Agents that obey the same groups share one array (compiled
 * once: ParseCache), so the comparison of two states compares each pair of arrays once.
 */
export interface AgentRuleList {
  readonly agent: string;
  readonly rules: readonly RobotsRule[];
}

/** What the events of a state are computed from (the state before: its verdicts as recorded). */
export interface StateView<Verdicts extends RecordedVerdicts = readonly WatchVerdict[]> {
  readonly fetchStatus: FetchStatus;
  readonly verdicts: Verdicts;
  /** The agents' rules in the latest body seen up to this state; null if there never was one. */
  readonly rules: readonly AgentRuleList[] | null;
  /** The sitemaps of that body; null if there never was one. */
  readonly sitemaps: readonly string[] | null;
}

/** Every agent's effective rules in a body, each under the agent's profile. */
export function effectiveRules(
  body: Uint8Array,
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): AgentRuleList[] {
  return agents.map((agent) => ({
    agent: agent.token,
    rules: cache.compile(body, agent.profile, agent.token).rules,
  }));
}

/** The sitemap URLs of a body, in order, without repeats. */
export function sitemapsOf(body: Uint8Array, cache = new ParseCache()): string[] {
  return [...new Set(cache.parse(body, 'google').sitemaps.map((s) => s.url))];
}

/**
 * The change events between two consecutive states of a site; none for a site's first
 * state (its baseline). Order: fetch status, verdicts (in watch × agent order), rules,
 * sitemaps.
 */
export function diffStates(
  site: string,
  before: StateView<RecordedVerdicts> | null,
  after: StateView,
  /** The places of `after`'s verdicts that flipped, when found already (flippedPlaces). */
  flipped?: readonly number[],
): ChangeEvent[] {
  if (before === null) return [];
  const events: ChangeEvent[] = [];
  const b = before.fetchStatus;
  const a = after.fetchStatus;
  if (b.access !== a.access || b.status !== a.status) {
    events.push({ type: 'fetch_status_changed', site, before: b, after: a });
  }

  const old = lookupOf(before.verdicts);
  const allowedNow: ChangeEvent[] = [];
  const event = flippedEvent(site);
  for (const i of flipped ?? flippedPlaces(old, after.verdicts)) {
    const verdict = after.verdicts[i]!;
    if (!verdict.allowed) {
      events.push(event('newly_disallowed', verdict, verdict.cause!));
    } else {
      // Allowed by a rule or by the access state; if by neither, what stopped applying.
      const cause = verdict.cause ?? old.find(verdict, i)!.cause!;
      allowedNow.push(event('newly_allowed', verdict, cause));
    }
  }
  // A loop, not a spread: a change may flip a hundred thousand pairs.
  for (const event of allowedNow) events.push(event);

  if (before.rules !== null && after.rules !== null) {
    const added = ruleChanges(after.rules, before.rules);
    const removed = ruleChanges(before.rules, after.rules);
    if (added.length > 0 || removed.length > 0) {
      events.push({
        type: 'rules_changed',
        site,
        added,
        removed,
      });
    }
  }
  if (before.sitemaps !== null && after.sitemaps !== null) {
    const old = new Set(before.sitemaps);
    const now = new Set(after.sitemaps);
    const added = after.sitemaps.filter((s) => !old.has(s));
    const removed = before.sitemaps.filter((s) => !now.has(s));
    if (added.length > 0 || removed.length > 0)
      events.push({ type: 'sitemaps_changed', site, added, removed });
  }
  return events;
}

/**
 * The places in `after` whose verdict differs from its counterpart's before (pairs with
 * no counterpart are not flips), in order: what a new state's events and causes are about.
 */
export function flippedPlaces(before: RecordedVerdicts, after: readonly WatchVerdict[]): number[] {
  const old = lookupOf(before);
  // A check's verdicts against a stored set for the same watches and crawlers (nearly
  // every changed state): compared cell by cell, no verdict read.
  const computed = computedCells(after);
  const flips = computed === undefined ? null : (old.flipsOf?.(computed) ?? null);
  if (flips !== null) return flips;
  const places: number[] = [];
  for (let i = 0; i < after.length; i++) {
    const verdict = after[i]!;
    const was = old.allowed(verdict, i);
    if (was !== undefined && was !== verdict.allowed) places.push(i);
  }
  return places;
}

/**
 * Each agent's rules in `a` that its rules in `b` do not have, agent by agent in `a`'s
 * order: compared in the form their profile reads them (equivalent spellings are equal),
 * as multisets (a rule written twice and once more counts).
 */
function ruleChanges(a: readonly AgentRuleList[], b: readonly AgentRuleList[]): EffectiveRule[] {
  const other = new Map(b.map((list) => [list.agent, list.rules]));
  const compared = new Map<
    readonly RobotsRule[],
    Map<readonly RobotsRule[], readonly RobotsRule[]>
  >();
  const changes: EffectiveRule[] = [];
  for (const { agent, rules } of a) {
    const against = other.get(agent) ?? NO_RULES;
    let byOther = compared.get(rules);
    if (byOther === undefined)
      compared.set(rules, (byOther = new Map<readonly RobotsRule[], readonly RobotsRule[]>()));
    let missing = byOther.get(against);
    if (missing === undefined) byOther.set(against, (missing = difference(rules, against)));
    for (const { directive, pattern, line } of missing)
      changes.push({ agent, directive, pattern, line });
  }
  return changes;
}

/**
 * No rules, as a list of the kind a non-empty difference is (an array literal `[]` is a
 * list of small integers to V8: a loop over both kinds was optimised for one, then thrown
 * away and optimised again when the other came, once per check process).
 */
const NO_RULES: readonly RobotsRule[] = [null as unknown as RobotsRule].slice(1);

/** Rules of `a` not in `b`, as multisets of the form their profile reads them in. */
function difference(a: readonly RobotsRule[], b: readonly RobotsRule[]): readonly RobotsRule[] {
  // Most groups are as they were: the same rules in the same order have none.
  if (sameRules(a, b)) return NO_RULES;
  // Counted by directive, then by pattern (no key made per rule).
  const counts = { allow: new Map<string, number>(), disallow: new Map<string, number>() };
  for (const rule of b) {
    const byMatch = counts[rule.directive];
    byMatch.set(rule.match, (byMatch.get(rule.match) ?? 0) + 1);
  }
  return a.filter((rule) => {
    const byMatch = counts[rule.directive];
    const left = byMatch.get(rule.match) ?? 0;
    if (left === 0) return true;
    byMatch.set(rule.match, left - 1);
    return false;
  });
}

/**
 * A flipped pair's event with its JSON text, made as the event is made. The text is a
 * private field, not a property: JSON, spreads and copies see the event's fields alone.
 * (A WeakMap from event to text cost every young collection a weak entry per event:
 * 33,000 in a changed check of 3,000 sites.)
 */
class FlippedEvent {
  readonly type: 'newly_disallowed' | 'newly_allowed';
  readonly site: string;
  readonly url: string;
  readonly agent: string;
  readonly cause: VerdictCause;
  readonly #json: string;

  constructor(
    type: 'newly_disallowed' | 'newly_allowed',
    site: string,
    url: string,
    agent: string,
    cause: VerdictCause,
    json: string,
  ) {
    this.type = type;
    this.site = site;
    this.url = url;
    this.agent = agent;
    this.cause = cause;
    this.#json = json;
  }

  static json(event: FlippedEvent): string {
    return event.#json;
  }
}

/** The texts of events other than flipped pairs' (a state has one or two). */
const eventTexts = new WeakMap<ChangeEvent, string>();

/**
 * The flipped pairs' events of one site, each with its JSON text made as it is made: the
 * site's and each cause's text written out once, not once per event (a change flips
 * thousands of pairs of a few causes). The same text as JSON.stringify gives the event.
 */
function flippedEvent(site: string) {
  const siteText = JSON.stringify(site);
  /** A verdict's cause as JSON: the URLs and crawlers one rule decides share its object. */
  const causeTexts = new Map<VerdictCause, string>();
  return (
    type: 'newly_disallowed' | 'newly_allowed',
    { url, agent }: WatchVerdict,
    cause: VerdictCause,
  ): ChangeEvent => {
    // A pair without a cause is not one the check makes; its text is made when asked for.
    if (cause === undefined || cause === null) return { type, site, url, agent, cause };
    let causeText = causeTexts.get(cause);
    if (causeText === undefined) causeTexts.set(cause, (causeText = JSON.stringify(cause)));
    return new FlippedEvent(
      type,
      site,
      url,
      agent,
      cause,
      `{"type":"${type}","site":${siteText},"url":${JSON.stringify(url)},"agent":${JSON.stringify(agent)},"cause":${causeText}}`,
    );
  };
}

/**
 * An event as JSON text, written out once: the state's statement stores it and
 * `check --json` prints it (33,000 events in a changed check of 3,000 sites).
 */
export function eventJson(event: ChangeEvent): string {
  if (event instanceof FlippedEvent) return FlippedEvent.json(event);
  let text = eventTexts.get(event);
  if (text === undefined) eventTexts.set(event, (text = JSON.stringify(event)));
  return text;
}

/** Past this many rules (or sitemaps) in one event, the rest are counted, not listed. */
export const MAX_LISTED_IN_EVENT = 500;

/**
 * Events as machines receive them in bounded messages (webhooks, the API): an event
 * listing thousands of rules keeps the first 500 of each list, and says how many there
 * were in `addedTotal` / `removedTotal`. Events with short lists are unchanged.
 */
export function boundEvents(events: readonly ChangeEvent[]): ChangeEvent[] {
  return events.map((event) => {
    if (event.type !== 'rules_changed' && event.type !== 'sitemaps_changed') return event;
    const { added, removed } = event;
    if (added.length <= MAX_LISTED_IN_EVENT && removed.length <= MAX_LISTED_IN_EVENT) return event;
    return {
      ...event,
      added: added.slice(0, MAX_LISTED_IN_EVENT),
      removed: removed.slice(0, MAX_LISTED_IN_EVENT),
      addedTotal: added.length,
      removedTotal: removed.length,
    } as typeof event;
  });
}
