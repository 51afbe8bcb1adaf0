import { CronExpressionParser } from 'cron-parser';

export interface Period {
  readonly start: Date;
  readonly end: Date;
}

/**
 * Each schedule's two periods last computed (no fire falls inside one, so it holds until
 * its end): the current one and the next, which the pages ask for in turn for each site's
 * next check (kept alone, each evicted the other: four cron parses a row of the overview).
 */
const lastPeriods = new Map<string, [Period] | [Period, Period]>();

/** The period of a schedule that `now` falls in: from its last fire (at or before now) to the next. */
export function periodAt(expression: string, timezone: string, now: Date): Period {
  // The daemon asks for the current period at every upkeep round (every 15 s), and the
  // cron arithmetic was a seventh of an idle daemon's CPU: a period is kept until it ends.
  const key = `${timezone}\0${expression}`;
  const last = lastPeriods.get(key);
  const at = now.getTime();
  if (last !== undefined)
    for (const period of last)
      if (period.start.getTime() <= at && at < period.end.getTime()) return period;
  // prev() is strictly before its start date: start 1 ms later so a fire at `now` counts.
  const previous = CronExpressionParser.parse(expression, {
    currentDate: new Date(at + 1),
    tz: timezone,
  }).prev();
  const next = CronExpressionParser.parse(expression, { currentDate: now, tz: timezone }).next();
  const period = Object.freeze({ start: previous.toDate(), end: next.toDate() });
  if (lastPeriods.size >= 1_000) lastPeriods.clear();
  lastPeriods.set(key, last === undefined ? [period] : [period, last[0]]);
  return period;
}

/**
 * Each site's period at `now`, computed once per schedule: 100,000 sites usually share a
 * handful of schedules, and each computation parses a cron expression.
 */
export function periodsAt(
  timezone: string,
  now: Date,
): (site: { readonly schedule: string }) => Period {
  const periods = new Map<string, Period>();
  return ({ schedule }) => {
    let period = periods.get(schedule);
    if (period === undefined) periods.set(schedule, (period = periodAt(schedule, timezone, now)));
    return period;
  };
}

/** The period a fire of a schedule closes: from the fire before it up to it. */
export function periodEndingAt(expression: string, timezone: string, fire: Date): Period {
  const previous = CronExpressionParser.parse(expression, {
    currentDate: fire,
    tz: timezone,
  }).prev();
  return { start: previous.toDate(), end: fire };
}

/** A site's stable place in any period, in [0, 1): FNV-1a of its origin. */
export function siteOffset(origin: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < origin.length; i++) {
    hash ^= origin.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
}

/**
 * When a site is due in a period: at its stable offset, within the first 90% of the
 * period so that a failed check has time to be retried before the period ends. A period
 * planned late (the daemon started mid-period) spreads its sites over what is left, so
 * that they are not all due at once. A site never checked (`baseline`) is due when it is
 * planned: the check pool, woken by the planning, takes it at once. (Spread over ten
 * seconds, as it was, the first checks waited for the pool's gathering as well: a new
 * install's first results came 10 to 20 s after the start on a daily schedule. The pool's
 * concurrency is what keeps a thousand new sites from being fetched at once.)
 */
export function dueAt(origin: string, period: Period, plannedAt: Date, baseline = false): Date {
  const from = Math.max(period.start.getTime(), plannedAt.getTime());
  if (baseline) return new Date(from);
  const window = Math.max(0, period.end.getTime() - from) * 0.9;
  return new Date(from + Math.floor(siteOffset(origin) * window));
}

/**
 * When a site's next check is due: its planned run if there is one, else its place in
 * the period after the current one (the current period's check is done).
 */
export function nextCheckAt(
  origin: string,
  schedule: string,
  timezone: string,
  now: Date,
  planned: Date | null,
): Date {
  if (planned !== null) return planned;
  const current = periodAt(schedule, timezone, now);
  const next = periodAt(schedule, timezone, current.end);
  return dueAt(origin, next, next.start);
}

/** The longest of a schedule's next few periods (months and weeks vary). */
export function longestPeriodMs(expression: string, timezone: string, from: Date): number {
  return Math.max(...nextPeriodsMs(expression, timezone, from));
}

/** The shortest of a schedule's next few periods. */
export function shortestPeriodMs(expression: string, timezone: string, from: Date): number {
  return Math.min(...nextPeriodsMs(expression, timezone, from));
}

/** The lengths of a schedule's next four periods. */
function nextPeriodsMs(expression: string, timezone: string, from: Date): number[] {
  const fires = CronExpressionParser.parse(expression, { currentDate: from, tz: timezone });
  let previous = fires.next().toDate().getTime();
  const lengths: number[] = [];
  for (let i = 0; i < 4; i++) {
    const next = fires.next().toDate().getTime();
    lengths.push(next - previous);
    previous = next;
  }
  return lengths;
}
