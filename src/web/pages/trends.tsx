import type { FC } from 'hono/jsx';
import type { TrendBy } from '../../monitor/views/trends.js';
import type { TrendPoint } from '../../policy/trends.js';
import type { LabelledTrend } from '../../monitor/views/trends.js';
import { Layout } from './components.js';

const BAR = 10;
const HEIGHT = 60;
/** Drawn bottom up: blocked, partly, not blocked, no robots.txt. */
const PARTS = [
  ['full', 'unreachable', 'blocked from every watched page'],
  ['partly', 'unavailable', 'blocked from some'],
  ['none', 'ok', 'not blocked'],
  ['noRobotsTxt', 'none', 'no robots.txt'],
] as const;

const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;

function pointTitle(p: TrendPoint): string {
  const sites = Math.round(p.sites * 10) / 10;
  return `${p.month}: ${sites} site${sites === 1 ? '' : 's'}; ${PARTS.map(([key, , words]) => `${words} ${pct(p[key])}`).join(', ')}`;
}

/** One group's months as stacked bars, each with its numbers on hover. */
const TrendChart: FC<{ trend: LabelledTrend }> = ({ trend }) => {
  const points = trend.points;
  const width = Math.max(points.length * BAR, BAR);
  return (
    <svg
      class="strip trend"
      width={width}
      height={HEIGHT}
      viewBox={`0 0 ${width} ${HEIGHT}`}
      role="img"
      aria-label={`${trend.label}, month by month`}
    >
      {points.map((p, i) => {
        let y = HEIGHT;
        return (
          <g>
            <title>{pointTitle(p)}</title>
            {p.sites === 0
              ? null
              : PARTS.map(([key, css]) => {
                  const h = p[key] * HEIGHT;
                  y -= h;
                  return h <= 0 ? null : (
                    <rect class={css} x={i * BAR} y={y} width={BAR - 1} height={h} />
                  );
                })}
          </g>
        );
      })}
    </svg>
  );
};

/** Trends per crawler, operator or purpose: a chart per group, the last month in words. */
export const TrendsPageView: FC<{
  trends: readonly LabelledTrend[];
  by: TrendBy;
  weighted: boolean;
  signedIn: boolean;
}> = ({ trends, by, weighted, signedIn }) => (
  <Layout title="Trends" signedIn={signedIn}>
    <h1>Trends</h1>
    <p class="muted">
      Per month, each site with its robots.txt at the end of the month: of the sites that watch
      them, the share blocking the crawlers <span class="access access-unreachable">fully</span>{' '}
      (every watched page; or robots.txt cannot be read, so Google crawls nothing),{' '}
      <span class="access access-unavailable">partly</span>,{' '}
      <span class="access access-ok">not at all</span>, or with{' '}
      <span class="access access-none">no robots.txt</span>. As JSON:{' '}
      <a href={`/api/v1/trends?by=${by}${weighted ? '&weighted=1' : ''}`}>/api/v1/trends</a>.
    </p>
    <form method="get" action="/trends" class="filter">
      <label>
        By{' '}
        <select name="by">
          {(
            [
              ['agent', 'crawler'],
              ['operator', 'operator'],
              ['purpose', 'purpose'],
            ] as const
          ).map(([value, label]) => (
            <option value={value} selected={value === by}>
              {label}
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        <input type="checkbox" name="weighted" value="1" checked={weighted} /> weighted by rank
      </label>{' '}
      <button type="submit">Show</button>
    </form>
    {trends.length === 0 ? (
      <p class="muted">
        No recorded history yet: no site watching these crawlers has been checked.
      </p>
    ) : (
      trends.map((t) => {
        const last = t.points[t.points.length - 1]!;
        return (
          <section>
            <h2>{t.label}</h2>
            <div class="scroll">
              <TrendChart trend={t} />
            </div>
            <p class="muted">{pointTitle(last)}</p>
          </section>
        );
      })
    )}
  </Layout>
);
