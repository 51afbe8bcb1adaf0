/**
 * How two robots.txt files differ group by group, as one profile reads them: which
 * groups were added, removed or given other user-agent lines, and within a group which
 * rules were added, removed or edited. Pure.
 */
import type { RobotsGroup, RobotsRule, RobotsTxt } from '../../robots/index.js';

export interface RuleChange {
  readonly change: 'added' | 'removed' | 'edited';
  /** The rule as it is now (added, edited) or as it was (removed). */
  readonly rule: RobotsRule;
  /** For an edit: the rule it replaced, at the same place in the group. */
  readonly previous: RobotsRule | null;
}

/**
 * A group of either file and what became of it: `same` (nothing changed), `changed`
 * (rules changed), `relabelled` (its user-agent lines changed, and maybe its rules),
 * `added` or `removed`.
 */
export interface GroupChange {
  readonly kind: 'same' | 'changed' | 'relabelled' | 'added' | 'removed';
  readonly before: RobotsGroup | null;
  readonly after: RobotsGroup | null;
  /** Rule changes inside a group present in both files, in file order. */
  readonly rules: readonly RuleChange[];
}

/** A rule in the form its profile compares it: equivalent spellings are equal. */
const ruleKey = (rule: RobotsRule) => `${rule.directive}\n${rule.match}`;

/** The crawlers a group names, as its profile compares them. */
function agentKeys(group: RobotsGroup): string[] {
  return [...new Set(group.agents.map((a) => (a.global ? '*' : a.token.toLowerCase())))].sort();
}

/**
 * Matches the groups of two files and diffs the rules of each matched pair. Groups are
 * matched in three passes, each in file order: same crawlers and same rules; same
 * crawlers; then any crawler in common (a user-agent line added to or taken from a
 * group). What is left was added or removed.
 */
export function diffGroups(before: RobotsTxt, after: RobotsTxt): GroupChange[] {
  const pairs = new Map<RobotsGroup, RobotsGroup>(); // after → before
  const paired = new Set<RobotsGroup>(); // of before
  const order = new Map(before.groups.map((g, i) => [g, i]));
  // Each group's keys are made once, and each pass finds a group's match by its keys: a
  // file of 3,000 groups that all changed took 12 s of CPU to diff pair by pair.
  const keys = new Map<RobotsGroup, { agents: string[]; agent: string; content?: string }>();
  const keysOf = (group: RobotsGroup) => {
    let found = keys.get(group);
    if (found === undefined) {
      const agents = agentKeys(group);
      found = { agents, agent: agents.join('\n') };
      keys.set(group, found);
    }
    return found;
  };
  const contentOf = (group: RobotsGroup) => {
    const found = keysOf(group);
    return (found.content ??= `${found.agent}\n\n${group.rules.map(ruleKey).join('\n')}`);
  };
  /** Pairs each group of `after` left with the first group of `before` left sharing a key. */
  const pass = (keysOfGroup: (group: RobotsGroup) => readonly string[]) => {
    const byKey = new Map<string, { groups: RobotsGroup[]; next: number }>();
    for (const group of before.groups) {
      if (paired.has(group)) continue;
      for (const key of keysOfGroup(group)) {
        const entry = byKey.get(key);
        if (entry === undefined) byKey.set(key, { groups: [group], next: 0 });
        else entry.groups.push(group);
      }
    }
    for (const group of after.groups) {
      if (pairs.has(group)) continue;
      let first: RobotsGroup | undefined;
      for (const key of keysOfGroup(group)) {
        const entry = byKey.get(key);
        if (entry === undefined) continue;
        while (entry.next < entry.groups.length && paired.has(entry.groups[entry.next]!))
          entry.next++;
        const candidate = entry.groups[entry.next];
        if (
          candidate !== undefined &&
          (first === undefined || order.get(candidate)! < order.get(first)!)
        )
          first = candidate;
      }
      if (first === undefined) continue;
      pairs.set(group, first);
      paired.add(first);
    }
  };
  if (samePlaces(before.groups, after.groups, (g) => keysOf(g).agent)) {
    // The same crawlers' groups in the same places, no two for the same crawlers (a rule
    // added or removed, the usual change): the passes would pair them place by place.
    before.groups.forEach((group, i) => {
      pairs.set(after.groups[i]!, group);
      paired.add(group);
    });
  } else {
    pass((g) => [contentOf(g)]);
    pass((g) => [keysOf(g).agent]);
    pass((g) => keysOf(g).agents);
  }
  const unmatchedBefore = before.groups.filter((g) => !paired.has(g));

  const changes: GroupChange[] = [];
  for (const group of after.groups) {
    const previous = pairs.get(group);
    if (previous === undefined) {
      changes.push({ kind: 'added', before: null, after: group, rules: [] });
      continue;
    }
    const rules = diffRules(previous.rules, group.rules);
    const kind =
      keysOf(previous).agent !== keysOf(group).agent
        ? 'relabelled'
        : rules.length > 0
          ? 'changed'
          : 'same';
    changes.push({ kind, before: previous, after: group, rules });
  }
  for (const group of unmatchedBefore)
    changes.push({ kind: 'removed', before: group, after: null, rules: [] });
  return changes;
}

/**
 * Whether two lists of groups name the same crawlers place by place, each group's
 * crawlers named by no other group of its file.
 */
