import type { FC } from 'hono/jsx';
import type { BulkLine } from '../bulk.js';
import { MAX_BULK_LINES } from '../bulk.js';
import { Layout, Notice } from './components.js';
import { grouped } from '../../policy/wording/words.js';

/** Adding many sites: a pasted or uploaded list, then what became of each line. */
export const BulkAddPageView: FC<{
  text: string;
  error: string | undefined;
  results: readonly BulkLine[] | undefined;
  signedIn: boolean;
  /** What a line that names no watched URLs watches. */
  watch: readonly string[];
}> = ({ text, error, results, signedIn, watch }) => {
  const added = results?.filter((r) => r.outcome === 'added') ?? [];
  const refused = results?.filter((r) => r.outcome === 'refused') ?? [];
  return (
    <Layout title="Add many sites" signedIn={signedIn}>
      <p>
        <a href="/">← Sites</a>
      </p>
      <h1>Add many sites</h1>
      {error === undefined ? null : <Notice error>{error}</Notice>}
      {results === undefined ? null : (
        <Notice error={refused.length > 0}>
          {added.length} site{added.length === 1 ? '' : 's'} added
          {added.length > 0 ? ' (the daemon checks each within a minute)' : ''}
          {refused.length > 0
            ? `; ${refused.length} line${refused.length === 1 ? '' : 's'} refused (below, with why)`
            : ''}
          .
        </Notice>
      )}
      {results === undefined || results.length === 0 ? null : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Line</th>
                <th>Site</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r) => (
                <tr>
                  <td class="num">{r.line}</td>
                  <td>
                    {r.id === undefined ? r.origin : <a href={`/sites/${r.id}`}>{r.origin}</a>}
                  </td>
                  <td>
                    {r.outcome === 'added' ? (
                      'added'
                    ) : (
                      <span class="finding-error">{r.message}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form method="post" action="/sites/bulk" enctype="multipart/form-data" class="site-form">
        <label>
          Sites{' '}
          <span class="muted">
            (one origin per line, or CSV: origin, name, tags, watched paths; tags and paths
            separated by spaces; at most {grouped(MAX_BULK_LINES)})
          </span>
          <textarea
            name="sites"
            rows={10}
            placeholder={'https://shop.example.com\nblog.example.com,Blog,content eu,/ /feed'}
          >
            {text}
          </textarea>
        </label>
        <label>
          Or upload a file <span class="muted">(.txt or .csv, the same form)</span>
          <input type="file" name="file" accept=".txt,.csv,text/plain,text/csv" />
        </label>
        <p class="muted">
          Each site gets the configuration's crawlers, schedule and recipients; a line that names no
          watched pages watches{' '}
          {watch.map((w, i) => (
            <>
              {i === 0 ? '' : ', '}
              <code>{w}</code>
            </>
          ))}
          . A line that is refused (a bad origin, a site already watched) does not stop the others.
        </p>
        <p>
          <button type="submit">Add these sites</button> <a href="/">Cancel</a>
        </p>
      </form>
    </Layout>
  );
};
