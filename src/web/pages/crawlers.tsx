import type { FC } from 'hono/jsx';
import type { CrawlerCounts } from '../../monitor/records.js';
import type { PresetEntry } from '../../monitor/sites/entries.js';
import { CRAWLER_VERDICTS, CRAWLER_VERDICT_TEXT } from '../../monitor/views/crawlers.js';
import type { CrawlerGroupRow, CrawlerPage, CrawlerVerdict } from '../../monitor/views/crawlers.js';
import { Layout, Notice, PageLinks } from './components.js';

const SOURCE_TEXT: Record<PresetEntry['source'], string> = {
  'built-in': 'built in',
  file: 'configuration file',
  api: 'made here',
};

/** Past this many crawlers a preset's list is folded (@ai is 160). */
const PRESET_SHOWN = 20;

/** A preset's form as typed: its name and its crawlers (lines, commas or spaces between). */
export interface PresetForm {
  readonly name: string;
  readonly agents: string;
}

/** The crawlers a preset form lists. */
export function presetAgentsOf(form: PresetForm): string[] {
  return form.agents.split(/[\s,]+/).filter((t) => t !== '');
}

const crawlerLink = (agent: string, verdict?: CrawlerVerdict, page?: number) => {
  const params = new URLSearchParams();
  if (verdict !== undefined) params.set('verdict', verdict);
  if (page !== undefined && page > 1) params.set('page', String(page));
  const q = params.toString();
  return `/crawlers/${encodeURIComponent(agent)}${q === '' ? '' : `?${q}`}`;
};

/** What the `*` of a watched crawler list stands for. */
const STAR = 'any crawler without a group of its own';

/**
 * Every watched crawler: on how many sites it is blocked, partly blocked, allowed; and
 * the presets, with forms to make, change and delete those made here.
 */
