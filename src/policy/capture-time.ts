/** The Wayback Machine's capture times (YYYYMMDDhhmmss, UTC) and Dates, both ways. */

/** The Wayback Machine's first captures are of 1996: no robots.txt history is older. */
export const ARCHIVE_START_MS = Date.UTC(1996, 0, 1);

/** A capture time as a Date. */
export function captureTime(timestamp: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(timestamp);
  if (m === null) throw new RangeError(`"${timestamp.slice(0, 20)}" is not a capture time`);
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/** A Date as a CDX time bound (YYYYMMDDhhmmss). */
export function cdxTime(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}
