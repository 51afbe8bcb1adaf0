/**
 * The tester: what a proposed robots.txt would decide for chosen URLs and agents, and
 * what that changes compared with the live state. Pure.
 */
import { parseRobotsTxt } from '../robots/index.js';
import type { LintFinding } from '../robots/index.js';
import { preferencesOf } from './preferences.js';
import type { PreferencesDocument } from './preferences.js';
import { computeCoverage, groupAlike } from './coverage.js';
import { compareCoverage } from './coverage-change.js';
import type { PrefixCount, RuleCount } from './coverage.js';
import { computeVerdicts, ParseCache } from './verdicts.js';
import type { RobotsState, WatchedAgent, WatchVerdict } from './verdicts.js';

export interface TesterInput {
  /** The proposed file. */
  readonly body: Uint8Array;
  readonly agents: readonly WatchedAgent[];
  /** Absolute URLs, normalised as a crawler requests them. */
  readonly urls: readonly string[];
  /** The site's live state, to compare with; null when there is none. */
  readonly live: RobotsState | null;
  /** The site's URL set (paths, from its sitemaps), to say what the file does to all of it. */
  readonly paths?: readonly string[] | undefined;
}

/** What the proposed file does to the site's whole URL set, for crawlers alike together. */
export interface TesterSiteEffect {
  readonly agents: readonly string[];
  /** URLs the proposed file disallows. */
  readonly disallowed: number;
  /** Compared with the live file (0 without one). */
  readonly newlyDisallowed: number;
  readonly newlyAllowed: number;
  /** Where the newly disallowed URLs are, most first. */
  readonly prefixes: readonly PrefixCount[];
  /** The lines of the proposed file that newly disallow them. */
  readonly rules: readonly RuleCount[];
  readonly samples: readonly string[];
}

export interface TesterRow {
  readonly url: string;
  readonly agent: string;
  readonly proposed: WatchVerdict;
  readonly live: WatchVerdict | null;
  /** The proposed file would flip this verdict. */
  readonly changed: boolean;
  /**
   * The usage preferences the proposed file states for it (Content-Usage,
   * Content-Signal): null where the crawler may not fetch it; absent without such lines.
   */
  readonly preferences?: PreferencesDocument;
}

export interface TesterResult {
  readonly rows: readonly TesterRow[];
  /** Lint findings of the proposed file (read with the first agent's profile). */
  readonly findings: readonly LintFinding[];
  /** The whole URL set: its size and the effect per group of crawlers; null without one. */
  readonly site: { readonly urls: number; readonly effects: readonly TesterSiteEffect[] } | null;
}

/**
 * What one test may ask: a file as large as Google reads, and a table of at most
 * MAX_CELLS verdicts of URLs no longer than browsers and Google handle well. Past these
 * the tester would only amplify a request into a response thousands of times larger.
 */
export const TESTER_LIMITS = {
  robotsBytes: 512_000,
  urls: 1000,
  urlChars: 2048,
  agents: 50,
  cells: 10_000,
  /** Characters of the result as JSON. */
  resultChars: 8_000_000,
  /** The longest rule pattern repeated in each row; longer ones end in "…". */
  patternChars: 300,
} as const;

/** Evaluates the proposed file as if it were served with a 200, beside the live state. */
export function testRobotsTxt(input: TesterInput): TesterResult {
  const cache = new ParseCache();
  const proposedState: RobotsState = {
    fetch: { status: 200, error: null },
    body: input.body,
    lastGoodBody: input.body,
    stale: false,
  };
  const proposed = computeVerdicts(proposedState, input.urls, input.agents, cache);
  const live = input.live ? computeVerdicts(input.live, input.urls, input.agents, cache) : null;
  const usage = preferencesOf(
    input.body,
    proposed.map((v) => ({ url: v.url, agent: { token: v.agent, profile: v.profile } })),
    cache,
  );
  const rows = proposed.map((verdict, i) => {
    const before = live?.[i] ?? null;
    const preferences = usage.get(`${verdict.url}\n${verdict.agent}`);
    return {
      url: verdict.url,
      agent: verdict.agent,
      proposed: shortened(verdict),
      live: before === null ? null : shortened(before),
      changed: before !== null && before.allowed !== verdict.allowed,
      ...(preferences === undefined ? {} : { preferences }),
    };
  });
  const profile = input.agents[0]?.profile ?? 'google';
  return {
    rows,
    findings: parseRobotsTxt(input.body, { profile }).lint,
    site: siteEffect(input, proposedState, cache),
  };
}

/** What the proposed file does to every URL of the site's set, beside the live file. */
function siteEffect(
  input: TesterInput,
  proposed: RobotsState,
  cache: ParseCache,
): TesterResult['site'] {
  const paths = input.paths;
  if (paths === undefined || paths.length === 0) return null;
  const coverage = computeCoverage(proposed, paths, input.agents, cache);
  const changes = new Map(
    input.live === null
      ? []
      : compareCoverage(input.live, proposed, paths, input.agents, cache).map((c) => [c.agent, c]),
  );
  const effects = coverage.agents.map((agent) => {
    const change = changes.get(agent.agent);
    const effect = {
      disallowed: agent.disallowed,
      newlyDisallowed: change?.newlyDisallowed ?? 0,
      newlyAllowed: change?.newlyAllowed ?? 0,
      prefixes: (change?.prefixes ?? []).slice(0, 5),
      rules: (change?.rules ?? [])
        .slice(0, 5)
        .map((r) => ({ line: r.line, directive: r.directive, pattern: r.pattern, urls: r.urls })),
      samples: change?.samples ?? [],
    };
    return [agent.agent, effect] as const;
  });
  return {
    urls: paths.length,
    effects: groupAlike(effects).map(({ agents, value }) => ({ agents, ...value })),
  };
}

/** A verdict whose rule pattern is cut to TESTER_LIMITS.patternChars (its line names it). */
function shortened(verdict: WatchVerdict): WatchVerdict {
  const cause = verdict.cause;
  if (cause?.type !== 'rule' || cause.pattern.length <= TESTER_LIMITS.patternChars) return verdict;
  return {
    ...verdict,
    cause: { ...cause, pattern: `${cause.pattern.slice(0, TESTER_LIMITS.patternChars)}…` },
  };
}
