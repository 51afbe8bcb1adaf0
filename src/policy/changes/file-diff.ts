/** Two files' groups and rules matched and compared for one crawler's profile. Pure. */
import { selectGroups } from '../../robots/index.js';
import type { AgentRules, RobotsGroup, RobotsTxt } from '../../robots/index.js';
import type { PairChange, RulesCause } from './cause-model.js';
import { diffGroups } from './group-diff.js';
import type { GroupChange, RuleChange } from './group-diff.js';
import type { Effective, WatchVerdict } from '../verdicts.js';
import type { Mutable } from './causes.js';

/** The groups a crawler reads in one side's file, and where it found them. */
export type Selector = (
  side: 'before' | 'after',
  token: string,
) => { readonly source: AgentRules['source']; readonly groups: readonly RobotsGroup[] };

type Selection = ReturnType<Selector>;

/** One profile's reading of the two last good files, and how their groups match. */
export class FileDiff {
  readonly before: RobotsTxt;
  readonly after: RobotsTxt;
  readonly groups: readonly GroupChange[];
  readonly #byGroup = new Map<RobotsGroup, GroupChange>();
  /** Added and edited rules by their line in the new file; removed and replaced ones in the old. */
  readonly #addedAt = new Map<number, { group: GroupChange; rule: RuleChange }>();
  readonly #removedAt = new Map<number, { group: GroupChange; rule: RuleChange }>();
  /** Each rule's group by its line, per side: made when first asked (few changes ask). */
  readonly #groupOfLine: { before?: Map<number, RobotsGroup>; after?: Map<number, RobotsGroup> } =
    {};
  /** Each side's selections and read groups by crawler (no key made per question). */
  readonly #selections = {
    before: new Map<string, Selection>(),
    after: new Map<string, Selection>(),
  };
  /** sameSelection, by crawler: asked for each pair of a crawler that flips. */
  readonly #same = new Map<string, boolean>();
  readonly #read = {
    before: new Map<string, Set<RobotsGroup>>(),
    after: new Map<string, Set<RobotsGroup>>(),
  };
  readonly #select: Selector;

  /**
   * `select`: the groups a crawler reads in either file, when they were found already (a
   * check's ParseCache compiled every crawler's rules of both files); else selectGroups.
   */
  constructor(before: RobotsTxt, after: RobotsTxt, select?: Selector) {
    this.before = before;
    this.after = after;
    this.#select = select ?? ((side, token) => selectGroups(this[side], token));
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
    let groups = this.#groupOfLine[side];
    if (groups === undefined) {
      groups = new Map<number, RobotsGroup>();
      for (const group of this[side].groups)
        for (const rule of group.rules) groups.set(rule.line, group);
      this.#groupOfLine[side] = groups;
    }
    return groups.get(line);
  }

  /** The groups a crawler reads in either file. */
  selection(side: 'before' | 'after', token: string): Selection {
    const selections = this.#selections[side];
    let found = selections.get(token);
    if (found === undefined) {
      found = this.#select(side, token);
      selections.set(token, found);
    }
    return found;
  }

  /** Whether a crawler reads a group of one side's file (a set per crawler: files of many groups). */
  reads(side: 'before' | 'after', token: string, group: RobotsGroup): boolean {
    const read = this.#read[side];
    let groups = read.get(token);
    if (groups === undefined) {
      groups = new Set(this.selection(side, token).groups);
      read.set(token, groups);
    }
    return groups.has(group);
  }

  /** Whether a crawler reads the same groups (matched across the files) before and after. */
  sameSelection(token: string): boolean {
    let same = this.#same.get(token);
    if (same === undefined) {
      const before = this.selection('before', token).groups;
      const after = this.selection('after', token).groups;
      const now = new Set(after.map((g) => this.changeOf(g)));
      same = before.length === after.length && before.every((g) => now.has(this.changeOf(g)));
      this.#same.set(token, same);
    }
    return same;
  }
}

export function sameEffective(a: Effective, b: Effective): boolean {
  if (a.kind === 'access') return b.kind === 'access' && a.access === b.access;
  return b.kind === 'rules' && a.fromLastGood === b.fromLastGood;
}

export function ruleOf(verdict: WatchVerdict): { readonly line: number } | null {
  return verdict.cause?.type === 'rule' ? verdict.cause : null;
}

export function pairOf(verdict: WatchVerdict, flipped: boolean): PairChange {
  return { url: verdict.url, agent: verdict.agent, allowed: verdict.allowed, flipped };
}

export function addOnce<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}

/** A group's rule changes, none counted yet. */
export function emptyRulesSummary(group: RulesCause['group']): Mutable<RulesCause> {
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
