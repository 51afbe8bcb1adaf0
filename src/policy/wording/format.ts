/** Human-readable text for change events and fetch statuses: the CLI's, the alerts' and the web's. */
import type { ChangeEvent, EffectiveRule, FetchStatus } from '../changes/events.js';
import type { VerdictCause } from '../verdicts.js';

/** "ok 200", "unreachable 503", "unreachable (timeout)". */
export function formatStatus(status: FetchStatus): string {
  const detail = status.error !== undefined ? ` (${status.error})` : '';
  return `${status.access}${status.status === undefined ? '' : ` ${status.status}`}${detail}`;
}

function formatCause(cause: VerdictCause): string {
  if (cause.type === 'access') {
    return cause.access === 'unreachable'
      ? 'robots.txt is unreachable'
      : 'robots.txt is unavailable';
  }
  const directive = cause.directive === 'allow' ? 'Allow' : 'Disallow';
  return `line ${cause.line}: ${directive}: ${cause.pattern}`.trimEnd();
}

function formatRule(rule: EffectiveRule): string {
  return `${rule.agent} ${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern} (line ${rule.line})`;
}

/** The path and query of a watched URL, which is what a reader recognises. */
function shortUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** One or more lines describing an event, readable at a glance. */
export function formatEvent(event: ChangeEvent): string[] {
  switch (event.type) {
    case 'newly_disallowed':
      return [
        `DISALLOWED now: ${shortUrl(event.url)} for ${event.agent} (${formatCause(event.cause)})`,
      ];
    case 'newly_allowed':
      return [
        `allowed now: ${shortUrl(event.url)} for ${event.agent} (${formatCause(event.cause)})`,
      ];
    case 'fetch_status_changed':
      return [`fetch status: ${formatStatus(event.before)} -> ${formatStatus(event.after)}`];
    case 'rules_changed':
      return [
        ...event.added.map((r) => `rule added:   ${formatRule(r)}`),
        ...event.removed.map((r) => `rule removed: ${formatRule(r)}`),
      ];
    case 'sitemaps_changed':
      return [
        ...event.added.map((s) => `sitemap added:   ${s}`),
        ...event.removed.map((s) => `sitemap removed: ${s}`),
      ];
  }
}

/** A byte count for people: "812 B", "14.2 KB". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '-';
  return bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(1)} KB`;
}

/** "2026-03-01 12:00:00Z" */
export function formatTime(date: Date | null): string {
  return date === null
    ? '-'
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

/** The most important change, in a few words: the subject of an alert. */
export function headline(event: ChangeEvent): string {
  switch (event.type) {
    case 'newly_disallowed':
      return `${shortUrl(event.url)} is now disallowed for ${event.agent}`;
    case 'newly_allowed':
      return `${shortUrl(event.url)} is now allowed for ${event.agent}`;
    case 'fetch_status_changed':
      return `robots.txt is now ${formatStatus(event.after)} (was ${formatStatus(event.before)})`;
    case 'rules_changed':
      return `robots.txt rules changed (${event.added.length} added, ${event.removed.length} removed)`;
    case 'sitemaps_changed':
      return `sitemaps changed (${event.added.length} added, ${event.removed.length} removed)`;
  }
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant on a time zone's wall clock: its date and its minute (hours 00 to 23). */
export function wallClock(
  date: Date,
  timeZone: string,
): { year: string; month: string; day: string; hour: string; minute: string } {
  let format = wallFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    wallFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: part('year'),
    month: part('month'),
    day: part('day'),
    hour: part('hour'),
    minute: part('minute'),
  };
}

/**
 * "2026-11-23 03:12 UTC", or in another time zone "2026-11-23 04:12 (Europe/Paris)": an
 * instant as a person there reads it.
 */
export function formatInstant(date: Date, timeZone: string): string {
  const { year, month, day, hour, minute } = wallClock(date, timeZone);
  const text = `${year}-${month}-${day} ${hour}:${minute}`;
  return timeZone === 'UTC' || timeZone === 'Etc/UTC' ? `${text} UTC` : `${text} (${timeZone})`;
}

/** "2026-11-23" in a time zone. */
export function formatDay(date: Date, timeZone: string): string {
  return formatInstant(date, timeZone).slice(0, 10);
}

/**
 * A site as alerts, incidents and their pages call it: its name with its host ("Shop
 * (shop.example.com)"), or its host alone when it has no name.
 */
export function siteLabel(origin: string, name: string | null | undefined): string {
  const { host } = new URL(origin);
  return name === undefined || name === null || name === ''
    ? host
    : `${oneLineText(name)} (${host})`;
}

/** Text quoted in a message: its first `max` characters, and "…" when there were more. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Text quoted from a file (a robots.txt line, a key) as a terminal may print it: each
 * control character but the tab (ESC, CR, LF, NUL, DEL, the C1 range, the Unicode line
 * separators) written out as an escape such as \x1b, so that a hostile file cannot
 * recolour, move the cursor or rewrite what was printed, and the reader still sees that
 * the byte is there.
 */
export function visibleControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- showing control characters is the point
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** C0 and C1 control characters, DEL and the Unicode line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line of plain text: control characters (CR and LF included) become spaces. */
export function oneLineText(text: string): string {
  return text.replace(CONTROLS, ' ').trim();
}

/** Whether text holds a control character (a name shown in lists and terminals may not). */
export function hasControls(text: string): boolean {
  return text.search(CONTROLS) !== -1;
}

const DURATION_UNITS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** "7d", "24h", "2w", "90m" as milliseconds; undefined for anything else. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d{1,6})([mhdw])$/.exec(value);
  return match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : undefined;
}

/** Milliseconds as the shortest duration parseDuration reads back ("7d"; minutes at least). */
export function durationText(ms: number): string {
  for (const unit of ['w', 'd', 'h'] as const)
    if (ms % DURATION_UNITS[unit]! === 0) return `${ms / DURATION_UNITS[unit]!}${unit}`;
  return `${Math.ceil(ms / DURATION_UNITS['m']!)}m`;
}
