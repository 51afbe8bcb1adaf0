/**
 * Coverage on worker threads (the daemon's way) gives exactly what the pure functions
 * give on the calling thread: the crawlers split by rule set across real threads and
 * put back in their order.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CoverageThreads } from '../../../src/monitor/threads/coverage-threads.js';
import { computeCoverage } from '../../../src/policy/coverage.js';
import { compareCoverage, splitAgents } from '../../../src/policy/coverage-change.js';
import type { RobotsState, WatchedAgent } from '../../../src/policy/verdicts.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { urlsFromRules } from '../../support/corpus-check.js';
import { readFixture, realWorldFiles } from '../../support/fixtures.js';

const stateOf = (body: Uint8Array): RobotsState => ({
  fetch: { status: 200, error: null },
  body,
  lastGoodBody: body,
  stale: false,
});

// The real-world file with the most groups: many distinct rule sets to spread.
const file = realWorldFiles()
  .map((f) => ({ f, body: readFixture(`realworld/${f.path}`) }))
  .map(({ f, body }) => ({ f, body, groups: parseRobotsTxt(body).groups.length }))
  .sort((a, b) => b.groups - a.groups)[0]!;
const named = parseRobotsTxt(file.body)
  .groups.flatMap((g) => g.agents.filter((a) => !a.global).map((a) => a.token))
  .filter((token, i, all) => token !== '' && all.indexOf(token) === i)
  .slice(0, 20);
const agents: WatchedAgent[] = [...named, 'Googlebot', 'SomeNewBot'].map((token) => ({
  token,
  profile: 'google',
}));
const paths = urlsFromRules(file.body, 3000).map((u) => new URL(u).pathname + new URL(u).search);
const text = new TextDecoder().decode(file.body);
// The same file with every other rule line gone: most crawlers see a change.
const edited = new TextEncoder().encode(
  text
    .split('\n')
    .filter((line, i) => !/^\s*(dis)?allow\s*:/i.test(line) || i % 2 === 0)
    .join('\n'),
);

describe('coverage on threads', () => {
  const threads = new CoverageThreads({ threads: 2 });
  const many = new CoverageThreads({ threads: 3 });
  afterAll(async () => {
    await threads.close();
    await many.close();
  });

  it('splits the crawlers by rule set, each rule set in one part only', () => {
    const lists = splitAgents([stateOf(file.body)], agents, 2);
    expect(lists).toHaveLength(2);
    expect(
      lists
        .flat()
        .map((a) => a.token)
        .sort(),
    ).toEqual(agents.map((a) => a.token).sort());
    // Googlebot and SomeNewBot read the same "*" groups unless named: together.
    const part = (token: string) => lists.findIndex((l) => l.some((a) => a.token === token));
    if (!named.some((t) => t.toLowerCase() === 'googlebot'))
      expect(part('Googlebot')).toBe(part('SomeNewBot'));
  });

  it('gives the coverage the calling thread gives, in the crawlers order', async () => {
    expect(file.groups).toBeGreaterThan(3);
    const expected = computeCoverage(stateOf(file.body), paths, agents);
    expect(expected.agents.some((a) => a.disallowed > 0)).toBe(true);
    expect(await threads.coverage(stateOf(file.body), paths, agents)).toEqual(expected);
    expect(await many.coverage(stateOf(file.body), paths, agents)).toEqual(expected);
  });

  it('gives the comparison the calling thread gives, jobs side by side', async () => {
    const expected = compareCoverage(stateOf(file.body), stateOf(edited), paths, agents);
    expect(expected.length).toBeGreaterThan(0);
    const [a, b] = await Promise.all([
      threads.compare(stateOf(file.body), stateOf(edited), paths, agents),
      threads.compare(stateOf(edited), stateOf(file.body), paths, agents),
    ]);
    expect(a).toEqual(expected);
    expect(b).toEqual(compareCoverage(stateOf(edited), stateOf(file.body), paths, agents));
  });

  it('refuses work once closed down, and starts again on the next job', async () => {
    const once = new CoverageThreads({ threads: 2 });
    const running = once.coverage(stateOf(file.body), paths, agents).then(
      () => 'done',
      (e: Error) => e.message,
    );
    await once.close();
    expect(await running).toMatch(/coverage: the daemon is shutting down/);
    const again = await once.coverage(stateOf(file.body), paths.slice(0, 10), agents);
    expect(again.urls).toBe(10);
    await once.close();
  });
});
