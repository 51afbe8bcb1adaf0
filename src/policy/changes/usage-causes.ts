/** The causes a change of usage preferences or of coverage makes, and what both sides' files state. Pure. */
import { compileAgent } from '../../robots/index.js';
import type { RobotsTxt } from '../../robots/index.js';
import { bytesEqual } from './cause-model.js';
import type {
  CauseSide,
  ChangeCause,
  CoverageCause,
  PreferencesCause,
  ChangeInput,
  DirectiveLine,
} from './cause-model.js';
import { groupAlike } from '../coverage.js';
import { isRobotsFile } from '../file-condition.js';
import type { FileCondition } from '../file-condition.js';
import { resolveState } from '../verdicts.js';
import type { RobotsState, WatchedAgent, ParseCache } from '../verdicts.js';

/** What to compare over the site's URL set for the coverage cause (see coverageQuestion). */
export interface CoverageQuestion {
  readonly before: RobotsState;
  readonly after: RobotsState;
  /** The crawlers that read rules on both sides. */
  readonly agents: readonly WatchedAgent[];
}

/**
 * The states whose coverage a change's cause compares, or null when there is nothing to
 * compare: only between two different files read (a status change or a file that is not
 * robots.txt says it for the whole site already). The comparison itself (compareCoverage)
 * is the caller's to run where it likes, off the event loop; its result goes in
 * `ChangeInput.coverage`.
 */
export function coverageQuestion(input: Omit<ChangeInput, 'coverage'>): CoverageQuestion | null {
  const { before: b, after: a } = input;
  if (b.lastGood === null || a.lastGood === null || bytesEqual(b.lastGood.body, a.lastGood.body))
    return null;
  const before = sideState(b);
  const after = sideState(a);
  const agents = input.agents.filter(
    (agent) =>
      resolveState(before, agent.profile).kind === 'rules' &&
      resolveState(after, agent.profile).kind === 'rules',
  );
  return agents.length === 0 ? null : { before, after, agents };
}

/** A cause without its Content-Usage and Content-Signal lines (none left: no cause). */
export function withoutUsageLines(cause: ChangeCause): ChangeCause[] {
  if (cause.type !== 'directives') return [cause];
  const other = (d: DirectiveLine) => !/^content-(usage|signal)$/i.test(d.key);
  const added = cause.added.filter(other);
  const removed = cause.removed.filter(other);
  return added.length + removed.length === 0 ? [] : [{ ...cause, added, removed }];
}

/** Whether a parsed file has any Content-Usage or Content-Signal line. */
function hasUsageLines(file: RobotsTxt): boolean {
  return file.usage.rules.length > 0 || file.usage.signals.length > 0;
}

/**
 * Usage preferences that changed for the watched crawlers, crawlers that see the same
 * change together: for the whole site, and under each Content-Usage path of either file.
 * Only between two files read, and only where the crawler may fetch on both sides (a
 * path it may no longer fetch has no preference, and its rules' causes say so).
 */
