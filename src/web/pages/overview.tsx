import type { FC } from 'hono/jsx';
import type { OverviewPage } from '../../monitor/view-overview.js';
import { STRIP_DAYS } from '../../monitor/view-overview.js';
import { ConditionBadge, Layout, NextCheck, Notice, Rich, Time } from './components.js';
import { DayStrip } from './svg.js';

/**
 * Every site: where it stands, its last change in words, how many crawlers it blocks,
 * when it is next checked, and 90 days of states.
 */
export const OverviewPageView: FC<{
  view: OverviewPage;
  query: string;
  /** The tag the list is filtered by, if any. */
  tag: string | undefined;
  signedIn: boolean;
  now: Date;
  /** Whether this request may add sites (the token is set and it is signed in). */
  canEdit: boolean;
  /** Sites paused now, by id. */
  paused: ReadonlySet<number>;
  /** The origin of a site just removed from the web, if any. */
  removed: string | undefined;
}> = ({ view, query, tag, signedIn, now, canEdit, paused, removed }) => {
  const pageLink = (page: number) =>
    `/?${new URLSearchParams({ q: query, ...(tag === undefined ? {} : { tag }), page: String(page) }).toString()}`;
  return (
    <Layout title="Sites" signedIn={signedIn}>
      <h1>Sites</h1>
      {removed === undefined ? null : (
        <Notice>
          {removed} is no longer watched. Its history is kept: adding it again carries it on.
        </Notice>
      )}
      <p>
        {canEdit ? (
          <a href="/sites/new">Add a site</a>
        ) : (
          <span class="muted">
            Read-only: adding and editing sites from the web need the access token (web.token in the
            configuration) and signing in.
          </span>
        )}
      </p>
      <form method="get" action="/">
        <input
          type="text"
          name="q"
          value={query}
          placeholder="Filter by origin or name"
          aria-label="Filter sites"
        />
        {tag === undefined ? null : <input type="hidden" name="tag" value={tag} />}
      </form>
      <p class="muted">
        {view.total} site{view.total === 1 ? '' : 's'}
        {query === '' ? '' : ` matching “${query}”`}
        {tag === undefined ? null : (
          <>
            {' '}
            tagged <span class="tag">{tag}</span> (
            <a href={`/?${new URLSearchParams({ q: query }).toString()}`}>all tags</a>)
          </>
        )}
        {view.pages > 1 ? `, page ${view.page} of ${view.pages}` : ''}.
      </p>
      <div class="scroll">
        <table class="overview">
          <thead>
            <tr>
              <th>Site</th>
              <th>Now</th>
              <th>Last change</th>
              <th>Watched pages</th>
              <th>Next check</th>
              <th>Last {STRIP_DAYS} days</th>
            </tr>
          </thead>
          <tbody>
            {view.rows.map((row) => (
              <tr>
                <td>
                  <a href={`/sites/${row.id}`}>{row.site.name ?? row.site.origin}</a>
                  {row.site.name === null ? null : (
                    <div class="muted origin">{row.site.origin}</div>
                  )}
                  {row.site.tags.length === 0 ? null : (
                    <div class="tags">
                      {row.site.tags.map((t) => (
                        <a class="tag" href={`/?${new URLSearchParams({ tag: t }).toString()}`}>
                          {t}
                        </a>
                      ))}
                    </div>
                  )}
                </td>
                <td>
                  <ConditionBadge condition={row.condition} />
                  {paused.has(row.id) ? <div class="muted">paused</div> : null}
                </td>
                <td>
                  {row.lastChange === null ? (
                    <span class="muted">none</span>
                  ) : (
                    <>
                      <Time date={row.lastChange.at} />
                      <br />
                      <a
                        class="change"
                        href={`/sites/${row.id}/diff?to=${row.lastChange.snapshotId}`}
                      >
                        <Rich text={row.lastChange.headline} />
                      </a>
                      {row.lastChange.more > 0 ? (
                        <span class="muted"> (and {row.lastChange.more} more)</span>
                      ) : null}
                    </>
                  )}
                </td>
                <td>
                  {row.blocking === null ? (
                    <span class="muted">not checked yet</span>
                  ) : row.blocking.crawlers === 0 ? (
                    <span class="muted">no crawler blocks a watched URL</span>
                  ) : (
                    <a href={`/sites/${row.id}#verdicts`}>
                      {row.blocking.crawlers} of {row.blocking.of} crawler
                      {row.blocking.of === 1 ? '' : 's'} block
                      {row.blocking.crawlers === 1 ? 's' : ''} a watched URL
                    </a>
                  )}
                </td>
                <td>
                  <NextCheck
                    at={row.nextCheckAt}
                    now={now}
                    checked={row.overview.current !== null}
                  />
                </td>
                <td>
                  <DayStrip
                    days={row.days}
                    label={`${row.site.origin}: the last ${STRIP_DAYS} days`}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {view.pages > 1 ? (
        <p class="pager">
          {view.page > 1 ? <a href={pageLink(view.page - 1)}>← Previous</a> : null}{' '}
          {view.page < view.pages ? <a href={pageLink(view.page + 1)}>Next →</a> : null}
        </p>
      ) : null}
    </Layout>
  );
};
