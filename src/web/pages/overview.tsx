import type { FC } from 'hono/jsx';
import type { OverviewPage, TriageState } from '../../monitor/views/overview.js';
import { TRIAGE_STATES, STATE_COUNT_TEXT, STRIP_DAYS } from '../../monitor/views/overview.js';
import {
  ConditionBadge,
  IntentBadge,
  Layout,
  NextCheck,
  Notice,
  PageLinks,
  Rich,
  Time,
} from './components.js';
import { DayStrip } from './svg.js';
import type { FailingChannel } from '../../monitor/records.js';
import { failingText } from '../../monitor/views/notifications.js';
import { moreChanges } from '../../policy/wording/words.js';
import type { BlockedCrawlers } from '../../policy/intent.js';
import { namedCrawlers } from '../../policy/incidents.js';

/** What each state is called in the filter. */
const STATE_LABEL: Record<TriageState, string> = {
  'cannot-check': 'robowatch cannot check (private address)',
  down: 'Down (robots.txt unreadable)',
  'not-robots': 'Not a usable robots.txt',
  'not-as-intended': 'Not as intended',
  'new-blocks': 'Newly blocked pages this week',
  blocking: 'A crawler blocked from a watched page',
  'all-allowed': 'No robots.txt',
  'as-intended': 'As intended',
  ok: 'Fine',
  unchecked: 'Not checked yet',
  paused: 'Paused',
};

/**
 * Every site: where it stands, its last change in words, how many crawlers it blocks,
 * when it is next checked, and 90 days of states.
 */
