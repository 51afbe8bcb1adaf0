/**
 * The coverage panel of a site's page: how much of its sitemaps each crawler may fetch
 * (crawlers that read the same rules share a row), the lines that decide with how many
 * URLs each, the prefixes most blocked, samples, the share allowed over time as a chart,
 * and what was wrong with the sitemaps. No JavaScript: details open natively.
 */
import type { FC } from 'hono/jsx';
import {
  coverageShiftNote,
  coverageShiftRows,
  coverageSideText,
} from '../../monitor/views/coverage.js';
import type { CoverageShift } from '../../monitor/views/coverage.js';
import type { CoverageDocumentValue as CoverageDocument } from '../../monitor/documents/index.js';
import type { CoveragePoint } from '../../monitor/records.js';
import { groupAlike } from '../../policy/coverage.js';
import { Time } from './components.js';
import { grouped } from '../../policy/wording/words.js';
import { crawlerSet } from '../../policy/wording/explain-pairs.js';

const count = (n: number) => grouped(n);
const percent = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(part === whole || part === 0 ? 0 : 1)}%`;

type AgentCoverage = CoverageDocument['agents'][string];

/** Crawlers with the same coverage, together, most blocked first. */
function groupsOf(doc: CoverageDocument): { agents: string[]; value: AgentCoverage }[] {
  return groupAlike(Object.entries(doc.agents)).sort(
    (a, b) => b.value.disallowed - a.value.disallowed,
  );
}

/** Crawlers alike: each by name, or "All 45 watched crawlers" with the names on hover. */
const Crawlers: FC<{ set: readonly string[]; all: readonly string[] }> = ({ set, all }) => {
  const names = set.join(', ');
  const said = crawlerSet(set, all);
  return said === names ? <>{names}</> : <span title={names}>{said}</span>;
};

const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
const WIDTH = 1000;
const HEIGHT = 140;

/** The share of the URL set each crawler may fetch, over time (a step line per group). */
const CoverageChart: FC<{
  history: readonly CoveragePoint[];
  now: Date;
  /** The crawlers in the site's order (the history's may be in any). */
  order: readonly string[];
}> = ({ history, now, order }) => {
  if (history.length < 2) return null;
  const seen = new Set(history.flatMap((p) => Object.keys(p.allowed)));
  const agents = [
    ...order.filter((a) => seen.has(a)),
    ...[...seen].filter((a) => !order.includes(a)),
  ];
  const lines = groupAlike(
    agents.map(
      (agent) =>
        [
          agent,
          history.map((p) =>
            p.allowed[agent] === undefined || p.urls === 0 ? null : p.allowed[agent] / p.urls,
          ),
        ] as const,
    ),
  )
    .map(({ agents, value }) => ({ agents, shares: value }))
    .slice(0, COLOURS.length);
  const start = history[0]!.at.getTime();
  const end = Math.max(now.getTime(), history.at(-1)!.at.getTime() + 1);
  const x = (t: number) => ((t - start) / (end - start)) * WIDTH;
  const y = (share: number) => 4 + (1 - share) * (HEIGHT - 8);
  const path = (shares: readonly (number | null)[]) => {
    let d = '';
    shares.forEach((share, i) => {
      if (share === null) return;
      const x0 = x(history[i]!.at.getTime());
      const x1 = i + 1 < history.length ? x(history[i + 1]!.at.getTime()) : WIDTH;
      d += `${d === '' ? 'M' : 'L'}${x0.toFixed(1)},${y(share).toFixed(1)}H${x1.toFixed(1)}`;
    });
    return d;
  };
  return (
    <figure class="coverage-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label="Share of the sitemap URLs each crawler may fetch, over time"
        preserveAspectRatio="none"
      >
        <line x1="0" x2={WIDTH} y1={y(1)} y2={y(1)} class="grid" />
        <line x1="0" x2={WIDTH} y1={y(0.5)} y2={y(0.5)} class="grid" />
        <line x1="0" x2={WIDTH} y1={y(0)} y2={y(0)} class="grid" />
        {lines.map((line, i) => (
          <path d={path(line.shares)} fill="none" stroke={COLOURS[i]} stroke-width="3">
            <title>{line.agents.join(', ')}</title>
          </path>
        ))}
      </svg>
      <figcaption>
        Share of the sitemap URLs each may fetch (top 100%, bottom 0%), from{' '}
        <Time date={history[0]!.at} /> to now:{' '}
        {lines.map((line, i) => (
          <span class="legend">
            <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
              <rect width="10" height="10" fill={COLOURS[i]} />
            </svg>{' '}
            <Crawlers set={line.agents} all={agents} />{' '}
          </span>
        ))}
      </figcaption>
    </figure>
  );
};

export const CoveragePanel: FC<{
  doc: CoverageDocument | undefined;
  history: readonly CoveragePoint[];
  /** The site's sitemaps setting: off, or on (auto or a list). */
  off: boolean;
  now: Date;
}> = ({ doc, history, off, now }) => {
  if (doc === undefined)
    return (
      <p class="muted">
        {off
          ? 'Sitemaps are off for this site: set sitemaps: auto (or list them) in the configuration to see how much of the whole site each crawler may fetch.'
          : 'Not computed yet: it is worked out after the next check.'}
      </p>
    );
  const set = doc.urlSet;
  const problems = [
    ...set.problems,
    ...set.sitemaps.flatMap((s) => s.problems.map((p) => `${s.url}: ${p}`)),
  ];
  if (doc.urls === 0)
    return (
      <div class="notice">
        {problems.length === 0
          ? 'The sitemaps list no URL of this site.'
          : problems.slice(0, 20).map((p) => <p>{p}</p>)}
      </div>
    );
  return (
    <>
      <p>
        {count(doc.urls)} URL{doc.urls === 1 ? '' : 's'} from {set.sitemaps.length} sitemap
        {set.sitemaps.length === 1 ? '' : 's'}, read <Time date={new Date(set.lastSeenAt)} />; this
        set since <Time date={new Date(set.firstSeenAt)} />: {count(set.added)} added,{' '}
        {count(set.removed)} removed.
        {set.otherOrigins > 0
          ? ` ${count(set.otherOrigins)} URL${set.otherOrigins === 1 ? '' : 's'} of other sites not counted.`
          : ''}
      </p>
      {doc.findings.map((finding) => (
        <div class="notice warning">{finding}</div>
      ))}
      <CoverageChart history={history} now={now} order={Object.keys(doc.agents)} />
      <div class="scroll">
        <table class="coverage">
          <thead>
            <tr>
              <th>Crawlers</th>
              <th class="num">May fetch</th>
              <th class="num">Disallowed</th>
              <th>Mostly</th>
              <th>Decided by</th>
            </tr>
          </thead>
          <tbody>
            {groupsOf(doc).map(({ agents, value: a }) => (
              <tr>
                <td>
                  <Crawlers set={agents} all={Object.keys(doc.agents)} />
                </td>
                <td class="num">
                  {count(a.allowed)} ({percent(a.allowed, doc.urls)})
                </td>
                <td class="num">{count(a.disallowed)}</td>
                <td>
                  {a.access === 'unreachable'
                    ? 'robots.txt cannot be read: every URL'
                    : a.prefixes
                        .slice(0, 3)
                        .map((p) => `${p.prefix} (${count(p.disallowed)} of ${count(p.urls)})`)
                        .join(', ') || '–'}
                </td>
                <td>
                  {a.rules.length === 0 ? (
                    '–'
                  ) : (
                    <details>
                      <summary>
                        line {a.rules[0]!.line} <code>{ruleText(a.rules[0]!)}</code>:{' '}
                        {count(a.rules[0]!.urls)} URL{a.rules[0]!.urls === 1 ? '' : 's'}
                        {a.rules.length > 1 ? ` and ${a.rules.length - 1} more` : ''}
                      </summary>
                      <ul class="details">
                        {a.rules.slice(0, 20).map((r) => (
                          <li>
                            line {r.line} <code>{ruleText(r)}</code>: {count(r.urls)} URL
                            {r.urls === 1 ? '' : 's'}, e.g. <span class="mono">{r.samples[0]}</span>
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {problems.length === 0 ? null : (
        <div class="notice error">
          What was wrong with the sitemaps:
          <ul>
            {problems.slice(0, 20).map((p) => (
              <li>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
};

function ruleText(rule: { readonly directive: string; readonly pattern: string }): string {
  return `${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern}`;
}

/** Two snapshots' coverage side by side (the snapshot and diff pages). */
export const CoverageShiftTable: FC<{
  shift: CoverageShift | undefined;
  siteId: number;
}> = ({ shift, siteId }) => {
  if (shift === undefined) return null;
  const note = coverageShiftNote(shift);
  const rows = coverageShiftRows(shift);
  const watched = rows.flatMap((row) => row.agents);
  const link = (side: CoverageShift['from']) =>
    side === null ? (
      'not computed'
    ) : (
      <a href={`/sites/${siteId}/snapshots/${side.snapshot}`}>snapshot {side.snapshot}</a>
    );
  return (
    <section aria-label="Sitemap URLs before and after">
      <h2>Sitemap URLs each crawler may fetch</h2>
      <div class="scroll">
        <table class="coverage">
          <thead>
            <tr>
              <th>Crawlers</th>
              <th class="num">Before ({link(shift.from)})</th>
              <th class="num">After ({link(shift.to)})</th>
              <th>Change</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr class={row.worse ? 'worse' : undefined}>
                <td>
                  <Crawlers set={row.agents} all={watched} />
                </td>
                <td class="num">{coverageSideText(row.before)}</td>
                <td class="num">{coverageSideText(row.after)}</td>
                <td>{row.change}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {note === null ? null : <p class="muted">{note}</p>}
    </section>
  );
};
