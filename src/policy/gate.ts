/**
 * The deploy gate (DESIGN.md: "intent"): a draft robots.txt judged before it ships,
 * against the live file, over the site's watched URLs, its URL set (sitemaps) and its
 * intent. Pure: the draft, the live fetch and the site's settings go in; what the draft
 * would do, and whether it may ship, come out.
 *
 * It passes when the draft keeps the site as intended and newly blocks no more of the URL
 * set than notify.coverage lets a change block without alerting. Watched pages the draft
 * newly blocks where the intent says nothing, and the draft's lint findings, are warnings.
 */
import { MAX_ROBOTS_BYTES, parseRobotsTxt } from '../robots/index.js';
import type { LintFinding, Profile } from '../robots/index.js';
import type { FetchOutcome } from './access.js';
import { causeOrder } from './changes/cause-model.js';
import type {
  CauseSide,
  ChangeCause,
  CoverageCause,
  CoverageThresholds,
} from './changes/cause-model.js';
import { causesOfChange } from './changes/causes.js';
import { fetchStatusOf } from './changes/events.js';
import type { FetchStatus } from './changes/events.js';
import { coverageCauses } from './changes/usage-causes.js';
import { compareCoverage } from './coverage-change.js';
import type { CoverageChange } from './coverage-change.js';
import { fileCondition } from './file-condition.js';
import type { FileCondition } from './file-condition.js';
import type { BodyCut } from './fetch-result.js';
import { evaluateIntent, expectationOf, pathOf } from './intent.js';
import type { IntentEvaluation, IntentRule, LiveMarkedViolation, Violation } from './intent.js';
import { computeVerdicts, ParseCache } from './verdicts.js';
import type { RobotsState, WatchedAgent, WatchVerdict } from './verdicts.js';

export interface GateInput {
  /** The site's profile (what the live file's status means). */
  readonly profile: Profile;
  readonly agents: readonly WatchedAgent[];
  /** Watched URLs, absolute and normalised as a crawler requests them. */
  readonly watches: readonly string[];
  readonly intent: readonly IntentRule[];
  /** The draft, as it would be served (Google reads the first 500 KiB). */
  readonly draft: Uint8Array;
  /** The live robots.txt as fetched now (its body cut at 500 KiB, as robowatch reads it). */
  readonly live: FetchOutcome & {
    readonly body: Uint8Array | null;
    readonly cut: BodyCut | null;
  };
  /** The site's URL set (paths, from its sitemaps); null when it is not read. */
  readonly paths: readonly string[] | null;
  readonly thresholds: CoverageThresholds;
  /**
   * Fail only on what the draft makes worse: pairs the live file already gets wrong do
   * not fail it (they are still reported).
   */
  readonly newOnly?: boolean;
}

/** A watched cell the draft judges differently from the intent. */
export type GateViolation = LiveMarkedViolation;

export interface GateResult {
  /**
   * The draft keeps the site as intended (with `newOnly`: differs from the intent only
   * where the live file does) and blocks no more of the URL set than allowed.
   */
  readonly passed: boolean;
  /** Pairs the live file already gets wrong did not fail the gate. */
  readonly newOnly: boolean;
  /** Pairs that differ from the intent with the draft and not with the live file. */
  readonly newViolations: number;
  readonly draft: {
    readonly bytes: number;
    readonly lines: number;
    readonly condition: FileCondition;
  };
  readonly live: { readonly status: FetchStatus; readonly read: boolean };
  /** The draft judged against the intent (as if served with a 200). */
  readonly intent: IntentEvaluation;
  /** The live file judged against the same intent, for "already so". */
  readonly liveIntent: IntentEvaluation;
  /** The cells that differ from the intent with the draft (at most MAX_VIOLATIONS). */
  readonly violations: readonly GateViolation[];
  /** Every cell that differs from the intent with the draft, for a report page by page. */
  readonly everyViolation: readonly GateViolation[];
  /** How much of the URL set the draft newly blocks or frees; null without a URL set. */
  readonly coverage: {
    readonly urls: number;
    readonly causes: readonly CoverageCause[];
    /** notify.coverage: what a change may block without failing the gate. */
    readonly thresholds: CoverageThresholds;
  } | null;
  /** Everything the draft changes compared with the live file, most severe first. */
  readonly causes: readonly ChangeCause[];
  /** Watched cells the draft newly blocks that no intent entry judges. */
  readonly unjudged: readonly WatchVerdict[];
  /** The draft's lint findings. */
  readonly findings: readonly LintFinding[];
}

