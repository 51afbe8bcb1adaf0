/** A site's history as people read it: daily states, timeline segments, verdict runs, the tester. */
import { describe, expect, it } from 'vitest';
import { dailyAccess, timelineSegments, verdictRuns } from '../../../src/policy/history.js';
import { testRobotsTxt } from '../../../src/policy/tester.js';

const at = (day: string) => new Date(`${day}T03:00:00Z`);
const ok = { status: 200, error: null, stale: false, checks: 1 };
const down = { status: 503, error: null, stale: false, checks: 1 };
const gone = { status: 404, error: null, stale: false, checks: 2 };

describe('dailyAccess', () => {
  it('takes the worst access of each day, and marks the days without checks', () => {
    const days = dailyAccess(
      [
        { day: '2026-03-01', states: [ok] },
        { day: '2026-03-02', states: [ok, down, gone] },
        { day: '2026-03-04', states: [gone] },
      ],
      'google',
      at('2026-03-04'),
      5,
    );
    expect(days).toEqual([
      { day: '2026-02-28', access: 'none', checks: 0 },
      { day: '2026-03-01', access: 'ok', checks: 1 },
      { day: '2026-03-02', access: 'unreachable', checks: 4 },
      { day: '2026-03-03', access: 'none', checks: 0 },
      { day: '2026-03-04', access: 'unavailable', checks: 2 },
    ]);
  });

  it('reads statuses under the profile: a 429 is unreachable for Google, unavailable for RFC 9309', () => {
    const states = [{ day: '2026-03-01', states: [{ ...ok, status: 429 }] }];
    expect(dailyAccess(states, 'google', at('2026-03-01'), 1)[0]!.access).toBe('unreachable');
    expect(dailyAccess(states, 'rfc9309', at('2026-03-01'), 1)[0]!.access).toBe('unavailable');
  });
});

describe('timelineSegments', () => {
  it('makes each snapshot last until the next, the current one until now', () => {
    const snapshot = (id: number, day: string, status: number) => ({
      id,
      firstSeen: at(day),
      lastSeen: at(day),
      status,
      error: null,
      stale: false,
    });
    const segments = timelineSegments(
      [
        snapshot(2, '2026-03-05', 503),
        snapshot(1, '2026-03-01', 200),
        snapshot(3, '2026-03-06', 200),
      ],
      new Map([[2, 4]]),
      'google',
      at('2026-03-09'),
    );
    expect(segments).toEqual([
      {
        snapshotId: 1,
        start: at('2026-03-01'),
        end: at('2026-03-05'),
        access: 'ok',
        events: 0,
        archived: false,
      },
      {
        snapshotId: 2,
        start: at('2026-03-05'),
        end: at('2026-03-06'),
        access: 'unreachable',
        events: 4,
        archived: false,
      },
      {
        snapshotId: 3,
        start: at('2026-03-06'),
        end: at('2026-03-09'),
        access: 'ok',
        events: 0,
        archived: false,
      },
    ]);
  });

  it('puts the archived states (read after the live ones began) before them, up to the first check', () => {
    const snapshot = (id: number, day: string, source: 'live' | 'archive') => ({
      id,
      firstSeen: at(day),
      lastSeen: at(day),
      status: 200,
      error: null,
      stale: false,
      source,
    });
    const segments = timelineSegments(
      [
        snapshot(1, '2026-03-01', 'live'),
        snapshot(2, '2026-03-05', 'live'),
        snapshot(7, '2019-01-01', 'archive'),
        snapshot(8, '2024-06-01', 'archive'),
      ],
      new Map(),
      'google',
      at('2026-03-09'),
    );
    expect(segments.map((s) => [s.snapshotId, s.start, s.end, s.archived])).toEqual([
      [7, at('2019-01-01'), at('2024-06-01'), true],
      [8, at('2024-06-01'), at('2026-03-01'), true],
      [1, at('2026-03-01'), at('2026-03-05'), false],
      [2, at('2026-03-05'), at('2026-03-09'), false],
    ]);
  });
});

describe('verdictRuns', () => {
  const rule = (line: number, pattern = '/pr') => ({
    type: 'rule' as const,
    directive: 'disallow' as const,
    pattern,
    line,
  });
  it('starts a run when the verdict flips or its cause changes, and joins the rest', () => {
    const runs = verdictRuns([
      { snapshotId: 1, firstSeen: at('2026-03-01'), allowed: true, cause: null },
      { snapshotId: 2, firstSeen: at('2026-03-02'), allowed: false, cause: rule(14) },
      { snapshotId: 3, firstSeen: at('2026-03-03'), allowed: false, cause: rule(14) },
      {
        snapshotId: 4,
        firstSeen: at('2026-03-04'),
        allowed: false,
        cause: { type: 'access', access: 'unreachable' },
      },
      { snapshotId: 5, firstSeen: at('2026-03-05'), allowed: false, cause: rule(15) },
    ]);
    expect(runs.map((r) => [r.fromSnapshotId, r.allowed, r.snapshots, r.until])).toEqual([
      [1, true, 1, at('2026-03-02')],
      [2, false, 2, at('2026-03-04')],
      [4, false, 1, at('2026-03-05')],
      [5, false, 1, null],
    ]);
  });
});

describe('testRobotsTxt', () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  it('evaluates a proposed file beside the live one and flags the verdicts it flips', () => {
    const live = {
      fetch: { status: 200, error: null },
      body: encode('User-agent: *\nDisallow: /pricing\n'),
      lastGoodBody: encode('User-agent: *\nDisallow: /pricing\n'),
      stale: false,
    };
    const result = testRobotsTxt({
      body: encode('User-agent: *\nDisallow: /blog/\nDisalow: /typo\n'),
      agents: [{ token: 'Googlebot', profile: 'google' }],
      urls: ['https://e.com/pricing', 'https://e.com/blog/a', 'https://e.com/'],
      live,
    });
    expect(result.rows.map((r) => [r.url, r.proposed.allowed, r.live?.allowed, r.changed])).toEqual(
      [
        ['https://e.com/pricing', true, false, true],
        ['https://e.com/blog/a', false, true, true],
        ['https://e.com/', true, true, false],
      ],
    );
    expect(result.findings.map((f) => f.line)).toContain(3);
  });

  it('reads an unreachable live site as everything disallowed', () => {
    const result = testRobotsTxt({
      body: encode(''),
      agents: [{ token: 'GPTBot', profile: 'google' }],
      urls: ['https://e.com/'],
      live: { fetch: { status: 503, error: null }, body: null, lastGoodBody: null, stale: false },
    });
    expect(result.rows[0]).toMatchObject({
      changed: true,
      live: { allowed: false, cause: { type: 'access', access: 'unreachable' } },
    });
  });
});