export const CrawlersPageView: FC<{
  crawlers: readonly CrawlerCounts[];
  /** The AI registry's purposes and operators across sites. */
  groups: readonly CrawlerGroupRow[];
  /** The registry in use, in a phrase, and where it is refreshed from. */
  registry: { readonly version: string; readonly url: string | null };
  /** The presets agent lists may name, where each is defined and who uses it. */
  presets: readonly PresetEntry[];
  /** The crawlers a site watches when it names none (the configuration's top-level agents). */
  defaults: string;
  signedIn: boolean;
  /** Whether this request may change presets (the token is set and it is signed in). */
  canEdit: boolean;
  /** What was just done, or the one line that says why not. */
  notice?: { readonly text: string; readonly error: boolean } | undefined;
  /** The new-preset form as sent, when it was refused. */
  form?: PresetForm | undefined;
  /** The file the configuration was read from (for "edit it there"). */
  file: string;
}> = ({ crawlers, groups, registry, presets, defaults, signedIn, canEdit, notice, form, file }) => (
  <Layout title="Crawlers" signedIn={signedIn}>
    <h1>Crawlers</h1>
    {notice === undefined ? null : <Notice error={notice.error}>{notice.text}</Notice>}
    <p class="muted">
      Each crawler watched on some site, over every site's robots.txt now: on how many it may fetch
      none of the watched pages, some, or all. A site whose robots.txt cannot be read counts as
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
                  {c.agent === '*' ? <span class="muted"> ({STAR})</span> : null}
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
    <h2 id="ai">AI crawlers by purpose and operator</h2>
    <p class="muted">
      The crawlers of the AI crawler registry, grouped as it describes them, over every site that
      watches any of them: on how many all are blocked from every watched page, some, or none. The
      registry in use is {registry.version}
      {registry.url === null ? (
        '; set registry.url in the configuration to refresh it'
      ) : (
        <>
          , refreshed from <code>{registry.url}</code>
        </>
      )}{' '}
      (<a href="/api/v1/registry">every crawler, as JSON</a>).
    </p>
    {groups.every((g) => g.blocked + g.partly + g.allowed === 0) ? (
      <p class="muted">
        No checked site watches the registry's crawlers yet (they are watched through @ai-major, the
        default, or @ai, @ai-training, @operator:openai, …).
      </p>
    ) : (
      <div class="scroll">
        <table aria-label="AI crawlers by purpose and operator">
          <thead>
            <tr>
              <th>Purpose or operator</th>
              <th>Preset</th>
              <th class="num">Crawlers</th>
              <th class="num">Sites blocking all</th>
              <th class="num">Blocking some</th>
              <th class="num">Blocking none</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr class={g.kind === 'purpose' ? 'group-purpose' : undefined}>
                <td>{g.kind === 'purpose' ? <strong>{g.label}</strong> : g.label}</td>
                <td class="nowrap">
                  <code>{g.preset}</code>
                </td>
                <td class="num" title={g.agents.join(', ')}>
                  {g.agents.length}
                </td>
                {g.blocked + g.partly + g.allowed === 0 ? (
                  <td colspan={3} class="muted">
                    no checked site watches any of them
                  </td>
                ) : (
                  <>
                    <td class="num">{g.blocked}</td>
                    <td class="num">{g.partly}</td>
                    <td class="num">{g.allowed}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <h2 id="presets">Presets</h2>
    <p class="muted">
      A site's crawlers (in the configuration file or its form) may name a preset, and watch every
      crawler in it; a site that names none watches the configuration's: {defaults}. Presets made
      here are for the sites added here or through the API; the configuration file names its own
      under <code>presets:</code> (and wins when both use a name).
    </p>
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Preset</th>
            <th>Crawlers</th>
            <th>Defined in</th>
            <th class="num">Sites</th>
          </tr>
        </thead>
        <tbody>
          {presets.map((p) => (
            <tr id={`preset-${p.name.slice(1)}`}>
              <td class="nowrap">
                <code>{p.name}</code>
              </td>
              <td>
                {p.agents.length <= PRESET_SHOWN ? (
                  p.agents.join(', ')
                ) : (
                  <details>
                    <summary>
                      {p.agents.length} crawlers: {p.agents.slice(0, 8).join(', ')}, …
                    </summary>
                    {p.agents.join(', ')}
                  </details>
                )}
                {canEdit && p.source === 'api' && !p.overridden ? (
                  <details>
                    <summary>Edit {p.name}</summary>
                    <form method="post" action="/crawlers/presets">
                      <input type="hidden" name="name" value={p.name} />
                      <label>
                        Crawlers of {p.name}
                        <textarea name="agents" rows={3}>
                          {p.agents.join('\n')}
                        </textarea>
                      </label>
                      <button type="submit">Save {p.name}</button>
                    </form>
                    <form method="post" action={`/crawlers/presets/${p.name.slice(1)}/delete`}>
                      <button type="submit">Delete {p.name}</button>
                    </form>
                  </details>
                ) : null}
              </td>
              <td>
                {SOURCE_TEXT[p.source]}
                {p.overridden ? <div class="muted">not used: {file} defines it too</div> : null}
              </td>
              <td class="num">{p.source === 'api' ? p.usedBy.length : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    {canEdit ? (
      <form method="post" action="/crawlers/presets" class="site-form" id="new-preset">
        <input type="hidden" name="mode" value="new" />
        <h3>New preset</h3>
        <label>
          Name
          <input
            type="text"
            name="name"
            value={form?.name ?? ''}
            placeholder="@shop-bots"
            required
            pattern="@[a-z0-9][a-z0-9-]{0,39}"
          />
          <span class="muted">"@" then lower-case letters, digits or "-".</span>
        </label>
        <label>
          Crawlers
          <textarea name="agents" rows={4} placeholder={'Googlebot\nBingbot'}>
            {form?.agents ?? ''}
          </textarea>
          <span class="muted">
            Product tokens as robots.txt names them, one per line (or commas between).
          </span>
        </label>
        <button type="submit">Save preset</button>
      </form>
    ) : (
      <p class="muted">
        Read-only: making presets from the web needs the access token (web.token in the
        configuration) and signing in.
      </p>
    )}
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
    {view.agent === '*' ? (
      <p class="muted">
        <code>*</code> is {STAR}: what a site's <code>*</code> group (or its absence) lets such a
        crawler fetch.
      </p>
    ) : null}
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
            <th class="num">Watched pages blocked</th>
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
