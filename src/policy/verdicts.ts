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

/**
 * A state's verdicts as the next state's are compared with them: each next verdict's
 * counterpart (the same URL and crawler) found without listing them all. A check reads
 * the state before its new one as a stored set (policy/verdict-sets.ts) and makes a verdict
 * of it only for the pairs that need one (those that flipped).
 */
export interface VerdictLookup {
  /**
   * Whether the counterpart of `verdict`, the i-th of the next state's, allows; undefined
   * when there is none. States computed for the same watches and crawlers list their
   * verdicts in the same order: the one at the same place is tried first.
   */
  allowed(verdict: Pick<WatchVerdict, 'url' | 'agent'>, i: number): boolean | undefined;
  /** The counterpart itself. */
  find(verdict: Pick<WatchVerdict, 'url' | 'agent'>, i: number): WatchVerdict | undefined;
  /**
   * The places of a computed list (its compact form) whose verdict differs from its
   * counterpart's, cell by cell, when both are for the same URLs and crawlers in the same
   * order; null otherwise (each verdict is then looked up).
   */
  flipsOf?(computed: VerdictCells): number[] | null;
}

/** A state's verdicts as recorded: listed, or read back compactly (VerdictLookup). */
export type RecordedVerdicts = readonly WatchVerdict[] | VerdictLookup;

/** The lookup of recorded verdicts (a list is looked up by place, then by URL and crawler). */
export function lookupOf(verdicts: RecordedVerdicts): VerdictLookup {
  if (!isList(verdicts)) return verdicts;
  let byAgent: Map<string, Map<string, WatchVerdict>> | undefined;
  const find = (verdict: Pick<WatchVerdict, 'url' | 'agent'>, i: number) => {
    const same = verdicts[i];
    if (same !== undefined && same.url === verdict.url && same.agent === verdict.agent) return same;
    if (byAgent === undefined) {
      byAgent = new Map();
      for (const v of verdicts) {
        let byUrl = byAgent.get(v.agent);
        if (byUrl === undefined) byAgent.set(v.agent, (byUrl = new Map<string, WatchVerdict>()));
        byUrl.set(v.url, v);
      }
    }
    return byAgent.get(verdict.agent)?.get(verdict.url);
  };
  return { find, allowed: (verdict, i) => find(verdict, i)?.allowed };
}