/** Judges a draft robots.txt against the live one, the URL set and the intent. */
export function gateDraft(input: GateInput): GateResult {
  const cache = new ParseCache();
  const { profile, agents, watches } = input;
  const truncated = input.draft.length > MAX_ROBOTS_BYTES;
  const draftBody = truncated ? input.draft.subarray(0, MAX_ROBOTS_BYTES) : input.draft;
  const draftFetch: FetchOutcome = { status: 200, error: null };
  const draftState: RobotsState = {
    fetch: draftFetch,
    body: draftBody,
    lastGoodBody: draftBody,
    stale: false,
  };
  const liveState: RobotsState = {
    fetch: input.live,
    body: input.live.body,
    lastGoodBody: input.live.body,
    stale: false,
  };
  const draftVerdicts = computeVerdicts(draftState, watches, agents, cache);
  const liveVerdicts = computeVerdicts(liveState, watches, agents, cache);

  const condition = fileCondition(input.draft, truncated);
  const every: Violation[] = [];
  const intent = evaluateIntent(
    input.intent,
    draftVerdicts,
    { status: fetchStatusOf(draftFetch, profile, false), fileCondition: condition, refused: null },
    every,
  );
  const liveIntent = evaluateIntent(input.intent, liveVerdicts, {
    status: fetchStatusOf(input.live, profile, false),
    fileCondition:
      input.live.body === null ? null : fileCondition(input.live.body, input.live.cut !== null),
    refused: null,
  });
  // A pair the live file already gets wrong: its live verdict is not the intended one.
  const liveAllowed = new Map(liveVerdicts.map((v) => [`${v.url}\n${v.agent}`, v.allowed]));
  const wrongLive = (v: Violation) =>
    liveAllowed.get(`${v.url}\n${v.agent}`) === (v.expected === 'disallowed');
  const everyViolation = every.map((v) => ({ ...v, live: wrongLive(v) }));
  const violations = intent.violations.map((v) => ({ ...v, live: wrongLive(v) }));
  const newViolations = everyViolation.filter((v) => !v.live).length;

  const before: CauseSide = {
    fetch: input.live,
    stale: false,
    lastGood:
      input.live.body === null
        ? null
        : { body: input.live.body, truncated: input.live.cut !== null, cut: input.live.cut },
    verdicts: liveVerdicts,
  };
  const after: CauseSide = {
    fetch: draftFetch,
    stale: false,
    lastGood: { body: draftBody, truncated, cut: truncated ? cutOf(input.draft) : null },
    verdicts: draftVerdicts,
  };
  // Against the live file as crawlers read it now: one that is missing (4xx) lets them
  // fetch everything, so all the draft blocks is new; one that fails them blocks all.
  const coverage =
    input.paths === null || input.paths.length === 0
      ? null
      : {
          urls: input.paths.length,
          causes: coverageCauses(
            {
              coverage: {
                changes: coverageChanges(liveState, draftState, input, cache),
                thresholds: input.thresholds,
              },
            },
            true,
          ),
          thresholds: input.thresholds,
        };
  const causes = [
    ...causesOfChange({ profile, agents, before, after }).filter((c) => c.type !== 'coverage'),
    ...(coverage?.causes ?? []),
  ].sort(causeOrder);

  const was = new Map(liveVerdicts.map((v) => [`${v.url}\n${v.agent}`, v.allowed]));
  const unjudged = draftVerdicts.filter(
    (v) =>
      !v.allowed &&
      was.get(`${v.url}\n${v.agent}`) === true &&
      expectationOf(input.intent, pathOf(v.url), v.agent) === null,
  );
  const findings = parseRobotsTxt(draftBody, { profile }).lint;
  const passed =
    (input.newOnly === true
      ? intent.state !== 'cannot-check' && newViolations === 0
      : intent.state === 'as-intended') &&
    !(coverage?.causes ?? []).some((c) => c.significant && c.newlyDisallowed > 0);
  return {
    passed,
    newOnly: input.newOnly === true,
    newViolations,
    draft: { bytes: input.draft.length, lines: lineCount(input.draft), condition },
    live: { status: fetchStatusOf(input.live, profile, false), read: input.live.body !== null },
    intent,
    liveIntent,
    violations,
    everyViolation,
    coverage,
    causes,
    unjudged,
    findings,
  };
}

/**
 * How the draft moves the URL set for each crawler, leaving out the URLs the intent
 * means to keep it out of: blocking those is what the owner asked for. Crawlers the
 * intent keeps out of the same paths are compared together.
 */
function coverageChanges(
  live: RobotsState,
  draft: RobotsState,
  input: GateInput,
  cache: ParseCache,
): CoverageChange[] {
  const paths = input.paths ?? [];
  const keptOut = (token: string) =>
    input.intent.filter((r) => r.expect === 'disallowed' && r.tokens.includes(token.toLowerCase()));
  const groups = new Map<string, WatchedAgent[]>();
  for (const agent of input.agents) {
    const key = JSON.stringify(keptOut(agent.token).length === 0 ? [] : agent.token.toLowerCase());
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [agent]);
    else group.push(agent);
  }
  return [...groups.values()].flatMap((group) => {
    const token = group[0]!.token;
    const set =
      keptOut(token).length === 0
        ? paths
        : paths.filter((path) => expectationOf(input.intent, path, token) !== 'disallowed');
    return compareCoverage(live, draft, set, group, cache);
  });
}

/** What Google drops of a draft over 500 KiB. */
function cutOf(draft: Uint8Array): BodyCut {
  const dropped = draft.subarray(MAX_ROBOTS_BYTES);
  return {
    droppedBytes: dropped.length,
    droppedLineBreaks: dropped.reduce((n, byte) => n + (byte === 0x0a ? 1 : 0), 0),
    complete: true,
  };
}

function lineCount(body: Uint8Array): number {
  let lines = body.length === 0 || body[body.length - 1] === 0x0a ? 0 : 1;
  for (const byte of body) if (byte === 0x0a) lines++;
  return lines;
}
