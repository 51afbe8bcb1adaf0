/** What every cause's wording shares: its context, its parts, counts and durations said plainly. Pure. */

export interface ExplainContext {
  /** The watched crawlers, in configuration order. */
  readonly agents: readonly string[];
  /** When the change was seen (for "after 3 h of 503"). */
  readonly at: Date;
}

/** A cause as people read it. */
export interface Explained {
  /** What changed, in one line. */
  readonly title: string;
  /** What crawlers do now, in a sentence or two. */
  readonly consequence: string;
  /** The watched pages it changed, collapsed, at most `limit` lines. */
  readonly lines: readonly string[];
  /** Pairs on lines left out. */
  readonly more: number;
  /** A few rules, groups or lines of the file, for summaries. */
  readonly details: readonly string[];
  /** How many more of those there are than `details` lists. */
  readonly detailsMore: number;
}

/**
 * A count as English writes it, thousands grouped: "12,345", what
 * `toLocaleString('en-US')` gives. Its first call loads ICU's locale data, about 20 ms of
 * CPU, which every command paid while building its configuration's schema; this does not.
 * Other than safe integers (no count is) fall back to ICU.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let text = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = text.length; i < digits.length; i += 3) text += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${text}` : text;
}

/** " (and 3 more changes)" after a change's headline, or nothing when it is the only one. */
export const moreChanges = (n: number) =>
  n > 0 ? ` (and ${grouped(n)} more change${n === 1 ? '' : 's'})` : '';

export const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const count = (n: number, one: string, many = `${one}s`) =>
  `${grouped(n)} ${n === 1 ? one : many}`;

/**
 * How many (watched page × crawler) pairs differ from the owner's intent, as the alerts,
 * the digest and the incident pages say it: "1 watched page × crawler pair differs".
 */
export const differingPairs = (n: number) =>
  `${count(n, 'watched page × crawler pair')} differ${n === 1 ? 's' : ''}`;

/** "3 h 20 min", "2 days 4 h", "45 s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const days = Math.floor(h / 24);
  if (days >= 14 || h % 24 === 0) return count(days, 'day');
  return `${count(days, 'day')} ${h % 24} h`;
}
