/** Inline SVG pictures of a site's history: the 90-day strip and the snapshot timeline. */
import { useContext } from 'hono/jsx';
import type { FC } from 'hono/jsx';
import { formatInstant, wallClock } from '../../policy/wording/format.js';
import type { DayAccess, TimelineSegment } from '../../policy/history.js';
import { ClockContext, day } from './components.js';

const DAY_WIDTH = 4;

/** Consecutive days with the same access, drawn as one bar. */
interface DayRun {
  readonly from: string;
  readonly to: string;
  readonly access: DayAccess['access'];
  readonly days: number;
  readonly checks: number;
}

function runsOf(days: readonly DayAccess[]): DayRun[] {
  const runs: DayRun[] = [];
  for (const d of days) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.access === d.access)
      runs[runs.length - 1] = {
        ...last,
        to: d.day,
        days: last.days + 1,
        checks: last.checks + d.checks,
      };
    else runs.push({ from: d.day, to: d.day, access: d.access, days: 1, checks: d.checks });
  }
  return runs;
}

const runTitle = (r: DayRun) =>
  `${r.from === r.to ? r.from : `${r.from} to ${r.to}`}: ${r.access === 'none' ? 'not checked' : r.access}${r.checks ? ` (${r.checks} check${r.checks === 1 ? '' : 's'})` : ''}`;

/**
 * The days, coloured by the worst access seen each day (grey: not checked); days alike
 * in a row are one bar, so that a page of 100 sites stays small.
 */
export const DayStrip: FC<{ days: readonly DayAccess[]; label: string }> = ({ days, label }) => {
  let x = 0;
  return (
    <svg
      class="strip"
      width={days.length * DAY_WIDTH}
      height="16"
      viewBox={`0 0 ${days.length * DAY_WIDTH} 16`}
      role="img"
      aria-label={label}
    >
      {runsOf(days).map((r) => {
        const bar = (
          <rect class={r.access} x={x} y="0" width={r.days * DAY_WIDTH - 1} height="16">
            <title>{runTitle(r)}</title>
          </rect>
        );
        x += r.days * DAY_WIDTH;
        return bar;
      })}
    </svg>
  );
};

const WIDTH = 1000;
const BAR = 28;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Ticks between two instants at a step that gives a handful of them (years, quarters,
 * months, weeks, days or hours, whatever the history's span), on the wall clock of
 * `timeZone`: a day's tick is at its local midnight and labelled with its local date.
 */
export function ticks(
  start: number,
  end: number,
  timeZone = 'UTC',
): { at: number; label: string }[] {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return utcTicks(start, end);
  // Ticks on the local wall clock as if it were UTC, then each back to its instant.
  const shift = offsetAt(start, timeZone);
  return utcTicks(start + shift, end + shift)
    .map((t) => ({ at: t.at - offsetAt(t.at - shift, timeZone), label: t.label }))
    .filter((t) => t.at > start && t.at < end);
}

/** How far a time zone's wall clock is ahead of UTC at an instant (milliseconds). */
export function offsetAt(at: number, timeZone: string): number {
  const w = wallClock(new Date(at), timeZone);
  const wall = Date.UTC(+w.year, +w.month - 1, +w.day, +w.hour, +w.minute);
  return wall - Math.floor(at / 60_000) * 60_000;
}

function utcTicks(start: number, end: number): { at: number; label: string }[] {
  const span = end - start;
  const out: { at: number; label: string }[] = [];
  const first = new Date(start);
  if (span >= 3 * 365 * DAY) {
    const step = Math.ceil(span / (365.25 * DAY) / 8);
    for (let y = first.getUTCFullYear() + 1; Date.UTC(y, 0, 1) < end; y++)
      if (y % step === 0) out.push({ at: Date.UTC(y, 0, 1), label: String(y) });
    return out;
  }
  if (span >= 60 * DAY) {
    const step = span >= 18 * 30 * DAY ? 3 : span >= 8 * 30 * DAY ? 2 : 1;
    for (let m = first.getUTCMonth() + 1, y = first.getUTCFullYear(); ; m++) {
      const at = Date.UTC(y + Math.floor(m / 12), m % 12, 1);
      if (at >= end) break;
      if ((m % 12) % step === 0) out.push({ at, label: new Date(at).toISOString().slice(0, 7) });
    }
    return out;
  }
  if (span >= 2 * DAY) {
    const step = span >= 28 * DAY ? 7 : span >= 10 * DAY ? 2 : 1;
    const midnight = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate());
    for (let at = midnight + DAY, i = 1; at < end; at += DAY, i++)
      if (i % step === 0) out.push({ at, label: new Date(at).toISOString().slice(5, 10) });
    return out;
  }
  const step = span >= 12 * HOUR ? 6 : span >= 4 * HOUR ? 2 : 1;
  for (let at = Math.ceil(start / (step * HOUR)) * step * HOUR; at < end; at += step * HOUR)
    if (at > start) out.push({ at, label: `${new Date(at).toISOString().slice(11, 13)}:00` });
  return out;
}

