/** The Wayback Machine's capture times (YYYYMMDDhhmmss, UTC) and Dates, both ways. */

/** The Wayback Machine's first captures are of 1996: no robots.txt history is older. */
export const ARCHIVE_START_MS = Date.UTC(1996, 0, 1);

/**
 * A capture time as a Date, if the calendar has it: 20191301000000 (month 13) and
 * 20190230000000 (30 February) are no times, where Date.UTC would roll them into the
 * next year or March, and 00000000000000 is no time, where Date.UTC would read 1900.
 */
export function captureTime(timestamp: string): Date {
  const time = readCaptureTime(timestamp);
  if (time === undefined) throw new RangeError(`"${timestamp.slice(0, 20)}" is not a capture time`);
  return time;
}

/**
 * Whether a CDX row's timestamp is a capture the archive can hold: a real time, from 1996
 * on (the archive's start) and no later than a day after `latest`.
 */
export function isCaptureTime(timestamp: string, latest: Date): boolean {
  const time = readCaptureTime(timestamp);
  return (
    time !== undefined &&
    time.getTime() >= ARCHIVE_START_MS &&
    time.getTime() <= latest.getTime() + 86_400_000 // a day's grace for clocks that differ
  );
}

function readCaptureTime(timestamp: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(timestamp);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const time = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC reads the years 0-99 as 1900-1999 (whose leap years are the same).
  if (year < 100) time.setUTCFullYear(year);
  return time.getUTCDate() === day ? time : undefined;
}

/** A Date as a CDX time bound (YYYYMMDDhhmmss). */
export function cdxTime(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}
