/**
 * Why a site changed (DESIGN.md: "cause"): the difference between two states of a site
 * as a short list of causes, most severe first, each with its consequence for crawlers
 * and the (watched URL × crawler) pairs it explains. Every pair whose verdict flipped
 * between the two states is explained by exactly one cause. Pure.
 *
 * The model lives in cause-model.ts; this file attributes the changed pairs.
 */
import { compileAgent, selectGroups } from '../../robots/index.js';
import type { AgentRules, Profile, RobotsGroup, RobotsTxt } from '../../robots/index.js';
import { classifyFetch } from '../access.js';
import type { FetchOutcome } from '../access.js';
import { bytesEqual, causeOrder, groupLabel, readingOf, ruleText } from './cause-model.js';
import type {
  CauseSide,
  ChangeCause,
  CoverageCause,
  PreferencesCause,
  ChangeInput,
  DirectiveLine,
  FileCause,
  GroupCause,
  PairChange,
  Reading,
  RuleCause,
  RulesCause,
  StaleCause,
  StatusCause,
} from './cause-model.js';
import { groupAlike } from '../coverage.js';
import { fetchStatusOf } from './events.js';
import { fileCondition, isRobotsFile } from '../file-condition.js';
import type { FileCondition } from '../file-condition.js';
import { diffGroups } from './group-diff.js';
import type { GroupChange, RuleChange } from './group-diff.js';
import { ParseCache, resolveState } from '../verdicts.js';
import type { Effective, RobotsState, WatchedAgent, WatchVerdict } from '../verdicts.js';

/** At most this many pairless group changes are listed one by one; more are summed up. */
const MAX_LISTED_GROUPS = 5;
/** Rule changes of each kind a summary keeps as examples. */
const SAMPLE_RULES = 10;

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? U[] : T[K] };

/**
 * The causes of the change from `input.before` to `input.after`, most severe first (see
 * `causeOrder`). Both states' verdicts are given, as recorded; the files are their last
 * good copies, so an outage between two edits does not hide the edit.
 */
export function causesOfChange(input: ChangeInput): ChangeCause[] {
  return new Explanation(input).causes();
}

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
function withoutUsageLines(cause: ChangeCause): ChangeCause[] {
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

/** A side as the verdicts saw it, for one profile's resolution. */
function sideState({ fetch, stale, lastGood }: CauseSide): RobotsState {
  const ok = fetch.status !== null && fetch.status >= 200 && fetch.status <= 299;
  const body = lastGood?.body ?? null;
  return { fetch, body: ok ? body : null, lastGoodBody: body, stale };
}

/** One profile's reading of the two last good files, and how their groups match. */
class FileDiff {
  readonly before: RobotsTxt;
  readonly after: RobotsTxt;
  readonly groups: readonly GroupChange[];
  readonly #byGroup = new Map<RobotsGroup, GroupChange>();
  /** Added and edited rules by their line in the new file; removed and replaced ones in the old. */
  readonly #addedAt = new Map<number, { group: GroupChange; rule: RuleChange }>();
  readonly #removedAt = new Map<number, { group: GroupChange; rule: RuleChange }>();
  readonly #groupOfLine = {
    before: new Map<number, RobotsGroup>(),
    after: new Map<number, RobotsGroup>(),
  };
  readonly #selections = new Map<string, { source: AgentRules['source']; groups: RobotsGroup[] }>();

  constructor(before: RobotsTxt, after: RobotsTxt) {
    this.before = before;
    this.after = after;
    this.groups = diffGroups(before, after);
    for (const change of this.groups) {
      if (change.before) this.#byGroup.set(change.before, change);
      if (change.after) this.#byGroup.set(change.after, change);
      for (const rule of change.rules) {
        if (rule.change !== 'removed') this.#addedAt.set(rule.rule.line, { group: change, rule });
        const old = rule.change === 'removed' ? rule.rule : rule.previous;
        if (old) this.#removedAt.set(old.line, { group: change, rule });
      }
    }
    for (const [side, file] of [
      ['before', before],
      ['after', after],
    ] as const) {
      for (const group of file.groups)
        for (const rule of group.rules) this.#groupOfLine[side].set(rule.line, group);
    }
  }

  changeOf(group: RobotsGroup): GroupChange {
    return this.#byGroup.get(group)!;
  }

  /** The rule change that put a rule at this line of the new file, if it is new. */
  addedAt(line: number) {
    return this.#addedAt.get(line);
  }

  /** The rule change that took away the rule at this line of the old file, if it went. */
  removedAt(line: number) {
    return this.#removedAt.get(line);
  }

  groupOfLine(side: 'before' | 'after', line: number): RobotsGroup | undefined {
    return this.#groupOfLine[side].get(line);
  }

  /** The groups a crawler reads in either file. */
  selection(side: 'before' | 'after', token: string) {
    const key = `${side}\n${token}`;
    let found = this.#selections.get(key);
    if (found === undefined) {
      found = selectGroups(side === 'before' ? this.before : this.after, token);
      this.#selections.set(key, found);
    }
    return found;
  }

  /** Whether a crawler reads the same groups (matched across the files) before and after. */
  sameSelection(token: string): boolean {
    const before = this.selection('before', token).groups;
    const after = this.selection('after', token).groups;
    if (before.length !== after.length) return false;
    const now = new Set(after.map((g) => this.changeOf(g)));
    return before.every((g) => now.has(this.changeOf(g)));
  }
}

