import type { FC } from 'hono/jsx';
import { describeVersion } from '../../policy/registry.js';
import { formatBytes } from '../../policy/wording/format.js';
import type { SiteRef } from '../../monitor/views/site.js';
import type { SnapshotView } from '../../monitor/views/snapshot.js';
import { CoverageShiftTable } from './coverage.js';
import { AccessBadge, Layout, Notice, Time, statusText } from './components.js';
import { grouped } from '../../policy/wording/words.js';

/** Lines of the file per page; the rules table stops after this many rules. */
export const LINES_PER_PAGE = 2_000;
const RULES_SHOWN = 500;

/** The file's lines (CR, LF and CRLF all end a line). */
function linesOf(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The first line of the page that holds `line`. */
export function windowStart(line: number): number {
  return Math.floor((Math.max(1, line) - 1) / LINES_PER_PAGE) * LINES_PER_PAGE + 1;
}

/** The file as served, one numbered line per line, a window of it at a time. */
const NumberedLines: FC<{ lines: readonly string[]; from: number }> = ({ lines, from }) => (
  <pre class="lines" aria-label="robots.txt with line numbers">
    {lines.slice(from - 1, from - 1 + LINES_PER_PAGE).map((line, i) => (
      <span class="l" id={`L${from + i}`}>
        <span class="n">{from + i}</span>
        {line}
      </span>
    ))}
  </pre>
);

/** One snapshot: fetch details, lint findings, groups and rules, and the file itself. */
export const SnapshotPageView: FC<{
  site: SiteRef;
  view: SnapshotView;
  /** The first line shown of the file. */
  from: number;
  signedIn: boolean;
  /** archive.url: where an archived snapshot's capture can be seen. */
  archiveUrl: string;
}> = ({ site, view, from, signedIn, archiveUrl }) => {
  const { snapshot: s, model } = view;
  const base = `/sites/${site.id}`;
  const lines = view.text === null ? [] : linesOf(view.text);
  const start = Math.min(windowStart(from), windowStart(Math.max(1, lines.length)));
  const end = Math.min(lines.length, start + LINES_PER_PAGE - 1);
  /** A link to a line: an anchor on this page, or the page that holds it. */
  const lineHref = (line: number) =>
    line >= start && line <= end ? `#L${line}` : `${base}/snapshots/${s.id}?line=${line}#L${line}`;
  let rulesLeft = RULES_SHOWN;
  const groupsShown = (model?.groups ?? []).flatMap((g) => {
    if (rulesLeft <= 0) return [];
    const rules = g.rules.slice(0, rulesLeft);
    rulesLeft -= Math.max(rules.length, 1);
    return [{ group: g, rules }];
  });
  const rulesTotal = (model?.groups ?? []).reduce((n, g) => n + g.rules.length, 0);
  const rulesListed = groupsShown.reduce((n, g) => n + g.rules.length, 0);
  return (
    <Layout title={`${site.origin} snapshot ${s.id}`} signedIn={signedIn}>
      <p>
        <a href={base}>← {site.origin}</a>
      </p>
      <h1>Snapshot {s.id}</h1>
      {s.source === 'archive' ? (
        <Notice>
          Captured by the Internet Archive on <Time date={s.firstSeen} />, before robowatch watched
          the site: what crawlers found then, as the archive recorded it.{' '}
          <a
            href={`${archiveUrl}/web/${s.firstSeen.toISOString().replace(/\D/g, '').slice(0, 14)}/${s.originalUrl ?? s.finalUrl}`}
          >
            See the capture
          </a>
        </Notice>
      ) : null}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <AccessBadge access={s.access} /> {statusText(s)}
          {s.errorDetail ? <span class="muted"> ({s.errorDetail})</span> : null}
        </dd>
        <dt>Seen</dt>
        <dd>
          <Time date={s.firstSeen} /> to <Time date={s.lastSeen} />, by {s.checks}{' '}
          {s.source === 'archive' ? 'capture' : 'check'}
          {s.checks === 1 ? '' : 's'}
        </dd>
        <dt>URL fetched</dt>
        <dd class="mono">{s.finalUrl}</dd>
        <dt>Redirects</dt>
        <dd>
          {s.redirects.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            <ol>
              {s.redirects.map((hop) => (
                <li class="mono">
                  {hop.status} {hop.url} → {hop.location}
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Size</dt>
        <dd>
          {formatBytes(s.size)}
          {s.truncated
            ? `, cut at 500 KiB${s.cut ? ` (${s.cut.complete ? '' : 'at least '}${s.cut.droppedBytes} bytes dropped)` : ''}`
            : ''}
        </dd>
        <dt>SHA-256</dt>
        <dd class="mono">{s.sha256 ?? '–'}</dd>
        {s.registry ? (
          <>
            <dt>AI crawler registry</dt>
            <dd>The verdicts' AI crawlers came from {describeVersion(s.registry)}</dd>
          </>
        ) : null}
        <dt>Compare</dt>
        <dd>
          {s.previousId === null ? (
            <span class="muted">the first snapshot</span>
          ) : (
            <>
              <a href={`${base}/diff?to=${s.id}`}>with the previous snapshot ({s.previousId})</a>
            </>
          )}{' '}
          · <a href={`/tester?site=${site.id}&snapshot=${s.id}`}>open in the tester</a>
        </dd>
      </dl>
      <CoverageShiftTable shift={view.coverage} siteId={site.id} />

      {view.text === null || model === null ? (
        <p class="muted">
          This state has no file: {statusText(s)}.
          {s.lastGoodId !== null && s.lastGoodId !== s.id ? (
            <>
              {' '}
              The last good copy is{' '}
              <a href={`${base}/snapshots/${s.lastGoodId}`}>snapshot {s.lastGoodId}</a>.
            </>
          ) : null}
        </p>
      ) : (
        <>
          <h2>Lint findings</h2>
          {model.lint.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <table>
              <tbody>
                {model.lint.map((f) => (
                  <tr>
                    <td class="num">
                      <a href={lineHref(f.line)}>line {f.line}</a>
                    </td>
                    <td class={`finding-${f.severity}`}>{f.severity}</td>
                    <td>{f.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h2>robots.txt</h2>
          {lines.length > LINES_PER_PAGE ? (
            <p class="pager">
              Lines {grouped(start)} to {grouped(end)} of {grouped(lines.length)}.{' '}
              {start > 1 ? (
                <a href={`${base}/snapshots/${s.id}?line=${start - LINES_PER_PAGE}`}>
                  ← Earlier lines
                </a>
              ) : null}{' '}
              {end < lines.length ? (
                <a href={`${base}/snapshots/${s.id}?line=${end + 1}`}>Later lines →</a>
              ) : null}{' '}
              · <a href={`/api/v1/snapshots/${s.id}/body`}>the whole file</a>
            </p>
          ) : null}
          <NumberedLines lines={lines} from={start} />

          <h2>Groups and rules ({model.profile})</h2>
          {model.groups.length === 0 ? (
            <p class="muted">No groups: nothing is disallowed by this file.</p>
          ) : (
            <>
              {groupsShown.map(({ group: g, rules }) => (
                <table>
                  <thead>
                    <tr>
                      <th colspan={3}>
                        <a href={lineHref(g.line)}>line {g.line}</a>: user-agent{' '}
                        {g.agents.map((a) => a.value).join(', ')}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {rules.length === 0 ? (
                      <tr>
                        <td colspan={3} class="muted">
                          no rules
                        </td>
                      </tr>
                    ) : (
                      rules.map((r) => (
                        <tr>
                          <td class="num">
                            <a href={lineHref(r.line)}>{r.line}</a>
                          </td>
                          <td>{r.directive === 'allow' ? 'Allow' : 'Disallow'}</td>
                          <td class="mono">{r.pattern}</td>
                        </tr>
                      ))
                    )}
                  </tbody>
                </table>
              ))}
              {rulesListed < rulesTotal ? (
                <p class="muted">
                  The first {grouped(rulesListed)} of {grouped(rulesTotal)} rules in{' '}
                  {model.groups.length} groups; the rest are in the file below.
                </p>
              ) : null}
            </>
          )}
          {model.sitemaps.length + model.others.length > 0 ? (
            <>
              <h2>Other lines</h2>
              <ul>
                {model.sitemaps.map((m) => (
                  <li class="mono">
                    line {m.line}: Sitemap: {m.url}
                  </li>
                ))}
                {model.others.map((o) => (
                  <li class="mono">
                    line {o.line}: {o.key}: {o.value}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}

      {s.source === 'archive' ? (
        <>
          <h2>Captures</h2>
          <p class="muted">
            The Internet Archive captured this state {s.checks} time{s.checks === 1 ? '' : 's'}{' '}
            before robowatch watched the site; robowatch never checked it.
          </p>
        </>
      ) : (
        <>
          <h2>Checks</h2>
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th class="num">Duration</th>
                <th>Blip</th>
              </tr>
            </thead>
            <tbody>
              {view.checks.map((c) => (
                <tr>
                  <td>
                    <Time date={c.checkedAt} />
                  </td>
                  <td class="num">{c.durationMs} ms</td>
                  <td>{c.transient ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {s.checks > view.checks.length ? (
            <p class="muted">
              The latest {view.checks.length} of {s.checks} checks.
            </p>
          ) : null}
        </>
      )}
    </Layout>
  );
};
