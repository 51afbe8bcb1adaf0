import type { FC } from 'hono/jsx';
import type { CrawlerCounts } from '../../monitor/records.js';
import { CRAWLER_VERDICTS, CRAWLER_VERDICT_TEXT } from '../../monitor/view-crawlers.js';
import type { CrawlerPage, CrawlerVerdict } from '../../monitor/view-crawlers.js';
import { Layout, PageLinks } from './components.js';

const crawlerLink = (agent: string, verdict?: CrawlerVerdict, page?: number) => {
  const params = new URLSearchParams();
  if (verdict !== undefined) params.set('verdict', verdict);
  if (page !== undefined && page > 1) params.set('page', String(page));
  const q = params.toString();
  return `/crawlers/${encodeURIComponent(agent)}${q === '' ? '' : `?${q}`}`;
};

/** Every watched crawler: on how many sites it is blocked, partly blocked, allowed. */
export const CrawlersPageView: FC<{
  crawlers: readonly CrawlerCounts[];
  /** The presets agent lists may name, and the crawlers each stands for. */
  presets: Readonly<Record<string, readonly string[]>>;
  /** The crawlers a site watches when it names none (the configuration's top-level agents). */
  defaults: string;
  signedIn: boolean;
}> = ({ crawlers, presets, defaults, signedIn }) => (
  <Layout title="Crawlers" signedIn={signedIn}>
    <h1>Crawlers</h1>
    <p class="muted">
      Each crawler watched on some site, over every site's robots.txt now: on how many it may fetch
      none of the watched URLs, some, or all. A site whose robots.txt cannot be read counts as
      blocking (Google crawls nothing there).
    </p>
    {crawlers.length === 0 ? (
      <p class="muted">No site has been checked yet.</p>
    ) : (
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Crawler</th>
              <th class="num">Blocked</th>
              <th class="num">Partly blocked</th>
              <th class="num">Allowed</th>
            </tr>
          </thead>
          <tbody>
            {crawlers.map((c) => (
              <tr>
                <td>
                  <a href={crawlerLink(c.agent)}>{c.agent}</a>
                </td>
                <td class="num">
                  <a href={crawlerLink(c.agent, 'blocked')}>{c.blocked}</a>
                </td>
                <td class="num">
                  <a href={crawlerLink(c.agent, 'partly')}>{c.partly}</a>
                </td>
                <td class="num">
                  <a href={crawlerLink(c.agent, 'allowed')}>{c.allowed}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <h2>Presets</h2>
    <p class="muted">
      A site's crawlers (in the configuration file or its form) may name a preset; a site that names
      none watches the configuration's: {defaults}.
    </p>
    <dl class="facts">
      {Object.entries(presets).map(([name, agents]) => (
        <>
          <dt>{name}</dt>
          <dd>{agents.join(', ')}</dd>
        </>
      ))}
    </dl>
  </Layout>
);

/** One crawler on every site, most restrictive first. */
export const CrawlerPageView: FC<{
  view: CrawlerPage;
  verdict: CrawlerVerdict | undefined;
  signedIn: boolean;
}> = ({ view, verdict, signedIn }) => (
  <Layout title={`${view.agent} on every site`} signedIn={signedIn}>
    <p>
      <a href="/crawlers">← Crawlers</a>
    </p>
    <h1>{view.agent} on every site</h1>
    <ul class="standing" aria-label={`Where ${view.agent} may crawl`}>
      {CRAWLER_VERDICTS.filter((v) => view.counts[v] > 0).map((v) => (
        <li>
          {v === verdict ? (
            <strong>
              {view.counts[v]} {CRAWLER_VERDICT_TEXT[v]}
            </strong>
          ) : (
            <a href={crawlerLink(view.agent, v)}>
              {view.counts[v]} {CRAWLER_VERDICT_TEXT[v]}
            </a>
          )}
        </li>
      ))}
      {verdict === undefined ? null : (
        <li>
          <a href={crawlerLink(view.agent)}>every site</a>
        </li>
      )}
    </ul>
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Site</th>
            <th>{view.agent}</th>
            <th class="num">Watched URLs blocked</th>
          </tr>
        </thead>
        <tbody>
          {view.rows.map((r) => (
            <tr>
              <td>
                <a href={`/sites/${r.id}#verdicts`}>{r.site.name ?? r.site.origin}</a>
              </td>
              <td class={`crawler-${r.verdict}`}>{CRAWLER_VERDICT_TEXT[r.verdict]}</td>
              <td class="num">
                {r.disallowed === null ? '–' : `${r.disallowed} of ${r.watched ?? 0}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <PageLinks
      page={view.page}
      pages={view.pages}
      link={(page) => crawlerLink(view.agent, verdict, page)}
      position
    />
  </Layout>
);
