/** Inline SVG pictures of a site's history: the 90-day strip and the snapshot timeline. */
import type { FC } from 'hono/jsx';
import type { DayAccess, TimelineSegment } from '../../policy/history.js';
import { day, minute } from './components.js';

const DAY_WIDTH = 4;

/** One bar per day, coloured by the worst access seen that day (grey: not checked). */
export const DayStrip: FC<{ days: readonly DayAccess[]; label: string }> = ({ days, label }) => (
  <svg
    class="strip"
    width={days.length * DAY_WIDTH}
    height="16"
    viewBox={`0 0 ${days.length * DAY_WIDTH} 16`}
    role="img"
    aria-label={label}
  >
    {days.map((d, i) => (
      <rect class={d.access} x={i * DAY_WIDTH} y="0" width={DAY_WIDTH - 1} height="16">
        <title>{`${d.day}: ${d.access === 'none' ? 'not checked' : d.access}${d.checks ? ` (${d.checks} check${d.checks === 1 ? '' : 's'})` : ''}`}</title>
      </rect>
    ))}
  </svg>
);

const WIDTH = 1000;
const BAR = 28;

/** Year (or month, for a short history) ticks between two instants. */
function ticks(start: number, end: number): { at: number; label: string }[] {
  const years = (end - start) / (365.25 * 24 * 3600 * 1000);
  const out: { at: number; label: string }[] = [];
  const first = new Date(start);
  if (years >= 2) {
    for (let y = first.getUTCFullYear() + 1; Date.UTC(y, 0, 1) < end; y++)
      out.push({ at: Date.UTC(y, 0, 1), label: String(y) });
  } else {
    const step = years >= 0.5 ? 3 : 1;
    let m = first.getUTCMonth() + 1;
    let y = first.getUTCFullYear();
    for (;;) {
      if (m > 11) {
        m -= 12;
        y++;
      }
      const at = Date.UTC(y, m, 1);
      if (at >= end) break;
      if (m % step === 0) out.push({ at, label: new Date(at).toISOString().slice(0, 7) });
      m++;
    }
  }
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
  if (segments.length === 0) return <p class="muted">Not checked yet.</p>;
  const start = segments[0]!.start.getTime();
  const end = Math.max(segments[segments.length - 1]!.end.getTime(), start + 1);
  const x = (t: number) => ((t - start) / (end - start)) * WIDTH;
  return (
    <svg
      class="timeline"
      viewBox={`0 0 ${WIDTH} ${BAR + 26}`}
      width="100%"
      role="img"
      aria-label={`${segments.length} snapshots from ${day(segments[0]!.start)} to ${day(new Date(end))}`}
    >
      {segments.map((s) => (
        <a href={`/sites/${siteId}/snapshots/${s.snapshotId}`}>
          <rect
            class={s.access}
            x={x(s.start.getTime()).toFixed(2)}
            y="8"
            width={Math.max(0.8, x(s.end.getTime()) - x(s.start.getTime())).toFixed(2)}
            height={BAR}
          >
            <title>{`snapshot ${s.snapshotId}: ${s.access}, ${minute(s.start)} to ${minute(s.end)}${s.events ? `; ${s.events} change event${s.events === 1 ? '' : 's'}` : ''}`}</title>
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
      {ticks(start, end).map((t) => (
        <text x={x(t.at).toFixed(2)} y={BAR + 22}>
          {t.label}
        </text>
      ))}
    </svg>
  );
};