function isList(verdicts: RecordedVerdicts): verdicts is readonly WatchVerdict[] {
  return Array.isArray(verdicts);
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

/**
 * A state's verdicts in the compact form a stored set keeps (policy/verdict-sets.ts): the
 * distinct URLs, crawlers and causes, and one number per (URL, crawler) cell.
 */
export interface VerdictCells {
  readonly urls: readonly string[];
  readonly agents: readonly string[];
  readonly profiles: readonly Profile[];
  /** Distinct by content (causeKey), in the order the verdicts first give them. */
  readonly causes: readonly VerdictCause[];
  /** Per cell (URL i, crawler j) at i × crawlers + j: cause index (from 1; 0: none) × 2 + allowed. */
  readonly cells: readonly number[];
}

/** The URLs and crawlers (with their profiles) a state's verdicts were computed for. */
export type VerdictAxes = Pick<VerdictCells, 'urls' | 'agents' | 'profiles'>;

/** What tells causes apart: all their fields, the pattern (free text) last. */
export function causeKey(cause: VerdictCause): string {
  return cause.type === 'rule'
    ? `r\0${cause.directive}\0${cause.line}\0${cause.pattern}`
    : `a\0${cause.access}`;
}

/**
 * The compact form computeVerdicts made with its verdicts, on the list itself: a WeakMap
 * entry per computed list cost the young collections a tenth of a check's verdicts (its
 * entries are weak references each collection must visit).
 */
const CELLS = Symbol('cells');
type Computed = readonly WatchVerdict[] & { [CELLS]?: VerdictCells };

/**
 * The compact form of verdicts computeVerdicts made, built as it made them (each crawler
 * lists every watch, in order: a verdict's cell is known without a lookup); undefined for
 * any other list.
 */
export function computedCells(verdicts: readonly WatchVerdict[]): VerdictCells | undefined {
  return (verdicts as Computed)[CELLS];
}

/** Verdicts for every watch × agent of a site in one state. */
export function computeVerdicts(
  state: RobotsState,
  watches: readonly string[],
  agents: readonly WatchedAgent[],
  cache = new ParseCache(),
): WatchVerdict[] {
  const urls = watches.length;
  const width = agents.length;
  const verdicts: WatchVerdict[] = [];
  // The compact form, when each URL and crawler is listed once (as a site's are).
  const cells: number[] | undefined =
    urls > 0 &&
    width > 0 &&
    new Set(watches).size === urls &&
    new Set(agents.map((a) => a.token)).size === width
      ? new Array<number>(urls * width)
      : undefined;
  const causes: VerdictCause[] = [];
  const byKey = new Map<string, number>();
  /** A cause's index in `causes` (from 1), content-equal causes sharing one. */
  const indexOf = (cause: VerdictCause | null): number => {
    if (cause === null) return 0;
    const key = causeKey(cause);
    let index = byKey.get(key);
    if (index === undefined) {
      causes.push(cause);
      byKey.set(key, (index = causes.length));
    }
    return index;
  };
  // Each URL is parsed and normalised once per profile, not once per crawler; each state
  // resolved once per profile.
  const byProfile = new Map<
    Profile,
    { effective: Effective; prepared: PreparedUrl[] | undefined; access?: Decided }
  >();
  // Crawlers that obey the same groups share one compiled matcher (ParseCache.compile):
  // most fall under "*", so each URL is decided once per matcher, not once per crawler,
  // and its cell worked out once. A decision's cause is one object per deciding rule,
  // shared by the URLs and crawlers it decides (read-only).
  const decided = new Map<AgentRules['evaluatePrepared'], Decided>();
  for (let j = 0; j < width; j++) {
    const agent = agents[j]!;
    const { token, profile } = agent;
    let reading = byProfile.get(profile);
    if (reading === undefined) {
      reading = { effective: resolveState(state, profile), prepared: undefined };
      byProfile.set(profile, reading);
    }
    const { effective } = reading;
    let decisions: Decided;
    if (effective.kind === 'access') {
      if (reading.access === undefined) {
        const allowed = effective.access === 'unavailable';
        const cause: VerdictCause = { type: 'access', access: effective.access };
        const cell = cells && indexOf(cause) * 2 + (allowed ? 1 : 0);
        const access: Decision[] = [];
        for (let i = 0; i < urls; i++) access.push(new Decision(allowed, cause, cell ?? 0));
        reading.access = access;
      }
      decisions = reading.access;
    } else {
      const decide = cache.compile(effective.body, profile, token).evaluatePrepared;
      let found = decided.get(decide);
      if (found === undefined) {
        reading.prepared ??= watches.map((url) => prepareUrl(url, profile));
        found = decideAll(decide, reading.prepared, cells === undefined ? undefined : indexOf);
        decided.set(decide, found);
      }
      decisions = found;
    }
    for (let i = 0; i < urls; i++) {
      const { allowed, cause, cell } = decisions[i]!;
      verdicts.push({ url: watches[i]!, agent: token, profile, allowed, cause });
      if (cells) cells[i * width + j] = cell;
    }
  }
  // Not enumerable: the list compares and copies as the verdicts alone.
  if (cells)
    Object.defineProperty(verdicts, CELLS, {
      value: {
        urls: watches,
        agents: agents.map((a) => a.token),
        profiles: agents.map((a) => a.profile),
        causes,
        cells,
      } satisfies VerdictCells,
    });
  return verdicts;
}

/** One URL decided by one matcher, and its cell (cause index × 2 + allowed). */
class Decision {
  constructor(
    readonly allowed: boolean,
    readonly cause: VerdictCause | null,
    readonly cell: number,
  ) {}
}

type Decided = readonly Decision[];

/** Each prepared URL decided, with one cause object per deciding rule. */
function decideAll(
  decide: AgentRules['evaluatePrepared'],
  prepared: readonly PreparedUrl[],
  indexOf: ((cause: VerdictCause | null) => number) | undefined,
): Decided {
  const causes = new Map<object, { cause: VerdictCause; index: number }>();
  // Pushed, not mapped: an array Array.prototype.map made was of one kind before V8
  // optimised this function and of another after, and computeVerdicts, optimised for
  // the first, was thrown away and compiled again (once per check process, 30 ms).
  const decisions: Decision[] = [];
  for (const url of prepared) {
    const { allowed, rule } = decide(url);
    const bit = allowed ? 1 : 0;
    if (rule === null) {
      decisions.push(new Decision(allowed, null, bit));
      continue;
    }
    let known = causes.get(rule);
    if (known === undefined) {
      const cause: VerdictCause = { type: 'rule', ...rule };
      known = { cause, index: indexOf === undefined ? 0 : indexOf(cause) };
      causes.set(rule, known);
    }
    decisions.push(new Decision(allowed, known.cause, known.index * 2 + bit));
  }
  return decisions;
}

/** The access of a state for the site's own profile, for fetch-status events and history. */
export function siteAccess(state: Pick<RobotsState, 'fetch' | 'stale'>, profile: Profile): Access {
  const classification = classifyFetch(state.fetch, profile);
  return classification === 'defer' ? 'unreachable' : classification;
}
