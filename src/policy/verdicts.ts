import { compileAgent, parseRobotsTxt, prepareUrl } from '../robots/index.js';
import type {
  AgentRules,
  Directive,
  PreparedUrl,
  Profile,
  RobotsTxt,
  SharedMatchers,
} from '../robots/index.js';
import { classifyFetch } from './access.js';
import { fileCondition } from './file-condition.js';
import type { FileCondition } from './file-condition.js';
import type { Access, FetchOutcome } from './access.js';

/** A watched crawler and the profile it reads robots.txt with. */
export interface WatchedAgent {
  readonly token: string;
  readonly profile: Profile;
}

/** Why a verdict is what it is: a rule of the file, or the access state. */
export type VerdictCause =
  | {
      readonly type: 'rule';
      readonly directive: Directive;
      readonly pattern: string;
      readonly line: number;
    }
  | { readonly type: 'access'; readonly access: 'unreachable' | 'unavailable' };

/** (watch, agent) → allowed or disallowed, with its cause (null: allowed, no rule applies). */
export interface WatchVerdict {
  readonly url: string;
  readonly agent: string;
  readonly profile: Profile;
  readonly allowed: boolean;
  readonly cause: VerdictCause | null;
}

/** Everything the verdicts of one state of a site depend on. */
export interface RobotsState {
  readonly fetch: FetchOutcome;
  /** The body of this state, when the fetch was 2xx. */
  readonly body: Uint8Array | null;
  /** The body of the last state that had one (the "last good copy"), if any. */
  readonly lastGoodBody: Uint8Array | null;
  /** Unreachable for 30 days or more: Google and RFC 9309 fall back to the last good copy. */
  readonly stale: boolean;
}

/** What an agent's profile makes of a state: the file to apply, or an access verdict. */
export type Effective =
  | { readonly kind: 'rules'; readonly body: Uint8Array; readonly fromLastGood: boolean }
  | { readonly kind: 'access'; readonly access: 'unreachable' | 'unavailable' };

/**
 * Resolves a state for a profile: 2xx → its rules; 4xx-like → allowed; 5xx-like →
 * disallowed, except after 30 days (Google, RFC 9309: the last good copy, or nothing
 * disallowed if there never was one) and under the 1996 standard, which defers to the
 * previous state at once (the last good copy, else disallowed).
 */
export function resolveState(state: RobotsState, profile: Profile): Effective {
  const classification = classifyFetch(state.fetch, profile);
  const lastGood = state.lastGoodBody;
  switch (classification) {
    case 'ok':
      return { kind: 'rules', body: state.body ?? new Uint8Array(), fromLastGood: false };
    case 'unavailable':
      return { kind: 'access', access: 'unavailable' };
    case 'defer':
      return lastGood
        ? { kind: 'rules', body: lastGood, fromLastGood: true }
        : { kind: 'access', access: 'unreachable' };
    case 'unreachable':
      if (state.stale && profile !== 'legacy') {
        return lastGood
          ? { kind: 'rules', body: lastGood, fromLastGood: true }
          : { kind: 'access', access: 'unavailable' };
      }
      return { kind: 'access', access: 'unreachable' };
  }
}

/**
 * Parses each body once per profile, compiles each crawler's rules once per body and
 * profile, and tells each body's condition once, within one computation (a new state's
 * verdicts, events and causes share one).
 */
export class ParseCache {
  readonly #parsed = new Map<Uint8Array, Map<Profile, RobotsTxt>>();
  readonly #compiled = new Map<RobotsTxt, Map<string, AgentRules>>();
  readonly #shared = new Map<RobotsTxt, SharedMatchers>();
  readonly #conditions = new Map<Uint8Array, Map<boolean, FileCondition>>();

  parse(body: Uint8Array, profile: Profile): RobotsTxt {
    let byProfile = this.#parsed.get(body);
    if (byProfile === undefined)
      this.#parsed.set(body, (byProfile = new Map<Profile, RobotsTxt>()));
    let parsed = byProfile.get(profile);
    if (parsed === undefined) {
      parsed = parseRobotsTxt(body, { profile, lint: false });
      byProfile.set(profile, parsed);
    }
    return parsed;
  }

  /** A crawler's rules in a body under a profile (compileAgent), compiled once. */
  compile(body: Uint8Array, profile: Profile, token: string): AgentRules {
    const parsed = this.parse(body, profile);
    let byToken = this.#compiled.get(parsed);
    if (byToken === undefined)
      this.#compiled.set(parsed, (byToken = new Map<string, AgentRules>()));
    let rules = byToken.get(token);
    if (rules === undefined) {
      // The crawlers obeying the same groups of this file share their compiled rules.
      let shared = this.#shared.get(parsed);
      if (shared === undefined) this.#shared.set(parsed, (shared = new Map() as SharedMatchers));
      byToken.set(token, (rules = compileAgent(parsed, token, {}, shared)));
    }
    return rules;
  }

  /** What a body is (fileCondition), told once. */
  condition(body: Uint8Array, truncated: boolean): FileCondition {
    let byCut = this.#conditions.get(body);
    if (byCut === undefined)
      this.#conditions.set(body, (byCut = new Map<boolean, FileCondition>()));
    let condition = byCut.get(truncated);
    if (condition === undefined) byCut.set(truncated, (condition = fileCondition(body, truncated)));
    return condition;
  }
}

/** Verdicts for every watch × agent of a site in one state. */
export function computeVerdicts(
  state: RobotsState,
  watches: readonly string[],
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): WatchVerdict[] {
  const verdicts: WatchVerdict[] = [];
  // Each URL is parsed and normalised once per profile, not once per crawler.
  const preparedByProfile = new Map<Profile, PreparedUrl[]>();
  const preparedFor = (profile: Profile): PreparedUrl[] => {
    let prepared = preparedByProfile.get(profile);
    if (prepared === undefined)
      preparedByProfile.set(profile, (prepared = watches.map((url) => prepareUrl(url, profile))));
    return prepared;
  };
  for (const agent of agents) {
    const effective = resolveState(state, agent.profile);
    if (effective.kind === 'access') {
      const allowed = effective.access === 'unavailable';
      const cause: VerdictCause = { type: 'access', access: effective.access };
      for (const url of watches) {
        verdicts.push({ url, agent: agent.token, profile: agent.profile, allowed, cause });
      }
      continue;
    }
    const rules = cache.compile(effective.body, agent.profile, agent.token);
    // One cause object per deciding rule, shared by the URLs it decides (read-only).
    const causes = new Map<object, VerdictCause>();
    const prepared = preparedFor(agent.profile);
    for (let i = 0; i < watches.length; i++) {
      const url = watches[i]!;
      const { allowed, rule } = rules.evaluatePrepared(prepared[i]!);
      let cause: VerdictCause | null = null;
      if (rule !== null) {
        cause = causes.get(rule) ?? null;
        if (cause === null) causes.set(rule, (cause = { type: 'rule', ...rule }));
      }
      verdicts.push({ url, agent: agent.token, profile: agent.profile, allowed, cause });
    }
  }
  return verdicts;
}

/** The access of a state for the site's own profile, for fetch-status events and history. */
export function siteAccess(state: Pick<RobotsState, 'fetch' | 'stale'>, profile: Profile): Access {
  const classification = classifyFetch(state.fetch, profile);
  return classification === 'defer' ? 'unreachable' : classification;
}