/**
 * The snapshots of a site along time, coloured by access, each a link to its page; a
 * marker where a snapshot brought change events.
 */
export const Timeline: FC<{ siteId: number; segments: readonly TimelineSegment[] }> = ({
  siteId,
  segments,
}) => {
  const clock = useContext(ClockContext);
  if (segments.length === 0) return <p class="muted">Not checked yet.</p>;
  const start = segments[0]!.start.getTime();
  const end = Math.max(segments[segments.length - 1]!.end.getTime(), start + 1);
  const x = (t: number) => ((t - start) / (end - start)) * WIDTH;
  return (
    <svg
      class="timeline"
      viewBox={`0 0 ${WIDTH} ${BAR + 42}`}
      width="100%"
      role="img"
      aria-label={`${segments.length} snapshots from ${day(segments[0]!.start)} to ${day(new Date(end))}`}
    >
      {segments.map((s) => (
        <a href={`/sites/${siteId}/snapshots/${s.snapshotId}`}>
          <rect
            class={s.archived ? `${s.access} archived` : s.access}
            x={x(s.start.getTime()).toFixed(2)}
            y="8"
            width={Math.max(0.8, x(s.end.getTime()) - x(s.start.getTime())).toFixed(2)}
            height={BAR}
          >
            <title>{`${s.archived ? 'from the Internet Archive, ' : ''}snapshot ${s.snapshotId}: ${s.access}, ${formatInstant(s.start, clock.timeZone)} to ${formatInstant(s.end, clock.timeZone)}${s.events ? `; ${s.events} change event${s.events === 1 ? '' : 's'}` : ''}`}</title>
          </rect>
        </a>
      ))}
      {segments
        .filter((s) => s.events > 0)
        .map((s) => (
          <g>
            <line
              class="marker"
              x1={x(s.start.getTime()).toFixed(2)}
              x2={x(s.start.getTime()).toFixed(2)}
              y1="4"
              y2={BAR + 8}
            />
            <circle class="marker" cx={x(s.start.getTime()).toFixed(2)} cy="4" r="2.5" />
          </g>
        ))}
      <line class="axis" x1="0" x2={WIDTH} y1={BAR + 10} y2={BAR + 10} />
      {ticks(start, end, clock.timeZone).map((t) => (
        <g>
          <line
            class="tick"
            x1={x(t.at).toFixed(2)}
            x2={x(t.at).toFixed(2)}
            y1={BAR + 10}
            y2={BAR + 14}
          />
          <text x={x(t.at).toFixed(2)} y={BAR + 25} text-anchor="middle">
            {t.label}
          </text>
        </g>
      ))}
      <text class="end" x="0" y={BAR + 38}>
        {formatInstant(new Date(start), clock.timeZone)}
      </text>
      <text class="end" x={WIDTH} y={BAR + 38} text-anchor="end">
        {formatInstant(new Date(end), clock.timeZone)}
      </text>
    </svg>
  );
};
