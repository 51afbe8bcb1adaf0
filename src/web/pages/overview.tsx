import type { FC } from 'hono/jsx';
import { headline } from '../../policy/format.js';
import type { OverviewPage } from '../../monitor/view-overview.js';
import { STRIP_DAYS } from '../../monitor/view-overview.js';
import { AccessBadge, Layout, Time } from './components.js';
import { DayStrip } from './svg.js';

/** Every site: its access now, its last change, what is disallowed, and 90 days of states. */
export const OverviewPageView: FC<{ view: OverviewPage; query: string; signedIn: boolean }> = ({
  view,
  query,
  signedIn,
}) => (
  <Layout title="Sites" signedIn={signedIn}>
    <h1>Sites</h1>
    <form method="get" action="/">
      <input
        type="text"
        name="q"
        value={query}
        placeholder="Filter by origin"
        aria-label="Filter sites"
      />
    </form>
    <p class="muted">
      {view.total} site{view.total === 1 ? '' : 's'}
      {query === '' ? '' : ` matching “${query}”`}
      {view.pages > 1 ? `, page ${view.page} of ${view.pages}` : ''}.
    </p>
    <table>
      <thead>
        <tr>
          <th>Site</th>
          <th>Now</th>
          <th>Last change</th>
          <th>Disallowed watched URLs</th>
          <th>Last {STRIP_DAYS} days</th>
        </tr>
      </thead>
      <tbody>
        {view.rows.map((row) => {
          const blocked = row.overview.disallowed.filter((d) => d.disallowed > 0);
          return (
            <tr>
              <td>
                <a href={`/sites/${row.id}`}>{row.site.origin}</a>
              </td>
              <td>
                <AccessBadge access={row.access} />
              </td>
              <td>
                {row.lastChange === null ? (
                  <span class="muted">none</span>
                ) : (
                  <>
                    <Time date={row.lastChange.at} />
                    <br />
                    <span class="muted">
                      {headline(row.lastChange.event)}
                      {row.lastChange.more > 0 ? ` (and ${row.lastChange.more} more)` : ''}
                    </span>
                  </>
                )}
              </td>
              <td>
                {row.overview.current === null ? (
                  <span class="muted">not checked yet</span>
                ) : blocked.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  blocked.map((d) => (
                    <div>
                      {d.agent}: {d.disallowed} of {d.watched}
                    </div>
                  ))
                )}
              </td>
              <td>
                <DayStrip
                  days={row.days}
                  label={`${row.site.origin}: the last ${STRIP_DAYS} days`}
                />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
    {view.pages > 1 ? (
      <p class="pager">
        {view.page > 1 ? (
          <a
            href={`/?${new URLSearchParams({ q: query, page: String(view.page - 1) }).toString()}`}
          >
            ← Previous
          </a>
        ) : null}{' '}
        {view.page < view.pages ? (
          <a
            href={`/?${new URLSearchParams({ q: query, page: String(view.page + 1) }).toString()}`}
          >
            Next →
          </a>
        ) : null}
      </p>
    ) : null}
  </Layout>
);
