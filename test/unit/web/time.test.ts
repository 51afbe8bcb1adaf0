import { describe, expect, it } from 'vitest';
import { jsx } from 'hono/jsx';
import { ClockContext, Time, relative } from '../../../src/web/pages/components.js';

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
});
