import type { FC } from 'hono/jsx';
import type { VerdictRun } from '../../policy/history.js';
import type { SiteRef } from '../../monitor/views/site.js';
import { pathOf } from '../../policy/intent.js';
import { Layout, Rich, Time, Verdict, causeText, day } from './components.js';

/** "disallowed since 2026-03-02 by `Disallow: /pr` on line 14". */
export function runSentence(run: VerdictRun): string {
  const what = run.allowed ? 'allowed' : 'disallowed';
  const since = `since ${day(run.since)}`;
  const cause = run.cause;
  if (cause === null) return `${what} ${since}: no rule applies`;
  if (cause.type === 'access') return `${what} ${since}: robots.txt was ${cause.access}`;
  const rule = `${cause.directive === 'allow' ? 'Allow' : 'Disallow'}: ${cause.pattern}`;
  return `${what} ${since} by \`${rule}\` on line ${cause.line}`;
}

/** One watched URL's verdict for one agent, through time: each flip and its cause. */
export const VerdictHistoryPageView: FC<{
  site: SiteRef;
  url: string;
  agent: string;
  runs: readonly VerdictRun[];
  signedIn: boolean;
}> = ({ site, url, agent, runs, signedIn }) => {
  const base = `/sites/${site.id}`;
  const newest = [...runs].reverse();
  return (
    <Layout title={`${pathOf(url)} for ${agent}`} signedIn={signedIn}>
      <p>
        <a href={base}>← {site.origin}</a>
      </p>
      <h1>
        {pathOf(url)} for {agent}
      </h1>
      {newest.length === 0 ? (
        <p class="muted">No verdicts recorded for this URL and agent.</p>
      ) : (
        <>
          <p class="now">
            Now <Rich text={runSentence(newest[0]!)} />.
          </p>
          <table>
            <thead>
              <tr>
                <th>Since</th>
                <th>Until</th>
                <th>Verdict</th>
                <th>Because of</th>
                <th>Snapshot</th>
              </tr>
            </thead>
            <tbody>
              {newest.map((run) => (
                <tr>
                  <td>
                    <Time date={run.since} />
                  </td>
                  <td>
                    {run.until === null ? (
                      <span class="muted">now</span>
                    ) : (
                      <Time date={run.until} />
                    )}
                  </td>
                  <td>
                    <Verdict allowed={run.allowed} />
                  </td>
                  <td class="mono">{causeText(run.cause)}</td>
                  <td>
                    <a href={`${base}/snapshots/${run.fromSnapshotId}`}>{run.fromSnapshotId}</a>
                    {run.cause?.type === 'rule' ? (
                      <>
                        {' '}
                        <a
                          href={`${base}/snapshots/${run.fromSnapshotId}?line=${run.cause.line}#L${run.cause.line}`}
                        >
                          line {run.cause.line}
                        </a>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Layout>
  );
};
