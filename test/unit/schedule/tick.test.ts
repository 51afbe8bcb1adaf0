/**
 * When a daemon refreshes the database's statistics where the server keeps none (the
 * embedded database has no autovacuum): 30 s after its start, when the first checks have
 * filled the tables, then four times further apart each time up to every six hours, with
 * the dead rows reclaimed (VACUUM) once a day. The upkeep's rounds are run one by one on
 * a clock the test sets; what the database does is store/maintain.test.ts's, and a daemon
 * doing it on the embedded database is schedule/daemon.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { NewJob } from '../../../src/monitor/ports.js';
import { EventEmitter } from 'node:events';
import type { DaemonContext } from '../../../src/schedule/job-kind.js';
import type { ScheduleFires } from '../../../src/schedule/fires.js';
import type { UpkeepJob } from '../../../src/schedule/jobs/upkeep-job.js';
import { Tick, TICK_MS } from '../../../src/schedule/tick.js';

const START = Date.parse('2026-03-02T00:00:00Z');
const SECOND = 1_000;
const HOUR = 3_600_000;

/**
 * Runs the upkeep's rounds every TICK_MS from START for `hours`, on the embedded database,
 * and returns each statistics task the rounds queued with its time, in seconds after the
 * start.
 */
async function maintenance(hours: number): Promise<{ task: string; at: number }[]> {
  const config = parseConfig("sites: [{url: 'https://example.com', watch: [/]}]\n", {
    file: 'tick-test.yaml',
    cwd: '/tmp',
    env: {},
    version: 'test',
  });
  let now = START;
  const sent: NewJob<unknown>[] = [];
  const deps = {
    config,
    now: () => new Date(now),
    catalog: { config, file: config, refresh: () => Promise.resolve() },
    jobs: {
      send: (_queue: string, jobs: readonly NewJob<unknown>[]) => {
        sent.push(...jobs);
        return Promise.resolve();
      },
    },
    store: {
      lastDigestEnd: () => Promise.resolve(null),
      maintainDatabase: () => Promise.resolve('embedded' as const),
    },
  };
  const context = {
    deps,
    events: new EventEmitter(),
    bySchedule: () => new Map([[config.schedule.check, [1]]]),
    registry: undefined,
    wake: () => undefined,
    stopping: new AbortController().signal,
  } as unknown as DaemonContext;
  const tick = new Tick(context, {} as ScheduleFires);
  for (; now <= START + hours * HOUR; now += TICK_MS) await tick.once();
  return sent
    .map((job) => job.data as UpkeepJob)
    .filter((job) => job.task === 'analyze' || job.task === 'vacuum')
    .map((job) => ({ task: job.task, at: (Date.parse(job.at) - START) / SECOND }));
}

describe('the statistics upkeep', () => {
  it('analyzes 30 s after the start, then four times further apart up to every six hours, and vacuums daily', async () => {
    const done = await maintenance(48);
    const analyze = (at: number) => ({ task: 'analyze', at });
    const sixHours = (6 * HOUR) / SECOND;
    // 30 s, then 2, 8, 32 and 128 minutes later (the tables grow fast at first)…
    const early = [30, 150, 630, 2_550, 10_230];
    // …then every six hours; the first round a day after the start reclaims dead rows too.
    const later = [1, 2, 3, 4, 5, 6, 7].map((n) => 10_230 + n * sixHours);
    expect(done).toEqual([
      ...early.map(analyze),
      ...later.slice(0, 3).map(analyze),
      { task: 'vacuum', at: later[3] },
      ...later.slice(4).map(analyze),
    ]);
    expect(later[3]! * SECOND).toBeGreaterThanOrEqual(24 * HOUR);
    expect(later[2]! * SECOND).toBeLessThan(24 * HOUR);
  });
});
