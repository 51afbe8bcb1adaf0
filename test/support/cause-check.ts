/**
 * The explanation invariant, checked on a site's real history: replay its versions as a
 * check would see them (the last good copy carried through outages), and at every step
 * every (URL × crawler) pair whose verdict flipped must be explained by exactly one
 * cause, and no cause may claim a flip that did not happen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtInPresets } from '../../src/config/agents.js';
import { shippedRegistry } from '../../src/config/registry.js';

const AGENT_PRESETS = builtInPresets(shippedRegistry().registry);
import type { ChangeCause } from '../../src/policy/changes/cause-model.js';
import { causesOfChange } from '../../src/policy/changes/causes.js';
import {
  diffStates,
  effectiveRules,
  eventJson,
  flippedPlaces,
  fetchStatusOf,
} from '../../src/policy/changes/events.js';
import type { StateView } from '../../src/policy/changes/events.js';
import { computeVerdicts, ParseCache } from '../../src/policy/verdicts.js';
import type { WatchedAgent, WatchVerdict } from '../../src/policy/verdicts.js';
import { MAX_ROBOTS_BYTES, parseRobotsTxt } from '../../src/robots/index.js';
import { encodeVerdicts, StoredVerdicts } from '../../src/policy/verdict-sets.js';

const HTML = new TextEncoder().encode('<!DOCTYPE html>\n<html><body>Error</body></html>\n');

/** One archived version: a status with a body, or a request that got no answer. */
export interface Version {
  readonly file: string;
  readonly status: number | null;
  readonly body: Uint8Array | null;
}

/** A site's versions in order, from a history directory (see test/fixtures/history). */
export function readVersions(dir: string): Version[] {
  return readdirSync(dir)
    .filter((f) => f !== 'MANIFEST.json')
    .sort()
    .map((file) => {
      const bytes = new Uint8Array(readFileSync(join(dir, file)));
      if (!file.endsWith('.error.json')) return { file, status: 200, body: bytes };
      // The archive's fetch failed: an HTML error page (its status kept; a 200 is a CMS's
      // page served as robots.txt) or a request that got no answer.
      const error = JSON.parse(new TextDecoder().decode(bytes)) as { status_code?: number };
      return { file, status: error.status_code ?? null, body: error.status_code ? HTML : null };
    });
}

/** The default presets with `*`, plus crawlers read under the other two profiles. */
export function defaultAgents(): WatchedAgent[] {
  const tokens = [...AGENT_PRESETS['@search']!, ...AGENT_PRESETS['@ai-major']!, '*'];
  // Applebot is a search engine's crawler and in the AI registry: watched once.
  const google = tokens
    .filter((t, i) => tokens.findIndex((u) => u.toLowerCase() === t.toLowerCase()) === i)
    .map((token): WatchedAgent => ({ token, profile: 'google' }));
  return [
    ...google,
    { token: 'Slurp', profile: 'legacy' },
    { token: 'Bingbot-RFC', profile: 'rfc9309' },
  ];
}

/** URLs on one origin built from every rule of every version, so that many rules match. */
export function watchesFor(versions: readonly Version[], limit = 120): string[] {
  const urls = new Set<string>(['https://example.com/']);
  for (const version of versions) {
    if (version.body === null) continue;
    for (const group of parseRobotsTxt(version.body, { lint: false }).groups) {
      for (const rule of group.rules) {
        if (urls.size >= limit) return [...urls];
        const path = rule.match.replace(/\*/g, 'x').replace(/\$$/, '');
        if (!path.startsWith('/')) continue;
        urls.add(`https://example.com${path}`);
        urls.add(`https://example.com${path}z/`);
      }
    }
  }
  return [...urls];
}

/** The causes of one step of a replay, named by the version it led to. */
export interface Step {
  readonly to: string;
  readonly causes: readonly ChangeCause[];
}

export interface StepProblem {
  readonly step: string;
  readonly problem: string;
}

interface State {
  readonly fetch: { status: number | null; error: 'reset' | null };
  readonly lastGood: Uint8Array | null;
  readonly verdicts: WatchVerdict[];
}

/**
 * Replays versions and checks the invariant at every step; returns what went wrong (an
 * empty list when every flip is explained once) and the causes seen, for the caller to
 * look at.
 */
