/** Schedule periods and each site's stable place in them. */
import { describe, expect, it } from 'vitest';
import { dueAt, periodAt, periodEndingAt, siteOffset } from '../../../src/policy/periods.js';

describe('periodEndingAt', () => {
  it.each([
    // The default digest: Mondays 08:00, so a week back from a fire.
    ['0 8 * * 1', 'UTC', '2026-03-16T08:00:00Z', '2026-03-09T08:00:00.000Z'],
    // Daily in Paris across the spring change: 23 hours.
    ['0 8 * * *', 'Europe/Paris', '2026-03-29T06:00:00Z', '2026-03-28T07:00:00.000Z'],
    // Twice a month.
    ['0 8 1,15 * *', 'UTC', '2026-03-01T08:00:00Z', '2026-02-15T08:00:00.000Z'],
  ])('%s in %s: the fire at %s closes the period from %s', (expression, tz, fire, start) => {
    expect(periodEndingAt(expression, tz, new Date(fire))).toEqual({
      start: new Date(start),
      end: new Date(fire),
    });
  });
});

describe('periodAt', () => {
  it.each([
    [
      '0 3 * * *',
      'UTC',
      '2026-03-10T10:00:00Z',
      '2026-03-10T03:00:00.000Z',
      '2026-03-11T03:00:00.000Z',
    ],
    [
      '0 3 * * *',
      'UTC',
      '2026-03-10T03:00:00Z',
      '2026-03-10T03:00:00.000Z',
      '2026-03-11T03:00:00.000Z',
    ],
    [
      '0 3 * * *',
      'UTC',
      '2026-03-10T02:59:59Z',
      '2026-03-09T03:00:00.000Z',
      '2026-03-10T03:00:00.000Z',
    ],
    [
      '0 3 * * *',
      'Europe/Paris',
      '2026-03-10T10:00:00Z',
      '2026-03-10T02:00:00.000Z',
      '2026-03-11T02:00:00.000Z',
    ],
    [
      '0 8 * * 1',
      'UTC',
      '2026-03-11T00:00:00Z',
      '2026-03-09T08:00:00.000Z',
      '2026-03-16T08:00:00.000Z',
    ],
    [
      '*/5 * * * * *',
      'UTC',
      '2026-03-10T10:00:07Z',
      '2026-03-10T10:00:05.000Z',
      '2026-03-10T10:00:10.000Z',
    ],
  ])('%s in %s at %s: %s to %s', (expression, tz, now, start, end) => {
    const period = periodAt(expression, tz, new Date(now));
    expect([period.start.toISOString(), period.end.toISOString()]).toEqual([start, end]);
  });

  it('answers the same period anywhere within it, and the next from its end on', () => {
    const iso = (p: { start: Date; end: Date }) => [p.start.toISOString(), p.end.toISOString()];
    const day = ['2026-03-10T03:00:00.000Z', '2026-03-11T03:00:00.000Z'];
    // Asked in turn, as the daemon asks at each upkeep round (a period is kept until it ends).
    expect(iso(periodAt('0 3 * * *', 'UTC', new Date('2026-03-10T10:00:00Z')))).toEqual(day);
    expect(iso(periodAt('0 3 * * *', 'UTC', new Date('2026-03-10T03:00:00Z')))).toEqual(day);
    expect(iso(periodAt('0 3 * * *', 'UTC', new Date('2026-03-11T02:59:59.999Z')))).toEqual(day);
    expect(iso(periodAt('0 3 * * *', 'UTC', new Date('2026-03-11T03:00:00Z')))).toEqual([
      '2026-03-11T03:00:00.000Z',
      '2026-03-12T03:00:00.000Z',
    ]);
    // Back in time, another time zone, another schedule: each its own.
    expect(iso(periodAt('0 3 * * *', 'UTC', new Date('2026-03-10T02:59:59Z')))).toEqual([
      '2026-03-09T03:00:00.000Z',
      '2026-03-10T03:00:00.000Z',
    ]);
    expect(iso(periodAt('0 3 * * *', 'Europe/Paris', new Date('2026-03-10T10:00:00Z')))).toEqual([
      '2026-03-10T02:00:00.000Z',
      '2026-03-11T02:00:00.000Z',
    ]);
    expect(iso(periodAt('0 3 * * 2', 'UTC', new Date('2026-03-10T10:00:00Z')))).toEqual([
      '2026-03-10T03:00:00.000Z',
      '2026-03-17T03:00:00.000Z',
    ]);
  });
});

