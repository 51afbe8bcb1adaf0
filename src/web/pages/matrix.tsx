/**
 * The verdict matrix of a site's page: each watched URL for each crawler, folded when
 * wide, its first column kept in view; the cells that differ from the intent marked, each
 * with "accept" where the intent may be changed here.
 */
import type { FC } from 'hono/jsx';
import type { SiteView } from '../../monitor/views/site.js';
import { pathOf } from '../../policy/intent.js';
import { Verdict, causeText } from './components.js';
import { AcceptButton } from './intent.js';
import { UsageNote } from './tester.js';

export const VerdictMatrixSection: FC<{
  view: SiteView;
  /** The crawler filter, as typed. */
  crawlers: string;
  blockingOnly: boolean;
  /** Whether this request may change the site (signed in with the token). */
  canEdit: boolean;
}> = ({ view, crawlers, blockingOnly, canEdit }) => {
  const { site } = view;
  const base = `/sites/${site.id}`;
  // Folded columns hold several crawlers each.
  const shownCrawlers =
    view.matrix.members?.reduce((n, m) => n + m.length, 0) ?? view.matrix.agents.length;
  // Cells that differ from the intent are marked; where it may be changed here, each cell,
  // row and column can be accepted as intended.
  const differs = (url: string, column: number, allowed: boolean) => {
    const members = view.matrix.members?.[column] ?? [view.matrix.agents[column]!];
    return members.some((agent) => {
      const expected = view.intent?.expected(url, agent) ?? null;
      return expected !== null && (expected === 'allowed') !== allowed;
    });
  };
  const accept =
    canEdit &&
    view.intent !== undefined &&
    view.intent.intent.from !== 'site-file' &&
    view.intent.judgement?.state === 'not-as-intended';
  return (
    <>
      <h2 id="verdicts">Watched pages now</h2>
      <form method="get" action={base} class="filter">
        <label>
          Crawlers{' '}
          <input
            type="text"
            name="crawlers"
            value={crawlers}
            placeholder="e.g. Googlebot, GPT"
            aria-label="Show only crawlers whose name contains"
          />
        </label>{' '}
        <label>
          <input type="checkbox" name="blocking" value="1" checked={blockingOnly} /> only crawlers
          blocked from a watched page
        </label>{' '}
        <button type="submit">Show</button>
        {shownCrawlers < view.matrixAgents ? (
          <span class="muted">
            {' '}
            {shownCrawlers} of {view.matrixAgents} crawlers shown ·{' '}
            <a href={`${base}#verdicts`}>show all</a>
          </span>
        ) : null}
      </form>
      {view.matrix.members !== undefined ? (
        <p class="muted">
          {shownCrawlers} crawlers in {view.matrix.members.length} columns: crawlers with the same
          verdicts, for the same reasons, share one (its heading lists them).
        </p>
      ) : null}
      {view.matrix.rows.length === 0 ? (
        <p class="muted">No verdicts yet.</p>
      ) : view.matrix.agents.length === 0 ? (
        <p class="muted">No crawler matches this filter.</p>
      ) : (
        <>
          {view.matrix.agents.length > 6 ? (
            <p class="muted scroll-hint">
              {view.matrix.agents.length} columns: scroll sideways for more crawlers; the URL column
              stays in view.
            </p>
          ) : null}
          <div
            class="scroll"
            role="region"
            aria-label="Verdicts by watched page and crawler"
            tabindex={0}
          >
            <table class="matrix">
              <thead>
                <tr>
                  <th>URL</th>
                  {view.matrix.agents.map((a, i) => {
                    const members = view.matrix.members?.[i] ?? [a];
                    const column = accept ? (
                      <AcceptButton
                        siteId={site.id}
                        agent={a}
                        label="accept column"
                        title={`Take what ${a} may fetch now as intended`}
                      />
                    ) : null;
                    return members.length === 1 ? (
                      <th>
                        {a}
                        {column}
                      </th>
                    ) : (
                      <th title={members.join(', ')}>
                        {a} <span class="muted">and {members.length - 1} more</span>
                        {column}
                      </th>
                    );
                  })}
                </tr>
              </thead>
              <tbody>
                {view.matrix.rows.map((row) => (
                  <tr>
                    <th class="mono" scope="row">
                      <span class="path">{pathOf(row.url)}</span>
                      {accept ? (
                        <AcceptButton
                          siteId={site.id}
                          url={row.url}
                          label="accept row"
                          title="Take what every crawler may fetch of this URL now as intended"
                        />
                      ) : null}
                    </th>
                    {row.cells.map((cell, i) =>
                      cell === undefined ? (
                        <td class="muted">–</td>
                      ) : (
                        <td
                          class={differs(row.url, i, cell.allowed) ? 'differs' : undefined}
                          title={
                            differs(row.url, i, cell.allowed)
                              ? `not as intended: meant to be ${cell.allowed ? 'kept out' : 'crawled'}`
                              : undefined
                          }
                        >
                          <a
                            href={`${base}/verdicts?${new URLSearchParams({ url: row.url, agent: view.matrix.agents[i]! }).toString()}`}
                          >
                            <Verdict allowed={cell.allowed} />
                          </a>
                          <br />
                          <span class="muted mono">{causeText(cell.cause)}</span>
                          <UsageNote
                            preferences={view.matrixUsage.get(
                              `${row.url}\n${view.matrix.agents[i]!}`,
                            )}
                          />
                          {accept && differs(row.url, i, cell.allowed) ? (
                            <AcceptButton
                              siteId={site.id}
                              url={row.url}
                              agent={view.matrix.agents[i]}
                              label="accept"
                              title="Take this verdict as intended"
                            />
                          ) : null}
                        </td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
};