export function checkHistory(
  versions: readonly Version[],
  agents: readonly WatchedAgent[] = defaultAgents(),
  watches: readonly string[] = watchesFor(versions),
): { problems: StepProblem[]; causes: ChangeCause[]; steps: number; byStep: Step[] } {
  const problems: StepProblem[] = [];
  const causes: ChangeCause[] = [];
  const byStep: Step[] = [];
  let previous: State | null = null;
  let steps = 0;
  for (const version of versions) {
    const cache = new ParseCache();
    const fetch = {
      status: version.status,
      error: version.status === null ? ('reset' as const) : null,
    };
    const ok = version.status !== null && version.status >= 200 && version.status <= 299;
    const body = ok ? version.body!.slice(0, MAX_ROBOTS_BYTES) : null;
    const lastGood = body ?? previous?.lastGood ?? null;
    const verdicts = computeVerdicts(
      { fetch, body, lastGoodBody: lastGood, stale: false },
      watches,
      agents,
      cache,
    );
    const state: State = { fetch, lastGood, verdicts };
    if (previous !== null) {
      steps++;
      const view = (s: State): StateView => ({
        fetchStatus: fetchStatusOf(s.fetch, 'google', false),
        verdicts: s.verdicts,
        rules: s.lastGood ? effectiveRules(s.lastGood, agents, cache) : null,
        sitemaps: null,
      });
      const events = diffStates('https://example.com', view(previous), view(state));
      const side = (s: State, truncated: boolean) => ({
        fetch: s.fetch,
        stale: false,
        lastGood: s.lastGood && { body: s.lastGood, truncated, cut: null },
        verdicts: s.verdicts,
      });
      const change = {
        profile: 'google' as const,
        agents,
        before: side(previous, (previous.lastGood?.length ?? 0) >= MAX_ROBOTS_BYTES),
        after: side(state, (lastGood?.length ?? 0) >= MAX_ROBOTS_BYTES),
      };
      const explained = causesOfChange(change);
      // As a check computes them: with the parses and compiled rules its verdicts and
      // events used (their matchers already indexed). The same causes either way.
      if (JSON.stringify(causesOfChange({ ...change, cache })) !== JSON.stringify(explained))
        problems.push({ step: version.file, problem: 'the causes differ with a shared cache' });
      // As a check reads the state before: its stored set, read back compactly.
      const stored = new StoredVerdicts(encodeVerdicts(previous.verdicts));
      if (
        JSON.stringify(
          causesOfChange({ ...change, before: { ...change.before, verdicts: stored } }),
        ) !== JSON.stringify(explained)
      )
        problems.push({ step: version.file, problem: 'the causes differ from a stored set' });
      if (
        JSON.stringify(
          diffStates('https://example.com', { ...view(previous), verdicts: stored }, view(state)),
        ) !== JSON.stringify(events)
      )
        problems.push({ step: version.file, problem: 'the events differ from a stored set' });
      // As a check computes them: the flipped pairs found once, for both.
      const flipped = flippedPlaces(stored, state.verdicts);
      if (
        JSON.stringify(
          diffStates(
            'https://example.com',
            { ...view(previous), verdicts: stored },
            view(state),
            flipped,
          ),
        ) !== JSON.stringify(events)
      )
        problems.push({ step: version.file, problem: 'the events differ given the flips' });
      if (
        JSON.stringify(
          causesOfChange({ ...change, before: { ...change.before, verdicts: stored }, flipped }),
        ) !== JSON.stringify(explained)
      )
        problems.push({ step: version.file, problem: 'the causes differ given the flips' });
      for (const event of events)
        if (eventJson(event) !== JSON.stringify(event))
          problems.push({ step: version.file, problem: `${event.type}: its JSON differs` });
      causes.push(...explained);
      if (explained.length > 0) byStep.push({ to: version.file, causes: explained });
      const flips = new Map<string, number>();
      for (const e of events)
        if (e.type === 'newly_disallowed' || e.type === 'newly_allowed')
          flips.set(`${e.url} ${e.agent} ${e.type === 'newly_allowed'}`, 0);
      for (const cause of explained) {
        for (const pair of cause.pairs) {
          if (!pair.flipped) continue;
          const key = `${pair.url} ${pair.agent} ${pair.allowed}`;
          const seen = flips.get(key);
          if (seen === undefined)
            problems.push({
              step: version.file,
              problem: `${cause.type} claims ${key}, which did not flip`,
            });
          else flips.set(key, seen + 1);
        }
      }
      for (const [key, n] of flips)
        if (n !== 1)
          problems.push({ step: version.file, problem: `${key} is explained ${n} times` });
    }
    previous = state;
  }
  return { problems, causes, steps, byStep };
}
