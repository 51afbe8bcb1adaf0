import { describe, expect, it } from 'vitest';
import { jsx } from 'hono/jsx';
import { ClockContext, Time, relative } from '../../../src/web/pages/components.js';
import { offsetAt, ticks } from '../../../src/web/pages/svg.js';

describe('times on pages', () => {
  const at = new Date('2026-11-23T04:12:00Z');
  it('say how long ago, or how soon', () => {
    const minutes = (n: number) => new Date(at.getTime() - n * 60_000);
    expect(relative(at, at)).toBe('just now');
    expect(relative(minutes(5), at)).toBe('5 min ago');
    expect(relative(minutes(180), at)).toBe('3 h ago');
    expect(relative(minutes(3 * 1440), at)).toBe('3 days ago');
    expect(relative(minutes(90 * 1440), at)).toBe('3 months ago');
    expect(relative(minutes(3 * 525_600), at)).toBe('3 years ago');
    expect(relative(minutes(-120), at)).toBe('in 2 h');
  });
  it('are shown in the page’s time zone, as alerts write them, with how long ago', async () => {
    const render = async (timeZone: string) =>
      String(
        await jsx(
          ClockContext.Provider,
          { value: { timeZone, now: new Date(at.getTime() + 3 * 3_600_000) } },
          jsx(Time, { date: at }),
        ).toString(),
      ).replace(/<[^>]+>/g, '');
    expect(await render('Europe/Paris')).toBe('2026-11-23 05:12 (Europe/Paris) (3 h ago)');
    expect(await render('UTC')).toBe('2026-11-23 04:12 UTC (3 h ago)');
    expect(await render('America/New_York')).toBe('2026-11-22 23:12 (America/New_York) (3 h ago)');
  });
  it('put the timeline’s ticks on the local wall clock', () => {
    const start = Date.parse('2026-03-25T10:00:00Z');
    const end = Date.parse('2026-03-31T10:00:00Z');
    // Paris: midnight is 23:00 UTC before the switch to summer time (29 March), 22:00 after.
    expect(
      ticks(start, end, 'Europe/Paris').map((t) => [new Date(t.at).toISOString(), t.label]),
    ).toEqual([
      ['2026-03-25T23:00:00.000Z', '03-26'],
      ['2026-03-26T23:00:00.000Z', '03-27'],
      ['2026-03-27T23:00:00.000Z', '03-28'],
      ['2026-03-28T23:00:00.000Z', '03-29'],
      ['2026-03-29T22:00:00.000Z', '03-30'],
      ['2026-03-30T22:00:00.000Z', '03-31'],
    ]);
    expect(ticks(start, end).map((t) => t.label)).toEqual([
      '03-26',
      '03-27',
      '03-28',
      '03-29',
      '03-30',
      '03-31',
    ]);
    expect(offsetAt(Date.parse('2026-07-01T12:00:00Z'), 'America/New_York')).toBe(-4 * 3_600_000);
    // Hours: every 6 h of local time, labelled with the local hour.
    const hours = ticks(
      Date.parse('2026-11-23T00:30:00Z'),
      Date.parse('2026-11-23T20:00:00Z'),
      'Asia/Kolkata',
    );
    expect(hours.map((t) => t.label)).toEqual(['12:00', '18:00', '00:00']);
    expect(new Date(hours[0]!.at).toISOString()).toBe('2026-11-23T06:30:00.000Z');
  });
});