/** The causes being gathered: drafts by identity, pairs added as they are attributed. */
class Explanation {
  readonly #input: ChangeInput;
  readonly #cache = new ParseCache();
  readonly #drafts = new Map<string, Mutable<ChangeCause>>();
  readonly #diffs = new Map<Profile, FileDiff | null>();
  readonly #conditions: { before: FileCondition | null; after: FileCondition | null };
  readonly #filesDiffer: boolean;

  constructor(input: ChangeInput) {
    this.#input = input;
    const before = input.before.lastGood;
    const after = input.after.lastGood;
    this.#conditions = {
      before: before && fileCondition(before.body, before.truncated),
      after: after && fileCondition(after.body, after.truncated),
    };
    this.#filesDiffer = before !== null && after !== null && !bytesEqual(before.body, after.body);
  }

  causes(): ChangeCause[] {
    this.#statusAndFile();
    for (const agent of this.#input.agents) this.#attributeAgent(agent);
    this.#fileLevel();
    const coverage = this.#coverage();
    const preferences = this.#preferences();
    // Usage lines whose meaning a preferences cause says are not said again as lines.
    const finished =
      preferences.length === 0 ? this.#finish() : this.#finish().flatMap(withoutUsageLines);
    return [...finished, ...coverage, ...preferences].sort(causeOrder);
  }

  /**
   * Usage preferences that changed for the watched crawlers, crawlers that see the same
   * change together: for the whole site, and under each Content-Usage path of either file.
   * Only between two files read, and only where the crawler may fetch on both sides (a
   * path it may no longer fetch has no preference, and its rules' causes say so).
   */
  #preferences(): PreferencesCause[] {
    const { before, after } = this.#conditions;
    if (!this.#filesDiffer || before === null || after === null) return [];
    if (!isRobotsFile(before) || !isRobotsFile(after)) return [];
    const changes: [string, Omit<PreferencesCause, 'type' | 'agents' | 'pairs'>][] = [];
    for (const agent of this.#input.agents) {
      const old = this.#cache.parse(this.#input.before.lastGood!.body, agent.profile);
      const now = this.#cache.parse(this.#input.after.lastGood!.body, agent.profile);
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
          if (scope !== '' && pathAt(old, lineB) !== scope && pathAt(now, lineA) !== scope)
            continue;
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
  #coverage(): CoverageCause[] {
    const input = this.#input.coverage;
    if (input === undefined || !this.#filesDiffer) return [];
    const { minUrls, minShare } = input.thresholds;
    const alike = groupAlike(
      input.changes.map(({ agent, access: _access, ...change }) => [agent, change] as const),
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

  /** The status, stale and file-condition causes, whether or not pairs flip with them. */
  #statusAndFile(): void {
    const { before, after, profile } = this.#input;
    const b = fetchStatusOf(before.fetch, profile, before.stale);
    const a = fetchStatusOf(after.fetch, profile, after.stale);
    if (b.access !== a.access || b.status !== a.status) this.#statusCause();
    if (before.stale !== after.stale) this.#staleCause();
    // A file that is not robots.txt, cut, or back to normal; or a first file that is not.
    const { before: cb, after: ca } = this.#conditions;
    if (ca !== null && (cb === null ? ca !== 'robots' : this.#filesDiffer && cb !== ca))
      this.#fileCause();
  }

  #attributeAgent(agent: WatchedAgent): void {
    const { before, after } = this.#input;
    const eb = resolveState(sideState(before), agent.profile);
    const ea = resolveState(sideState(after), agent.profile);
    const accessMoved = !sameEffective(eb, ea);
    const oldBody = before.lastGood?.body ?? null;
    let old: AgentRules | undefined;
    const oldRules = () =>
      (old ??= compileAgent(this.#cache.parse(oldBody!, agent.profile), agent.token));
    const was = new Map(
      before.verdicts.filter((v) => v.agent === agent.token).map((v) => [v.url, v]),
    );
    for (const va of after.verdicts) {
      if (va.agent !== agent.token) continue;
      const vb = was.get(va.url);
      if (vb === undefined) continue;
      const flipped = vb.allowed !== va.allowed;
      if (accessMoved) {
        // Back to reading a file: what differs from the last file read before is that
        // file's change, flipped or not (the outage hid it); the rest came with the status.
        if (ea.kind === 'rules' && oldBody !== null) {
          const previous = oldRules().evaluate(va.url);
          if (previous.allowed !== va.allowed) {
            this.#fileLayer(agent, va, previous.rule, flipped);
            continue;
          }
        }
        if (flipped) this.#accessCause().pairs.push(pairOf(va, true));
        continue;
      }
      if (flipped) this.#fileLayer(agent, va, ruleOf(vb), true);
    }
  }

  /** A pair that changed because the file changed: its condition, a group, or a rule. */
  #fileLayer(
    agent: WatchedAgent,
    va: WatchVerdict,
    previousRule: { readonly line: number } | null,
    flipped: boolean,
  ): void {
    const pair = pairOf(va, flipped);
    const { before, after } = this.#conditions;
    if (before === null || after === null || isRobotsFile(before) !== isRobotsFile(after)) {
      (before === null ? this.#statusCause() : this.#fileCause()).pairs.push(pair);
      return;
    }
    const diff = this.#diff(agent.profile);
    if (diff === null) {
      this.#statusCause().pairs.push(pair); // the same file: only the status can have moved
      return;
    }
    const rule = ruleOf(va);
    if (!diff.sameSelection(agent.token)) {
      this.#groupCauseFor(diff, agent.token, rule, previousRule).pairs.push(pair);
      return;
    }
    const change =
      (rule && diff.addedAt(rule.line)) ?? (previousRule && diff.removedAt(previousRule.line));
    if (change) {
      this.#ruleCause(change.group, change.rule).pairs.push(pair);
      return;
    }
    // Not reached for longest-match profiles (a verdict changes only with its deciding
    // rules); kept so that a pair is never left unexplained.
    const group =
      (rule && diff.groupOfLine('after', rule.line)) ??
      (previousRule && diff.groupOfLine('before', previousRule.line)) ??
      diff.selection('after', agent.token).groups[0];
    if (group) this.#rulesSummary(diff.changeOf(group)).pairs.push(pair);
    else this.#statusCause().pairs.push(pair);
  }

  /**
   * The group cause for a crawler that reads other groups now: the new (or relabelled)
   * group whose rule decides now, else the removed one whose rule decided before, else
   * the first new or removed group among those it reads.
   */
  #groupCauseFor(
    diff: FileDiff,
    token: string,
    rule: { readonly line: number } | null,
    previousRule: { readonly line: number } | null,
  ): Mutable<GroupCause> {
    const moved = (g: RobotsGroup | undefined, kinds: readonly GroupChange['kind'][]) =>
      g !== undefined && kinds.includes(diff.changeOf(g).kind) ? diff.changeOf(g) : undefined;
    const now = diff.selection('after', token).groups;
    const then = diff.selection('before', token).groups;
    const change =
      (rule && moved(diff.groupOfLine('after', rule.line), ['added', 'relabelled'])) ??
      (previousRule &&
        moved(diff.groupOfLine('before', previousRule.line), ['removed', 'relabelled'])) ??
      now.map((g) => moved(g, ['added', 'relabelled'])).find(Boolean) ??
      then.map((g) => moved(g, ['removed', 'relabelled'])).find(Boolean) ??
      diff.changeOf((now[0] ?? then[0])!);
    return this.#groupCause(change);
  }

  /** The diff of the two last good files under a profile; null when they are the same. */
  #diff(profile: Profile): FileDiff | null {
    if (!this.#diffs.has(profile)) {
      const { before, after } = this.#input;
      this.#diffs.set(
        profile,
        this.#filesDiffer
          ? new FileDiff(
              this.#cache.parse(before.lastGood!.body, profile),
              this.#cache.parse(after.lastGood!.body, profile),
            )
          : null,
      );
    }
    return this.#diffs.get(profile)!;
  }

  /**
   * What changed in the file itself, pairs or not: every rule change, every group added
   * or removed, the crawlers that read other groups now, sitemaps and other lines.
   */
  #fileLevel(): void {
    const { before, after } = this.#conditions;
    if (!this.#filesDiffer || before === null || after === null) return;
    if (!isRobotsFile(before) || !isRobotsFile(after)) return; // the file cause says it all
    const profiles = [...new Set(this.#input.agents.map((a) => a.profile))];
    for (const profile of profiles) {
      const diff = this.#diff(profile)!;
      const agents = this.#input.agents.filter((a) => a.profile === profile);
      for (const change of diff.groups) {
        if (change.kind === 'added' || change.kind === 'removed' || change.kind === 'relabelled')
          this.#groupCause(change);
        for (const rule of change.rules) {
          const cause = this.#ruleCause(change, rule);
          const side = rule.change === 'removed' ? 'before' : 'after';
          const group = side === 'before' ? change.before! : change.after!;
          for (const agent of agents)
            if (diff.selection(side, agent.token).groups.includes(group))
              addOnce(cause.readers, agent.token);
        }
      }
      for (const agent of agents) {
        if (diff.sameSelection(agent.token)) continue;
        const cause = this.#groupCauseFor(diff, agent.token, null, null);
        cause.moved.push({
          agent: agent.token,
          from: readingOf(diff.selection('before', agent.token).source),
          to: readingOf(diff.selection('after', agent.token).source),
        });
      }
    }
    this.#sitemapsAndDirectives();
  }

  #sitemapsAndDirectives(): void {
    const { before, after, profile } = this.#input;
    const old = this.#cache.parse(before.lastGood!.body, 'google');
    const now = this.#cache.parse(after.lastGood!.body, 'google');
    const urls = (file: RobotsTxt) => [...new Set(file.sitemaps.map((s) => s.url))];
    const [was, is] = [urls(old), urls(now)];
    const added = is.filter((u) => !was.includes(u));
    const removed = was.filter((u) => !is.includes(u));
    if (added.length + removed.length > 0)
      this.#drafts.set('sitemaps', { type: 'sitemaps', added, removed, pairs: [] });
    const lines = (file: RobotsTxt): DirectiveLine[] =>
      file.others.map((o) => ({ key: o.key, value: o.value, line: o.line }));
    const [b, a] = [
      lines(this.#cache.parse(before.lastGood!.body, profile)),
      lines(this.#cache.parse(after.lastGood!.body, profile)),
    ];
    const key = (d: DirectiveLine) => `${d.key.toLowerCase()}\n${d.value}`;
    const missing = (from: DirectiveLine[], other: DirectiveLine[]) => {
      const counts = new Map<string, number>();
      for (const d of other) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
      return from.filter((d) => {
        const n = counts.get(key(d)) ?? 0;
        counts.set(key(d), n - 1);
        return n === 0;
      });
    };
    const dAdded = missing(a, b);
    const dRemoved = missing(b, a);
    if (dAdded.length + dRemoved.length > 0)
      this.#drafts.set('directives', {
        type: 'directives',
        added: dAdded,
        removed: dRemoved,
        pairs: [],
      });
  }

  // Drafts, created on first use.

  #draft<T extends ChangeCause>(key: string, make: () => T): Mutable<T> {
    let draft = this.#drafts.get(key);
    if (draft === undefined) {
      draft = make() as unknown as Mutable<ChangeCause>;
      this.#drafts.set(key, draft);
    }
    return draft as unknown as Mutable<T>;
  }

  #statusCause() {
    const { before, after, profile, since } = this.#input;
    return this.#draft<StatusCause>('status', () => {
      const b = fetchStatusOf(before.fetch, profile, before.stale);
      const a = fetchStatusOf(after.fetch, profile, after.stale);
      return {
        type: 'fetch_status' as const,
        before: b,
        after: a,
        profile,
        effectChanged: this.#effectChanged(),
        incidentSince:
          a.access === 'ok' && b.access !== 'ok' ? (since?.access?.toISOString() ?? null) : null,
        disallowRules: this.#disallowRules(after.lastGood?.body ?? before.lastGood?.body ?? null),
        file: a.access === 'ok' ? this.#conditions.after : null,
        pairs: [],
      };
    });
  }

  #staleCause() {
    const { after } = this.#input;
    return this.#draft<StaleCause>('stale', () => ({
      type: 'stale' as const,
      started: after.stale,
      pairs: [],
    }));
  }

  /** Flipped pairs whose access state moved: a stale copy taken or dropped, else the status. */
  #accessCause() {
    const { before, after, profile } = this.#input;
    const b = fetchStatusOf(before.fetch, profile, before.stale);
    const a = fetchStatusOf(after.fetch, profile, after.stale);
    const statusMoved = b.access !== a.access || b.status !== a.status;
    return !statusMoved && before.stale !== after.stale ? this.#staleCause() : this.#statusCause();
  }

  #fileCause() {
    const { before, after, since } = this.#input;
    return this.#draft<FileCause>('file', () => {
      const condition = this.#conditions.after!;
      const back = this.#conditions.before !== null && isRobotsFile(condition);
      return {
        type: 'file_condition' as const,
        before: this.#conditions.before,
        after: condition,
        since: back ? (since?.file?.toISOString() ?? null) : null,
        cut: condition === 'cut' ? (after.lastGood?.cut ?? null) : null,
        disallowRules: this.#disallowRules(before.lastGood?.body ?? null),
        rules: this.#ruleCount(after.lastGood!.body),
        pairs: [],
      };
    });
  }

  #ruleCause(group: GroupChange, rule: RuleChange): Mutable<RuleCause> {
    const label = groupLabel(rule.change === 'removed' ? group.before! : group.after!);
    const previous = rule.previous && ruleText(rule.previous);
    const key = `rule\n${rule.change}\n${label.line}\n${label.agents.join('\n')}\n${rule.rule.directive}\n${rule.rule.pattern}\n${rule.rule.line}\n${previous?.pattern ?? ''}\n${previous?.line ?? ''}`;
    return this.#draft<RuleCause>(key, () => ({
      type: 'rule' as const,
      change: rule.change,
      group: label,
      rule: ruleText(rule.rule),
      previous,
      readers: [],
      pairs: [],
    }));
  }

  /** The summary of a group's rule changes (pairless ones end up here too). */
  #rulesSummary(group: GroupChange): Mutable<RulesCause> {
    const label = groupLabel(group.after ?? group.before!);
    return this.#draft<RulesCause>(`rules\n${label.line}\n${label.agents.join('\n')}`, () =>
      emptyRulesSummary(label),
    );
  }

  #groupCause(change: GroupChange): Mutable<GroupCause> {
    const group = groupLabel(change.after ?? change.before!);
    const kind = change.kind === 'added' || change.kind === 'removed' ? change.kind : 'relabelled';
    const previous = kind === 'relabelled' ? groupLabel(change.before!) : null;
    return this.#draft<GroupCause>(
      `group\n${kind}\n${group.line}\n${group.agents.join('\n')}`,
      () => ({
        type: 'group' as const,
        change: kind,
        group,
        previous,
        rules: (change.after ?? change.before!).rules.length,
        moved: [],
        pairs: [],
      }),
    );
  }

  /** Whether crawlers of any watched profile do something different (404 → 410 does not). */
  #effectChanged(): boolean {
    const { before, after, profile, agents } = this.#input;
    const effect = (fetch: FetchOutcome, stale: boolean, p: Profile) => {
      const c = classifyFetch(fetch, p);
      return c === 'unreachable' && stale ? 'stale' : c;
    };
    return [profile, ...agents.map((a) => a.profile)].some(
      (p) => effect(before.fetch, before.stale, p) !== effect(after.fetch, after.stale, p),
    );
  }

  #disallowRules(body: Uint8Array | null): number {
    if (body === null) return 0;
    return this.#cache
      .parse(body, this.#input.profile)
      .groups.reduce(
        (n, g) => n + g.rules.filter((r) => r.directive === 'disallow' && r.pattern !== '').length,
        0,
      );
  }

  #ruleCount(body: Uint8Array): number {
    return this.#cache
      .parse(body, this.#input.profile)
      .groups.reduce((n, g) => n + g.rules.length, 0);
  }

  /** The drafts as causes: pairless rule changes summed up per group, then sorted. */
  #finish(): ChangeCause[] {
    const out: ChangeCause[] = [];
    const quietGroups: GroupCause[] = [];
    const summaries = new Map<string, Mutable<RulesCause>>();
    for (const draft of this.#drafts.values()) {
      if (draft.type === 'rule' && draft.pairs.length === 0) {
        const key = `${draft.group.line}\n${draft.group.agents.join('\n')}`;
        let summary = summaries.get(key);
        if (summary === undefined) {
          summary = this.#drafts.get(`rules\n${key}`) as Mutable<RulesCause> | undefined;
          summary ??= emptyRulesSummary(draft.group);
          summaries.set(key, summary);
        }
        summary[draft.change]++;
        // A few of each kind of change, so that additions show beside removals.
        if (summary.sample.filter((x) => x.change === draft.change).length < SAMPLE_RULES)
          summary.sample.push({ change: draft.change, rule: draft.rule, previous: draft.previous });
        for (const reader of draft.readers) addOnce(summary.readers, reader);
        continue;
      }
      if (draft.type === 'rules') {
        const key = `${draft.group.line}\n${draft.group.agents.join('\n')}`;
        if (!summaries.has(key)) summaries.set(key, draft);
        continue;
      }
      if (draft.type === 'group' && draft.pairs.length === 0 && draft.moved.length === 0) {
        quietGroups.push(draft);
        continue;
      }
      out.push(draft);
    }
    out.push(...summaries.values());
    if (quietGroups.length <= MAX_LISTED_GROUPS) out.push(...quietGroups);
    else
      out.push({
        type: 'groups',
        added: quietGroups.filter((g) => g.change === 'added').length,
        removed: quietGroups.filter((g) => g.change === 'removed').length,
        relabelled: quietGroups.filter((g) => g.change === 'relabelled').length,
        sample: quietGroups
          .slice(0, SAMPLE_RULES)
          .map((g) => ({ change: g.change, group: g.group })),
        pairs: [],
      });
    return out.sort(causeOrder);
  }
}

function sameEffective(a: Effective, b: Effective): boolean {
  if (a.kind === 'access') return b.kind === 'access' && a.access === b.access;
  return b.kind === 'rules' && a.fromLastGood === b.fromLastGood;
}

function ruleOf(verdict: WatchVerdict): { readonly line: number } | null {
  return verdict.cause?.type === 'rule' ? verdict.cause : null;
}

function pairOf(verdict: WatchVerdict, flipped: boolean): PairChange {
  return { url: verdict.url, agent: verdict.agent, allowed: verdict.allowed, flipped };
}

function addOnce<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}

export type { Reading };

/** A group's rule changes, none counted yet. */
function emptyRulesSummary(group: RulesCause['group']): Mutable<RulesCause> {
  return {
    type: 'rules',
    group,
    added: 0,
    removed: 0,
    edited: 0,
    sample: [],
    readers: [],
    pairs: [],
  };
}
