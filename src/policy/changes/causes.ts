/**
 * Why a site changed (DESIGN.md: "cause"): the difference between two states of a site
 * as a short list of causes, most severe first, each with its consequence for crawlers
 * and the (watched URL × crawler) pairs it explains. Every pair whose verdict flipped
 * between the two states is explained by exactly one cause. Pure.
 *
 * The model lives in cause-model.ts; this file attributes the changed pairs.
 */
import type { AgentRules, Profile, RobotsGroup, RobotsTxt } from '../../robots/index.js';
import { classifyFetch } from '../access.js';
import type { FetchOutcome } from '../access.js';
import { bytesEqual, causeOrder, groupLabel, readingOf, ruleText } from './cause-model.js';
import type {
  ChangeCause,
  ChangeInput,
  DirectiveLine,
  FileCause,
  GroupCause,
  Reading,
  RuleCause,
  RulesCause,
  StaleCause,
  StatusCause,
} from './cause-model.js';
import { fetchStatusOf } from './events.js';
import { isRobotsFile } from '../file-condition.js';
import { placeOf } from '../fetch-result.js';
import type { FileCondition } from '../file-condition.js';
import type { GroupChange, RuleChange } from './group-diff.js';
import { lookupOf, ParseCache, resolveState } from '../verdicts.js';
import type { WatchedAgent, WatchVerdict } from '../verdicts.js';
import {
  FileDiff,
  sameEffective,
  ruleOf,
  pairOf,
  addOnce,
  emptyRulesSummary,
} from './file-diff.js';
import { coverageCauses, preferencesCauses, sideState, withoutUsageLines } from './usage-causes.js';

/** At most this many pairless group changes are listed one by one; more are summed up. */
const MAX_LISTED_GROUPS = 5;
/** Rule changes of each kind a summary keeps as examples. */
const SAMPLE_RULES = 10;

export type Mutable<T> = {
  -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? U[] : T[K];
};

/**
 * The causes of the change from `input.before` to `input.after`, most severe first (see
 * `causeOrder`). Both states' verdicts are given, as recorded; the files are their last
 * good copies, so an outage between two edits does not hide the edit.
 */
export function causesOfChange(input: ChangeInput): ChangeCause[] {
  return new Explanation(input).causes();
}

/** The causes being gathered: drafts by identity, pairs added as they are attributed. */
class Explanation {
  readonly #input: ChangeInput;
  readonly #cache: ParseCache;
  readonly #drafts = new Map<string, Mutable<ChangeCause>>();
  readonly #ruleKeys = new Map<RuleChange, string>();
  readonly #diffs = new Map<Profile, FileDiff | null>();
  readonly #resolved = new Map<
    Profile,
    { before: ReturnType<typeof resolveState>; after: ReturnType<typeof resolveState> }
  >();
  readonly #conditions: { before: FileCondition | null; after: FileCondition | null };
  readonly #filesDiffer: boolean;