export const OverviewPageView: FC<{
  view: OverviewPage;
  query: string;
  /** The tag the list is filtered by, if any. */
  tag: string | undefined;
  /** The state the list is filtered by, if any. */
  state: TriageState | undefined;
  /** Problems first, or as listed (the file's order, then sites added). */
  sort: 'problems' | 'listed';
  /** Notification channels failing now. */
  failing: readonly FailingChannel[];
  /** What a feed link carries so that a feed reader may read it ("?key=…" with a token). */
  feedQuery: string;
  signedIn: boolean;
  now: Date;
  /** Whether this request may add sites (the token is set and it is signed in). */
  canEdit: boolean;
  /** Sites paused now, by id. */
  paused: ReadonlySet<number>;
  /** The origin of a site just removed from the web, if any. */
  removed: string | undefined;
  /** What was made in the web and is not applied (the file's settings make it invalid). */
  problems: readonly string[];
}> = ({
  view,
  query,
  tag,
  state,
  sort,
  failing,
  feedQuery,
  signedIn,
  now,
  canEdit,
  paused,
  removed,
  problems,
}) => {
  const link = (change: { state?: TriageState | undefined; sort?: string; page?: number }) => {
    const params = new URLSearchParams();
    if (query !== '') params.set('q', query);
    if (tag !== undefined) params.set('tag', tag);
    const s = 'state' in change ? change.state : state;
    if (s !== undefined) params.set('state', s);
    const order = change.sort ?? sort;
    if (order !== 'problems') params.set('sort', order);
    if (change.page !== undefined && change.page > 1) params.set('page', String(change.page));
    const text = params.toString();
    return text === '' ? '/' : `/?${text}`;
  };
  const pageLink = (page: number) => link({ page });
  const counts = view.counts;
  // The summary leads with the sites against their intent, then the other problems; a
  // crawler blocked on purpose is not one (the filter still finds such sites).
  const shown =
    counts === null
      ? []
      : TRIAGE_STATES.filter(
          (s) => counts[s] > 0 && s !== 'ok' && s !== 'blocking' && s !== 'as-intended',
        );
  const judged = counts === null ? 0 : counts['as-intended'];
  return (
    <Layout title="Sites" signedIn={signedIn} feed={`/feed.atom${feedQuery}`}>
      <h1>Sites</h1>
      {removed === undefined ? null : (
        <Notice>
          {removed} is no longer watched. Its history is kept: adding it again carries it on.
        </Notice>
      )}
      {failing.map((f) => (
        <Notice error>
          {failingText(f)} (<a href="/notifications">notifications</a>)
        </Notice>
      ))}
      {problems.map((p) => (
        <Notice error>{p}</Notice>
      ))}
      <p>
        {canEdit ? (
          <>
            <a href="/sites/new">Add a site</a> · <a href="/sites/bulk">Add many</a>
          </>
        ) : (
          <span class="muted">
            {signedIn
              ? 'You may read: adding and editing sites needs an editor’s or an admin’s role.'
              : 'Read-only: adding and editing sites from the web need the access token (web.token in the configuration), or a user, and signing in.'}
          </span>
        )}{' '}
        · <a href={`/feed.atom${feedQuery}`}>Feed of changes (Atom)</a>
      </p>
      {counts === null ? null : (
        <ul class="standing" aria-label="Where the sites stand">
          {judged > 0 && shown.length > 0 ? (
            <li class="standing-as-intended">
              <a href={link({ state: 'as-intended', page: 1 })}>
                {STATE_COUNT_TEXT['as-intended'](judged)}
              </a>
            </li>
          ) : null}
          {shown.length === 0 ? (
            <li>
              {counts.ok === 0
                ? 'No site is watched yet.'
                : judged > 0
                  ? 'Every site is as its owner intends.'
                  : 'Every site is fine.'}
            </li>
          ) : (
            shown.map((s) => (
              <li class={`standing-${s}`}>
                {s === state ? (
                  <strong>{STATE_COUNT_TEXT[s](counts[s])}</strong>
                ) : (
                  <a href={link({ state: s, page: 1 })}>{STATE_COUNT_TEXT[s](counts[s])}</a>
                )}
              </li>
            ))
          )}
        </ul>
      )}
      <form method="get" action="/" class="filters">
        <input
          type="text"
          name="q"
          value={query}
          placeholder="Filter by origin or name"
          aria-label="Filter sites"
        />
        {tag === undefined ? null : <input type="hidden" name="tag" value={tag} />}
        <select name="state" aria-label="Only sites that are">
          <option value="" selected={state === undefined}>
            Any state
          </option>
          {TRIAGE_STATES.map((s) => (
            <option value={s} selected={s === state}>
              {STATE_LABEL[s]}
            </option>
          ))}
        </select>
        <select name="sort" aria-label="Order">
          <option value="problems" selected={sort === 'problems'}>
            Problems first
          </option>
          <option value="listed" selected={sort === 'listed'}>
            As listed
          </option>
        </select>
        <button type="submit">Show</button>
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
        {state === undefined ? null : (
          <>
            {' '}
            that are “{STATE_LABEL[state].toLowerCase()}” (
            <a href={link({ state: undefined, page: 1 })}>any state</a>)
          </>
        )}
        {view.pages > 1 ? `, page ${view.page} of ${view.pages}` : ''}.
      </p>
      <div class="scroll">
        <table class="overview">
          <thead>
            <tr>
              <th>Site</th>
              <th>Against intent</th>
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
                  <IntentBadge intent={row.overview.intent} href={`/sites/${row.id}#intent`} />
                  {row.overview.intent?.state === 'not-as-intended' &&
                  row.overview.intent.lead !== null ? (
                    <div class="muted">{row.overview.intent.lead}</div>
                  ) : null}
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
                        <span class="muted">{moreChanges(row.lastChange.more)}</span>
                      ) : null}
                    </>
                  )}
                </td>
                <td>
                  {row.blocking === null ? (
                    <span class="muted">not checked yet</span>
                  ) : row.blocking.crawlers === 0 ? (
                    <span class="muted">no crawler is blocked from a watched page</span>
                  ) : (
                    <>
                      <a href={`/sites/${row.id}#verdicts`}>
                        {row.blocking.crawlers} of {row.blocking.of} crawler
                        {row.blocking.of === 1 ? '' : 's'} blocked from a watched page
                      </a>
                      {row.blocking.intent === undefined ? null : (
                        <BlockedAgainstIntent blocked={row.blocking.intent} />
                      )}
                    </>
                  )}
                </td>
                <td>
                  {paused.has(row.id) ? (
                    <span class="muted">none: paused</span>
                  ) : (
                    <NextCheck
                      at={row.nextCheckAt}
                      now={now}
                      checked={row.overview.current !== null}
                    />
                  )}
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
      <PageLinks page={view.page} pages={view.pages} link={pageLink} />
    </Layout>
  );
};

/**
 * Under "2 of 5 crawlers blocked from a watched page": whether the owner means those
 * blocks ("all as intended"), or which crawlers are blocked against the intent or where
 * it says nothing, so an intended block does not read as a problem.
 */
const BlockedAgainstIntent: FC<{ blocked: BlockedCrawlers }> = ({ blocked }) => {
  const { intended, unjudged, against } = blocked;
  if (against.length === 0 && unjudged.length === 0)
    return <div class="muted">{intended.length === 1 ? 'as intended' : 'all as intended'}</div>;
  const parts = [
    ...(against.length === 0 ? [] : [`${namedCrawlers(against)} against the intent`]),
    ...(unjudged.length === 0 ? [] : [`${namedCrawlers(unjudged)} where the intent says nothing`]),
    ...(intended.length === 0 ? [] : [`${intended.length} as intended`]),
  ];
  return <div class={against.length === 0 ? 'muted' : undefined}>{parts.join('; ')}</div>;
};
