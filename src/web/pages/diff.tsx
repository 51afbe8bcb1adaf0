import type { FC } from 'hono/jsx';
import { formatEvent } from '../../policy/format.js';
import type { DiffView } from '../../monitor/view-diff.js';
import type { SiteRef } from '../../monitor/view-site.js';
import { Layout, Notice, Time } from './components.js';

/** Two snapshots compared: the changes they make, then the text diff. */
export const DiffPageView: FC<{
  site: SiteRef;
  view: DiffView | { readonly missing: string };
  signedIn: boolean;
}> = ({ site, view, signedIn }) => {
  const base = `/sites/${site.id}`;
  return (
    <Layout title={`${site.origin} diff`} signedIn={signedIn}>
      <p>
        <a href={base}>← {site.origin}</a>
      </p>
      {'missing' in view ? (
        <>
          <h1>Diff</h1>
          <Notice>Nothing to compare: {view.missing}.</Notice>
        </>
      ) : (
        <>
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
          {view.events.length === 0 ? (
            <p class="muted">No verdict, rule, sitemap or status changes.</p>
          ) : (
            <ul class="mono">
              {view.events
                .flatMap((e) => formatEvent(e))
                .map((line) => (
                  <li>{line}</li>
                ))}
            </ul>
          )}
          <h2>robots.txt</h2>
          {view.patch.length === 0 ? (
            <p class="muted">The two files are the same.</p>
          ) : (
            <pre class="diff" aria-label="unified diff">
              {view.patch.map((l) => (
                <span class={l.kind}>{l.text}</span>
              ))}
            </pre>
          )}
        </>
      )}
    </Layout>
  );
};
