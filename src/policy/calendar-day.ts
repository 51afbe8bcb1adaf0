/** Days as people write them on the command line and in the API. */

/**
 * A day as written, YYYY-MM-DD (or YYYY-MM, YYYY: its first day), if the calendar has it:
 * 2026-02-30 has no day (Date would make it 2 March), nor has year 0. `unit` says how
 * much was written, for a bound that counts the whole of it.
 */
export function readCalendarDay(
  text: string,
): { readonly start: Date; readonly unit: 'year' | 'month' | 'day' } | undefined {
  const m = /^(\d{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?$/.exec(text);
  if (m === null) return undefined;
  const [year, month, date] = [Number(m[1]), Number(m[2] ?? 1), Number(m[3] ?? 1)];
  if (year < 1) return undefined;
  const start = new Date(Date.UTC(year, month - 1, date));
  // Date.UTC reads the years 0-99 as 1900-1999 (whose leap years are the same).
  if (year < 100) start.setUTCFullYear(year);
  if (start.getUTCDate() !== date) return undefined;
  return { start, unit: m[3] !== undefined ? 'day' : m[2] !== undefined ? 'month' : 'year' };
}