export function preferencesCauses(
  input: ChangeInput,
  cache: ParseCache,
  conditions: { before: FileCondition | null; after: FileCondition | null },
  filesDiffer: boolean,
): PreferencesCause[] {
  const { before, after } = conditions;
  if (!filesDiffer || before === null || after === null) return [];
  if (!isRobotsFile(before) || !isRobotsFile(after)) return [];
  const changes: [string, Omit<PreferencesCause, 'type' | 'agents' | 'pairs'>][] = [];
  for (const agent of input.agents) {
    const old = cache.parse(input.before.lastGood!.body, agent.profile);
    const now = cache.parse(input.after.lastGood!.body, agent.profile);
    if (!hasUsageLines(old) && !hasUsageLines(now)) continue;
    const was = compileAgent(old, agent.token);
    const is = compileAgent(now, agent.token);
    // The path each Content-Usage line applies under, by file and line.
    const pathAt = (file: RobotsTxt, line: number | undefined) =>
      file.usage.rules.find((r) => r.line === line)?.path ?? '';
    const scopes = new Set(['']);
    for (const rules of [was, is]) {
      const groups = new Set(rules.groups.map((g) => g.line));
      const file = rules === was ? old : now;
      for (const rule of file.usage.rules)
        if (rule.group !== null && groups.has(rule.group) && rule.path !== '')
          scopes.add(rule.path);
    }
    for (const scope of scopes) {
      // A path a crawler requests that the scope's pattern matches.
      const url = scope === '' ? '/' : scope.replace(/\*/g, 'x').replace(/\$$/, '');
      const b = was.preferences(url);
      const a = is.preferences(url);
      if (b === null || a === null) continue;
      for (const label of new Set([...Object.keys(b.usage), ...Object.keys(a.usage)])) {
        const key = label as keyof typeof a.usage;
        const [x, y] = [b.usage[key] ?? null, a.usage[key] ?? null];
        const lineB = b.usageLines[key];
        const lineA = a.usageLines[key];
        // Under a path, only what a rule of that path states (the rest is the site's).
        if (scope !== '' && pathAt(old, lineB) !== scope && pathAt(now, lineA) !== scope) continue;
        if (scope === '' && (pathAt(old, lineB) !== '' || pathAt(now, lineA) !== '')) continue;
        if (x === y) continue;
        const change = {
          source: 'content-usage' as const,
          label,
          before: x,
          after: y,
          path: scope === '' ? null : scope,
          line: lineA ?? lineB ?? null,
        };
        changes.push([agent.token, change]);
      }
      if (scope !== '') continue; // Content-Signal has no path: said once, for the site
      for (const label of new Set([...Object.keys(b.signals), ...Object.keys(a.signals)])) {
        const key = label as keyof typeof a.signals;
        const [x, y] = [b.signals[key] ?? null, a.signals[key] ?? null];
        if (x === y) continue;
        changes.push([
          agent.token,
          {
            source: 'content-signal',
            label,
            before: x,
            after: y,
            path: null,
            line: a.signalLines[key] ?? b.signalLines[key] ?? null,
          },
        ]);
      }
    }
  }
  return groupAlike(changes).map(({ agents, value }) => ({
    type: 'preferences',
    agents,
    ...value,
    pairs: [],
  }));
}

/**
 * How much of the site's URL set the change newly blocks (or frees), per group of
 * crawlers that see the same change. Only between two files read: a status change or
 * a file that is not robots.txt says it for the whole site already.
 */
export function coverageCauses(
  input: Pick<ChangeInput, 'coverage'>,
  filesDiffer: boolean,
): CoverageCause[] {
  const coverage = input.coverage;
  if (coverage === undefined || !filesDiffer) return [];
  const { minUrls, minShare } = coverage.thresholds;
  const alike = groupAlike(
    coverage.changes.map(({ agent, access: _access, ...change }) => [agent, change] as const),
  );
  return alike.map(({ agents: readers, value: change }) => ({
    type: 'coverage',
    agents: readers,
    urls: change.urls,
    newlyDisallowed: change.newlyDisallowed,
    newlyAllowed: change.newlyAllowed,
    prefixes: change.prefixes.slice(0, 5),
    rules: change.rules
      .slice(0, 5)
      .map((r) => ({ directive: r.directive, pattern: r.pattern, line: r.line, urls: r.urls })),
    samples: change.samples,
    significant:
      change.newlyDisallowed >= minUrls && change.newlyDisallowed >= minShare * change.urls,
    pairs: [],
  }));
}

/** A side as the verdicts saw it, for one profile's resolution. */
export function sideState({
  fetch,
  stale,
  lastGood,
}: Pick<CauseSide, 'fetch' | 'stale' | 'lastGood'>): RobotsState {
  const ok = fetch.status !== null && fetch.status >= 200 && fetch.status <= 299;
  const body = lastGood?.body ?? null;
  return { fetch, body: ok ? body : null, lastGoodBody: body, stale };
}
