import type { FC } from 'hono/jsx';
import type { DiffView } from '../../monitor/views/diff.js';
import type { SiteRef } from '../../monitor/views/site.js';
import { CauseItem } from './causes.js';
import { CoverageShiftTable } from './coverage.js';
import { Layout, Notice, Time } from './components.js';
import { grouped } from '../../policy/wording/words.js';

/** Causes per page of a diff; a file rewritten wholesale has hundreds. */
export const CAUSES_PER_PAGE = 50;
/** Lines of the text diff shown; past them, the two files are a link away. */
export const PATCH_LINES = 2_000;

/** Two snapshots compared: why they differ, then the text diff. */
export const DiffPageView: FC<{
  site: SiteRef;
  view: DiffView | { readonly missing: string };
  /** Which page of causes (1-based). */
  page: number;
  signedIn: boolean;
}> = ({ site, view, page, signedIn }) => {
  const base = `/sites/${site.id}`;
  const agents = (site.config?.agents ?? []).map((a) => a.token);
  if ('missing' in view)
    return (
      <Layout title={`${site.origin} diff`} signedIn={signedIn}>
        <p>
          <a href={base}>← {site.origin}</a>
        </p>
        <h1>Diff</h1>
        <Notice>Nothing to compare: {view.missing}.</Notice>
      </Layout>
    );
  const pages = Math.max(1, Math.ceil(view.causes.length / CAUSES_PER_PAGE));
  const current = Math.min(Math.max(1, page), pages);
  const causes = view.causes.slice((current - 1) * CAUSES_PER_PAGE, current * CAUSES_PER_PAGE);
  const pageLink = (n: number) =>
    `${base}/diff?${new URLSearchParams({ from: String(view.from.id), to: String(view.to.id), page: String(n) }).toString()}`;
  const patch = view.patch.slice(0, PATCH_LINES);
  return (
    <Layout title={`${site.origin} diff`} signedIn={signedIn}>
      <p>
        <a href={base}>← {site.origin}</a>
      </p>
      <h1>
        Snapshot <a href={`${base}/snapshots/${view.from.id}`}>{view.from.id}</a> →{' '}
        <a href={`${base}/snapshots/${view.to.id}`}>{view.to.id}</a>
      </h1>
      <p class="muted">
        <Time date={view.from.firstSeen} /> → <Time date={view.to.firstSeen} />
      </p>
      <form method="get" action={`${base}/diff`}>
        <label>
          From <input type="text" name="from" value={String(view.from.id)} size={8} />
        </label>{' '}
        <label>
          To <input type="text" name="to" value={String(view.to.id)} size={8} />
        </label>{' '}
        <button type="submit">Compare</button>
      </form>
      <h2>What changes</h2>
      {view.causes.length === 0 ? (
        <p class="muted">No verdict, rule, sitemap or status changes.</p>
      ) : (
        <>
          {pages > 1 ? (
            <p class="muted">
              {view.causes.length} changes; {(current - 1) * CAUSES_PER_PAGE + 1} to{' '}
              {(current - 1) * CAUSES_PER_PAGE + causes.length} shown.
            </p>
          ) : null}
          <ul class="causes">
            {causes.map((cause) => (
              <CauseItem
                cause={cause}
                siteId={site.id}
                agents={agents}
                at={view.to.firstSeen}
                full
              />
            ))}
          </ul>
          {pages > 1 ? (
            <p class="pager">
              {current > 1 ? <a href={pageLink(current - 1)}>← Previous changes</a> : null}{' '}
              {current < pages ? <a href={pageLink(current + 1)}>More changes →</a> : null}
            </p>
          ) : null}
        </>
      )}
      <CoverageShiftTable shift={view.coverage} siteId={site.id} />
      <h2>robots.txt</h2>
      {view.patch.length === 0 ? (
        <p class="muted">The two files are the same.</p>
      ) : (
        <>
          <pre class="diff" aria-label="unified diff">
            {patch.map((l) => (
              <span class={l.kind}>{l.text}</span>
            ))}
          </pre>
          {view.patch.length > patch.length ? (
            <Notice>
              {grouped(view.patch.length - patch.length)} more lines of the diff are not shown. The
              files:{' '}
              {view.from.sha256 ? (
                <a href={`/api/v1/snapshots/${view.from.id}/body`}>snapshot {view.from.id}</a>
              ) : null}
              {view.from.sha256 && view.to.sha256 ? ', ' : ''}
              {view.to.sha256 ? (
                <a href={`/api/v1/snapshots/${view.to.id}/body`}>snapshot {view.to.id}</a>
              ) : null}
              .
            </Notice>
          ) : null}
        </>
      )}
    </Layout>
  );
};
