/**
 * How late a daemon's check may start so that the checks falling due together share
 * their statements: a fiftieth of the shortest check period, from 100 ms to 10 s.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { checkGatherMs } from '../../../src/schedule/jobs/check-job.js';

const NOW = new Date('2026-11-30T12:00:00Z');
const gather = (yaml: string, site = '{url: https://example.com, watch: [/]}') =>
  checkGatherMs(
    parseConfig(`sites: [${site}]\n${yaml}`, {
      file: 'test.yaml',
      cwd: '/tmp',
      env: {},
      version: 'test',
    }),
    NOW,
  );

describe('the checks a daemon starts together', () => {
  it('waits at most ten seconds for a daily schedule, the default', () => {
    expect(gather('')).toBe(10_000);
    expect(gather("schedule: {check: '0 3 * * *'}")).toBe(10_000);
  });

  it('waits a fiftieth of a short period, so that none spills into the next', () => {
    expect(gather("schedule: {check: '*/2 * * * *'}")).toBe(2_400);
    expect(gather("schedule: {check: '*/5 * * * *'}")).toBe(6_000);
  });

  it('follows the shortest of the schedules, a site’s own included, and never under 100 ms', () => {
    expect(
      gather(
        "schedule: {check: '0 3 * * *'}",
        "{url: https://example.com, watch: [/], schedule: '*/1 * * * *'}",
      ),
    ).toBe(1_200);
    expect(gather("schedule: {check: '*/5 * * * * *'}")).toBe(100);
  });
});
