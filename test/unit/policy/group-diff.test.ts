/** Matching two files' groups and diffing their rules, so that an edit reads as one change. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffGroups, editScript } from '../../../src/policy/changes/group-diff.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';

const parse = (text: string) => parseRobotsTxt(text, { lint: false });

/** Applies an edit script to `a`, checking that kept elements agree with `b`. */
function apply(a: readonly string[], b: readonly string[], ops: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === '=') {
      expect(a[i]).toBe(b[j]);
      out.push(a[i++]!);
      j++;
    } else if (op === '-') i++;
    else out.push(b[j++]!);
  }
  expect([i, j]).toEqual([a.length, b.length]);
  return out;
}

/** The length of the longest common subsequence, by dynamic programming. */
function lcs(a: readonly string[], b: readonly string[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const next = [0];
    for (let j = 1; j <= b.length; j++)
      next.push(x === b[j - 1] ? row[j - 1]! + 1 : Math.max(row[j]!, next[j - 1]!));
    row = next;
  }
  return row[b.length]!;
}

describe('editScript', () => {
  it('turns one list into the other, keeping as much as possible', () => {
    const item = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.array(item, { maxLength: 30 }), (a, b) => {
        const ops = editScript(a, b)!;
        expect(apply(a, b, ops)).toEqual(b);
        expect(ops.filter((o) => o === '=')).toHaveLength(lcs(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('gives up (null) past 2,000 differences, so a rewrite costs no more than a pass', () => {
    const a = Array.from({ length: 3_000 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 3_000 }, (_, i) => `b${i}`);
    expect(editScript(a, b)).toBeNull();
  });
});

describe('diffGroups', () => {
  it('calls a rule changed in place an edit, and a rewrite removals and additions', () => {
    const [group] = diffGroups(
      parse('User-agent: *\nDisallow: /pricing\nDisallow: /admin\nDisallow: /tmp\n'),
      parse('User-agent: *\nDisallow: /pricing/\nDisallow: /checkout\nDisallow: /tmp\n'),
    );
    expect(
      group!.rules.map((r) => [r.change, r.previous?.pattern ?? null, r.rule.pattern]),
    ).toEqual([
      ['edited', '/pricing', '/pricing/'],
      ['removed', null, '/admin'],
      ['added', null, '/checkout'],
    ]);
  });

  it('matches groups by their crawlers wherever they move, and names new, gone and renamed ones', () => {
    const changes = diffGroups(
      parse(
        'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /a\n\nUser-agent: Yandex\nDisallow: /y\n',
      ),
      parse(
        'User-agent: *\nDisallow: /a\n\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /g\n',
      ),
    );
    expect(changes.map((c) => [c.kind, c.before?.line ?? null, c.after?.line ?? null])).toEqual([
      ['same', 4, 1],
      ['relabelled', 1, 4],
      ['added', null, 8],
      ['removed', 7, null],
    ]);
  });

  it('pairs groups in the same places by place, and two groups of the same crawlers by their rules', () => {
    const kinds = (before: string, after: string) =>
      diffGroups(parse(before), parse(after)).map((c) => [
        c.kind,
        c.before?.line ?? null,
        c.after?.line ?? null,
        c.rules.map((r) => `${r.change} ${r.rule.pattern}`),
      ]);
    // A rule added to one group: the others are the same.
    expect(
      kinds(
        'User-agent: *\nDisallow: /a\n\nUser-agent: GPTBot\nDisallow: /\n',
        'User-agent: *\nDisallow: /a\nDisallow: /b\n\nUser-agent: GPTBot\nDisallow: /\n',
      ),
    ).toEqual([
      ['changed', 1, 1, ['added /b']],
      ['same', 4, 5, []],
    ]);
    // Two "*" groups that traded places: each is the same group, moved, not two edits.
    expect(
      kinds(
        'User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n',
        'User-agent: *\nDisallow: /b\n\nUser-agent: *\nDisallow: /a\n',
      ),
    ).toEqual([
      ['same', 4, 1, []],
      ['same', 1, 4, []],
    ]);
  });

  it('pairs a renamed group with the first old group that shares one of its crawlers', () => {
    // GPTBot's old group comes first in the file, though the new group names CCBot first.
    const changes = diffGroups(
      parse('User-agent: GPTBot\nDisallow: /1\n\nUser-agent: CCBot\nDisallow: /2\n'),
      parse('User-agent: CCBot\nUser-agent: GPTBot\nDisallow: /3\n'),
    );
    expect(changes.map((c) => [c.kind, c.before?.line ?? null, c.after?.line ?? null])).toEqual([
      ['relabelled', 1, 1],
      ['removed', 4, null],
    ]);
  });

  it('pairs the groups of a large file whose every group was renamed or changed', () => {
    // 2,000 crawlers of their own: the diff of the whole took 8 s when each group was
    // compared with every other; each pairs with its own here.
    // Letters only: a crawler's token stops at its first digit.
    const name = (i: number) => `bot${[...String(i)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;
    const file = (also: string, extra: string) =>
      Array.from(
        { length: 2_000 },
        (_, i) => `User-agent: ${name(i)}\n${also}Disallow: /p${i}/\n${extra}`,
      ).join('\n');
    const renamed = diffGroups(parse(file('', '')), parse(file('User-agent: extra\n', '')));
    expect(renamed.map((c) => c.kind)).toEqual(Array<string>(2_000).fill('relabelled'));
    expect(renamed[1_999]!.before!.agents[0]!.token).toBe(name(1_999));
    const changed = diffGroups(parse(file('', '')), parse(file('', 'Disallow: /new\n')));
    expect(changed.every((c, i) => c.kind === 'changed' && c.before!.line === 1 + 3 * i)).toBe(
      true,
    );
  });
});
