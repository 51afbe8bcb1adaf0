import type { FC } from 'hono/jsx';
import { formatBytes, formatEvent } from '../../policy/format.js';
import { CHANGE_EVENT_TYPES } from '../../policy/events.js';
import type { ChangeEvent } from '../../policy/events.js';
import type { SiteView } from '../../monitor/view-site.js';
import { profileOf } from '../../monitor/view-site.js';
import {
  AccessBadge,
  Layout,
  Notice,
  Pager,
  Time,
  Verdict,
  causeText,
  pathOf,
  statusText,
} from './components.js';
import { Timeline } from './svg.js';

export interface SitePageProps {
  readonly view: SiteView;
  readonly types: readonly ChangeEvent['type'][];
  /** Whether this request may check the site now (the POST needs the token). */
  readonly canCheck: boolean;
  /** The outcome of a check just made from this page, if any. */
  readonly checked: string | undefined;
  readonly signedIn: boolean;
}

/** A site: where it stands, its timeline, its changes, the verdict matrix and sitemaps. */
export const SitePageView: FC<SitePageProps> = ({ view, types, canCheck, checked, signedIn }) => {
  const { site, current } = view;
  const base = `/sites/${site.id}`;
  return (
    <Layout title={site.origin} signedIn={signedIn}>
      <h1>{site.origin}</h1>
      {site.config === undefined ? (
        <Notice>This site is no longer in the configuration; its history is kept.</Notice>
      ) : null}
      {checked === undefined ? null : <Notice>Checked now: {checked}</Notice>}
      <dl class="facts">
        <dt>Now</dt>
        <dd>
          {current === undefined ? (
            <AccessBadge access="none" />
          ) : (
            <>
              <AccessBadge access={current.access} /> {statusText(current)}
              {current.stale ? ' (unreachable for 30 days: the last good copy applies)' : ''}
            </>
          )}
        </dd>
        <dt>Last checked</dt>
        <dd>
          {current === undefined ? (
            <span class="muted">never</span>
          ) : (
            <Time date={current.lastSeen} />
          )}
        </dd>
        <dt>Profile</dt>
        <dd>{profileOf(site)}</dd>
        <dt>Snapshots</dt>
        <dd>{view.segments.length}</dd>
      </dl>
      <p>
        <form class="inline" method="post" action={`${base}/check`}>
          <button type="submit" disabled={!canCheck || site.config === undefined}>
            Check now
          </button>
        </form>{' '}
        {canCheck ? null : (
          <span class="muted">
            Checking from the web needs the access token (web.token) and signing in.
          </span>
        )}
        {' · '}
        <a href={`/tester?site=${site.id}`}>Test a new robots.txt</a>
        {view.segments.length > 1 ? (
          <>
            {' · '}
            <a href={`${base}/diff`}>Latest diff</a>
          </>
        ) : null}
      </p>

      <h2>Timeline</h2>
      <Timeline siteId={site.id} segments={view.segments} />

      <h2>Watched URLs now</h2>
      {view.matrix.rows.length === 0 ? (
        <p class="muted">No verdicts yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>URL</th>
              {view.matrix.agents.map((a) => (
                <th>{a}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {view.matrix.rows.map((row) => (
              <tr>
                <td class="mono">{pathOf(row.url)}</td>
                {row.cells.map((cell, i) =>
                  cell === undefined ? (
                    <td class="muted">–</td>
                  ) : (
                    <td>
                      <a
                        href={`${base}/verdicts?${new URLSearchParams({ url: row.url, agent: view.matrix.agents[i]! }).toString()}`}
                      >
                        <Verdict allowed={cell.allowed} />
                      </a>
                      <br />
                      <span class="muted mono">{causeText(cell.cause)}</span>
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Changes</h2>
      <form method="get" action={base}>
        {CHANGE_EVENT_TYPES.map((t) => (
          <label>
            <input type="checkbox" name="type" value={t} checked={types.includes(t)} /> {t}{' '}
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      {view.events.length === 0 ? (
        <p class="muted">No change events{types.length > 0 ? ' of these types' : ''}.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>What</th>
              <th>Snapshot</th>
            </tr>
          </thead>
          <tbody>
            {view.events.map((e) => (
              <tr>
                <td>
                  <Time date={e.at} />
                </td>
                <td class="mono">
                  {formatEvent(e.event).map((line) => (
                    <div>{line}</div>
                  ))}
                </td>
                <td>
                  <a href={`${base}/snapshots/${e.snapshotId}`}>{e.snapshotId}</a>{' '}
                  <a href={`${base}/diff?to=${e.snapshotId}`}>diff</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager base={base} params={{}} before={view.olderEvents} />

      <h2>Sitemaps</h2>
      {view.sitemaps.length === 0 ? (
        <p class="muted">None declared.</p>
      ) : (
        <ul>
          {view.sitemaps.map((s) => (
            <li class="mono">{s}</li>
          ))}
        </ul>
      )}

      <h2>Snapshots</h2>
      <table>
        <thead>
          <tr>
            <th class="num">Id</th>
            <th>First seen</th>
            <th>Last seen</th>
            <th>Status</th>
            <th class="num">Size</th>
            <th class="num">Checks</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {view.snapshots.map((s) => (
            <tr>
              <td class="num">
                <a href={`${base}/snapshots/${s.id}`}>{s.id}</a>
              </td>
              <td>
                <Time date={s.firstSeen} />
              </td>
              <td>
                <Time date={s.lastSeen} />
              </td>
              <td>
                <AccessBadge access={s.access} /> {statusText(s)}
              </td>
              <td class="num">
                {formatBytes(s.size)}
                {s.truncated ? ' (cut)' : ''}
              </td>
              <td class="num">{s.checks}</td>
              <td>{s.previousId === null ? null : <a href={`${base}/diff?to=${s.id}`}>diff</a>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
};