  constructor(input: ChangeInput) {
    this.#input = input;
    this.#cache = input.cache ?? new ParseCache();
    const before = input.before.lastGood;
    const after = input.after.lastGood;
    this.#conditions = {
      before: before && this.#cache.condition(before.body, before.truncated),
      after: after && this.#cache.condition(after.body, after.truncated),
    };
    this.#filesDiffer = before !== null && after !== null && !bytesEqual(before.body, after.body);
  }

  causes(): ChangeCause[] {
    this.#statusAndFile();
    // Each crawler's pairs (its verdicts after, each with its verdict before), found in one
    // pass: both lists are usually in the same order, and paired by position. Only flipped
    // pairs need a cause, except under a profile whose access moved: there every pair does.
    const { before, after } = this.#input;
    const profileOf = new Map(this.#input.agents.map((a) => [a.token, a.profile]));
    const counterpart = lookupOf(before.verdicts);
    const pairs = new Map<string, [WatchVerdict, WatchVerdict][]>();
    // A crawler's verdicts come together: its profile, and whether every pair needs a
    // cause, are looked up once per run of them.
    let agent: string | undefined;
    let watched = false;
    let every = false;
    let list: [WatchVerdict, WatchVerdict][] | undefined;
    const consider = (va: WatchVerdict, i: number) => {
      if (va.agent !== agent) {
        agent = va.agent;
        const profile = profileOf.get(agent);
        watched = profile !== undefined;
        every = watched && this.#accessMoved(profile!);
        list = pairs.get(agent);
      }
      if (!watched) return; // not a crawler watched now: not attributed
      const allowed = counterpart.allowed(va, i);
      if (allowed === undefined || (allowed === va.allowed && !every)) return;
      const vb = counterpart.find(va, i)!;
      if (list === undefined) pairs.set(agent, (list = []));
      list.push([vb, va]);
    };
    // The flipped pairs, when the computation found them, unless a profile's access moved
    // (its every pair needs a cause, flipped or not).
    const { flipped } = this.#input;
    if (flipped !== undefined && !this.#input.agents.some((a) => this.#accessMoved(a.profile)))
      for (const i of flipped) consider(after.verdicts[i]!, i);
    else after.verdicts.forEach(consider);
    for (const agent of this.#input.agents) {
      const list = pairs.get(agent.token);
      if (list !== undefined) this.#attributeAgent(agent, list);
    }
    this.#fileLevel();
    const coverage = coverageCauses(this.#input, this.#filesDiffer);
    const preferences = preferencesCauses(
      this.#input,
      this.#cache,
      this.#conditions,
      this.#filesDiffer,
    );
    // Usage lines whose meaning a preferences cause says are not said again as lines.
    const finished =
      preferences.length === 0 ? this.#finish() : this.#finish().flatMap(withoutUsageLines);
    return [...finished, ...coverage, ...preferences].sort(causeOrder);
  }

  /** The status, stale and file-condition causes, whether or not pairs flip with them. */
  #statusAndFile(): void {
    const { before, after, profile } = this.#input;
    const b = fetchStatusOf(before.fetch, profile, before.stale);
    const a = fetchStatusOf(after.fetch, profile, after.stale);
    if (b.access !== a.access || b.status !== a.status) this.#statusCause();
    if (before.stale !== after.stale) this.#staleCause();
    // Answered from another place (a redirect begun, ended or moved), when both are known.
    if (
      before.answeredFrom !== undefined &&
      after.answeredFrom !== undefined &&
      placeOf(before.answeredFrom) !== placeOf(after.answeredFrom)
    )
      this.#drafts.set('source', {
        type: 'source',
        before: before.answeredFrom,
        after: after.answeredFrom,
        pairs: [],
      });
    // A file that is not robots.txt, cut, or back to normal; or a first file that is not.
    const { before: cb, after: ca } = this.#conditions;
    if (ca !== null && (cb === null ? ca !== 'robots' : this.#filesDiffer && cb !== ca))
      this.#fileCause();
  }

  /** Each state as read under a profile (its rules or its access), resolved once. */
  #effective(profile: Profile): {
    before: ReturnType<typeof resolveState>;
    after: ReturnType<typeof resolveState>;
  } {
    let both = this.#resolved.get(profile);
    if (both === undefined) {
      both = {
        before: resolveState(sideState(this.#input.before), profile),
        after: resolveState(sideState(this.#input.after), profile),
      };
      this.#resolved.set(profile, both);
    }
    return both;
  }

  /** Whether the file's access (reachable, readable) reads differently under a profile. */
  #accessMoved(profile: Profile): boolean {
    const { before, after } = this.#effective(profile);
    return !sameEffective(before, after);
  }

  /** Attributes a crawler's pairs: each verdict after with its verdict before. */
  #attributeAgent(agent: WatchedAgent, pairs: readonly [WatchVerdict, WatchVerdict][]): void {
    const { before } = this.#input;
    const ea = this.#effective(agent.profile).after;
    const accessMoved = this.#accessMoved(agent.profile);
    const oldBody = before.lastGood?.body ?? null;
    let old: AgentRules | undefined;
    const oldRules = () => (old ??= this.#cache.compile(oldBody!, agent.profile, agent.token));
    for (const [vb, va] of pairs) {
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
      const bodies = { before: before.lastGood?.body, after: after.lastGood?.body };
      this.#diffs.set(
        profile,
        this.#filesDiffer
          ? new FileDiff(
              this.#cache.parse(bodies.before!, profile),
              this.#cache.parse(bodies.after!, profile),
              // What each crawler reads, as its rules were compiled (for its verdicts).
              (side, token) => this.#cache.compile(bodies[side]!, profile, token),
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
            if (diff.reads(side, agent.token, group)) addOnce(cause.readers, agent.token);
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
    const [wasSet, isSet] = [new Set(was), new Set(is)];
    const added = is.filter((u) => !wasSet.has(u));
    const removed = was.filter((u) => !isSet.has(u));
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
    // Asked for each pair the rule flips: its key is made once per rule change.
    let key = this.#ruleKeys.get(rule);
    if (key === undefined) {
      const label = groupLabel(rule.change === 'removed' ? group.before! : group.after!);
      const previous = rule.previous;
      key = `rule\n${rule.change}\n${label.line}\n${label.agents.join('\n')}\n${rule.rule.directive}\n${rule.rule.pattern}\n${rule.rule.line}\n${previous?.pattern ?? ''}\n${previous?.line ?? ''}`;
      this.#ruleKeys.set(rule, key);
    }
    return this.#draft<RuleCause>(key, () => ({
      type: 'rule' as const,
      change: rule.change,
      group: groupLabel(rule.change === 'removed' ? group.before! : group.after!),
      rule: ruleText(rule.rule),
      previous: rule.previous && ruleText(rule.previous),
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

export type { Reading };