function samePlaces(
  before: readonly RobotsGroup[],
  after: readonly RobotsGroup[],
  agentsOf: (group: RobotsGroup) => string,
): boolean {
  if (before.length !== after.length) return false;
  const seen = new Set<string>();
  for (let i = 0; i < before.length; i++) {
    const agents = agentsOf(before[i]!);
    if (agents !== agentsOf(after[i]!) || seen.has(agents)) return false;
    seen.add(agents);
  }
  return true;
}

/** Whether two lists hold the same rules in the same order, in the form their profile reads them. */
export function sameRules(a: readonly RobotsRule[], b: readonly RobotsRule[]): boolean {
  return (
    a.length === b.length &&
    a.every((rule, i) => rule.directive === b[i]!.directive && rule.match === b[i]!.match)
  );
}

/** Beyond this many differences, rules are compared as sets (no edits are paired). */
const MAX_EDIT_DISTANCE = 2_000;

/**
 * The rule changes between two lists of a group's rules: an edit is a rule removed and
 * another added at the same place (between the same unchanged neighbours).
 */
export function diffRules(
  before: readonly RobotsRule[],
  after: readonly RobotsRule[],
): RuleChange[] {
  // Most groups are as they were: the same rules in the same order have no changes.
  if (sameRules(before, after)) return [];
  const ops = editScript(before.map(ruleKey), after.map(ruleKey));
  if (ops === null) return setDifference(before, after);
  const changes: RuleChange[] = [];
  let removed: RobotsRule[] = [];
  let added: RobotsRule[] = [];
  const flush = () => {
    if (removed.length === 0 && added.length === 0) return; // between two kept rules
    // Within a run of removals and additions, a removed rule and an added one at the
    // same place are an edit when they are alike; anything else is a removal and an
    // addition (a file rewritten wholesale is not a series of edits).
    const edits = Math.min(removed.length, added.length);
    const paired = new Set<number>();
    for (let k = 0; k < edits; k++) {
      if (!alike(removed[k]!, added[k]!)) continue;
      paired.add(k);
      changes.push({ change: 'edited', rule: added[k]!, previous: removed[k]! });
    }
    removed.forEach((rule, k) => {
      if (!paired.has(k)) changes.push({ change: 'removed', rule, previous: null });
    });
    added.forEach((rule, k) => {
      if (!paired.has(k)) changes.push({ change: 'added', rule, previous: null });
    });
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === '=') {
      flush();
      i++;
      j++;
    } else if (op === '-') removed.push(before[i++]!);
    else added.push(after[j++]!);
  }
  flush();
  return changes;
}

/**
 * Whether an added rule reads as an edit of a removed one: the same pattern with the
 * other directive, or the same directive with patterns that share most of their start
 * ("/pricing" → "/pricing/", "/blog/*.pdf" → "/blog/*.PDF").
 */
function alike(old: RobotsRule, now: RobotsRule): boolean {
  if (old.pattern === now.pattern) return true;
  if (old.directive !== now.directive) return false;
  const a = old.pattern;
  const b = now.pattern;
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return common >= 2 && common * 2 >= Math.max(a.length, b.length);
}

/** Rules of either list not in the other, as multisets, for lists too different to align. */
function setDifference(before: readonly RobotsRule[], after: readonly RobotsRule[]): RuleChange[] {
  const left = (from: readonly RobotsRule[], other: readonly RobotsRule[]) => {
    const counts = new Map<string, number>();
    for (const rule of other) counts.set(ruleKey(rule), (counts.get(ruleKey(rule)) ?? 0) + 1);
    return from.filter((rule) => {
      const n = counts.get(ruleKey(rule)) ?? 0;
      if (n === 0) return true;
      counts.set(ruleKey(rule), n - 1);
      return false;
    });
  };
  return [
    ...left(before, after).map((rule) => ({ change: 'removed' as const, rule, previous: null })),
    ...left(after, before).map((rule) => ({ change: 'added' as const, rule, previous: null })),
  ];
}

/**
 * The shortest edit script from `a` to `b` ('=' keep, '-' delete from a, '+' insert
 * from b), by Myers' O(ND) algorithm after trimming the common prefix and suffix; null
 * when more than MAX_EDIT_DISTANCE edits would be needed.
 */
export function editScript(a: readonly string[], b: readonly string[]): ('=' | '-' | '+')[] | null {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  if (middle === null) return null;
  return [...Array<'='>(start).fill('='), ...middle, ...Array<'='>(a.length - endA).fill('=')];
}

function myers(a: readonly string[], b: readonly string[]): ('=' | '-' | '+')[] | null {
  const n = a.length;
  const m = b.length;
  if (n === 0) return Array<'+'>(m).fill('+');
  if (m === 0) return Array<'-'>(n).fill('-');
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m, d, offset);
    }
    v = next;
  }
  return null;
}

/** Walks the saved frontiers back from (n, m) to (0, 0), collecting the edit script. */
function backtrack(
  trace: readonly Int32Array[],
  n: number,
  m: number,
  dEnd: number,
  offset: number,
): ('=' | '-' | '+')[] {
  const ops: ('=' | '-' | '+')[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!; // the frontier before step d
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX + (down ? 0 : 1) && y > prevY + (down ? 1 : 0)) {
      ops.push('=');
      x--;
      y--;
    }
    ops.push(down ? '+' : '-');
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push('=');
    x--;
    y--;
  }
  return ops.reverse();
}