describe('periodAt asked for the current and the next period in turn', () => {
  it('answers each, as a page asks for each site’s next check, and moves on with time', () => {
    const iso = (p: { start: Date; end: Date }) => [p.start.toISOString(), p.end.toISOString()];
    const at = (when: string) => periodAt('30 4 * * *', 'UTC', new Date(when));
    const first = ['2026-05-01T04:30:00.000Z', '2026-05-02T04:30:00.000Z'];
    const second = ['2026-05-02T04:30:00.000Z', '2026-05-03T04:30:00.000Z'];
    const third = ['2026-05-03T04:30:00.000Z', '2026-05-04T04:30:00.000Z'];
    for (let row = 0; row < 3; row++) {
      const current = at('2026-05-01T12:00:00Z');
      expect(iso(current)).toEqual(first);
      expect(iso(periodAt('30 4 * * *', 'UTC', current.end))).toEqual(second);
    }
    // A day later: the period that was next is current, and the one after it next.
    const current = at('2026-05-02T12:00:00Z');
    expect(iso(current)).toEqual(second);
    expect(iso(periodAt('30 4 * * *', 'UTC', current.end))).toEqual(third);
    expect(iso(at('2026-05-01T23:00:00Z'))).toEqual(first);
  });
});

describe('siteOffset and dueAt', () => {
  const day = { start: new Date('2026-03-10T03:00:00Z'), end: new Date('2026-03-11T03:00:00Z') };

  it('gives each site the same place in every period, spread over the period', () => {
    const origins = Array.from({ length: 1000 }, (_, i) => `https://site-${i}.example`);
    const offsets = origins.map(siteOffset);
    expect(origins.map(siteOffset)).toEqual(offsets);
    expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...offsets)).toBeLessThan(1);
    // Spread: every tenth of the period holds between 5% and 15% of the sites.
    const buckets = Array<number>(10).fill(0);
    for (const o of offsets) buckets[Math.floor(o * 10)]!++;
    for (const b of buckets) expect(b).toBeGreaterThan(50);
    for (const b of buckets) expect(b).toBeLessThan(150);
  });

  it('leaves the last tenth of the period for retries', () => {
    for (let i = 0; i < 200; i++) {
      const due = dueAt(`https://s${i}.example`, day, day.start).getTime();
      expect(due).toBeGreaterThanOrEqual(day.start.getTime());
      expect(due).toBeLessThanOrEqual(
        day.start.getTime() + 0.9 * (day.end.getTime() - day.start.getTime()),
      );
    }
  });

  it('makes a site never checked due when it is planned, wherever its place in the period', () => {
    const planned = new Date('2026-03-10T09:30:00Z');
    for (let i = 0; i < 100; i++)
      expect(dueAt(`https://s${i}.example`, day, planned, true)).toEqual(planned);
    // Its next periods' checks take its place in them again.
    expect(
      new Set(
        Array.from({ length: 100 }, (_, i) =>
          dueAt(`https://s${i}.example`, day, planned).getTime(),
        ),
      ).size,
    ).toBeGreaterThan(90);
  });

  it('spreads a period planned late over what is left of it', () => {
    const late = new Date('2026-03-10T21:00:00Z');
    const dues = Array.from({ length: 100 }, (_, i) =>
      dueAt(`https://s${i}.example`, day, late).getTime(),
    );
    expect(Math.min(...dues)).toBeGreaterThanOrEqual(late.getTime());
    expect(Math.max(...dues)).toBeLessThan(day.end.getTime());
    expect(new Set(dues).size).toBeGreaterThan(90); // not all at once
  });
});
