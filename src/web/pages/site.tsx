import type { FC } from 'hono/jsx';
import { AuditTable } from './accounts.js';
import type { AuditEntry } from '../../monitor/records-accounts.js';
import { IntentSection } from './intent.js';
import { VerdictMatrixSection } from './matrix.js';
import { formatBytes } from '../../policy/wording/format.js';
import { CONDITION_TEXT } from '../../policy/site-condition.js';
import { answers, fromRedirect } from '../../policy/wording/status-words.js';
import { redirectOf } from '../../policy/fetch-result.js';
import type { ChangeKind, SiteView } from '../../monitor/views/site.js';
import type { ArchiveSummary } from '../../monitor/records-archive.js';
import { profileOf } from '../../monitor/views/site.js';
import { CauseItem } from './causes.js';
import { CoveragePanel } from './coverage.js';
import {
  AccessBadge,
  ConditionBadge,
  Layout,
  NextCheck,
  Notice,
  Pager,
  Time,
  statusText,
} from './components.js';
import { Timeline } from './svg.js';

/** The kinds of change the list filters by, as people call them. */
const KIND_LABELS: readonly [ChangeKind, string][] = [
  ['status', 'robots.txt status'],
  ['file', 'not robots.txt or cut'],
  ['rules', 'rules and groups'],
  ['other', 'sitemaps, usage preferences and other lines'],
];

/** Causes shown per change; the diff page has them all. */
const CAUSES_PER_CHANGE = 5;

export interface SitePageProps {
  readonly view: SiteView;
  readonly kinds: readonly ChangeKind[];
  /** The crawler filter of the verdict matrix, as typed. */
  readonly crawlers: string;
  readonly blockingOnly: boolean;
  readonly now: Date;
  /** Whether this request may check the site now (the POST needs the token). */
  readonly canCheck: boolean;
  /** The outcome of a check just made from this page, if any. */
  readonly checked: string | undefined;
  /** What was just done to the site from the web (edited, paused, resumed), if anything. */
  readonly done: string | undefined;
  /** Paused since then; null: checked on its schedule. */
  readonly pausedAt: Date | null;
  /** The configuration file's name, for a site it manages. */
  readonly file: string;
  readonly signedIn: boolean;
  /** What a feed link carries so that a feed reader may read it ("?key=…" with a token). */
  readonly feedQuery: string;
  /** Who changed it lately (the newest audit entries), for admins; undefined: not shown. */
  readonly audit?: readonly AuditEntry[] | undefined;
  /** Its history from the Internet Archive, and whether more can be, or is being, loaded. */
  readonly archive: ArchiveSummary & {
    readonly loading: 'waiting' | 'running' | null;
    /** A daemon runs in this process to load it. */
    readonly canLoad: boolean;
  };
}

const DONE: Record<string, string> = {
  edited: 'Saved: what the current robots.txt means for the new settings is below.',
  paused: 'Paused: robowatch does not check it until it is resumed.',
  resumed: 'Resumed: it is checked on its schedule again.',
  accepted:
    'Accepted as intended: what crawlers may fetch there now is what is intended, and the site was judged again.',
  acknowledged:
    'Acknowledged: the note, and who wrote it, are on the incident for everyone to see.',
  'intent-added': 'Entry added to the intent: the site was judged again against it.',
  'intent-removed': 'Entry removed from the intent: the site was judged again without it.',
  'intent-reset':
    'The intent set here was removed: the configuration’s (or the built-in one) applies again, and the site was judged again.',
  backfill:
    'Loading its history from the Internet Archive: the captures appear below as they are read (a few a minute, to spare the archive).',
};
const CHECKED: Record<string, string> = {
  baseline: 'Checked now: its first snapshot (the baseline) is below.',
  changed: 'Checked now: robots.txt changed; the change is below.',
  unchanged: 'Checked now: nothing changed.',
  refused:
    'Not checked: its host resolves to a private address, which robowatch does not fetch (fetch.allowPrivateAddresses allows it).',
  failed: 'Added, but the first check could not be made now; it is made on schedule.',
};

/** What the site's history from the Internet Archive holds, in a sentence. */
const ArchiveFact: FC<{ archive: SitePageProps['archive'] }> = ({ archive }) => (
  <>
    {archive.captures === 0 ? (
      <span class="muted">no history from the Internet Archive yet</span>
    ) : (
      <>
        {archive.snapshots} state{archive.snapshots === 1 ? '' : 's'} from the Internet Archive,{' '}
        <Time date={archive.first} /> to <Time date={archive.last} /> ({archive.captures} capture
        {archive.captures === 1 ? '' : 's'} read
        {archive.skipped > 0
          ? `, ${archive.skipped} left out: redirects the archive cannot follow`
          : ''}
        )
      </>
    )}
    {archive.loading === null ? null : (
      <span class="archived">
        {archive.loading === 'running' ? ' loading from the Internet Archive…' : ' queued to load'}
      </span>
    )}
  </>
);

/**
 * The sitemaps robots.txt declares (its `Sitemap:` lines), which any crawler reading it
 * learns of; without any, what the coverage read in their place (`/sitemap.xml`, when it
 * answered), so that the page does not say "none" beside a coverage of its URLs.
 */
const SitemapsDeclared: FC<{
  declared: readonly string[];
  read: readonly { readonly url: string }[];
}> = ({ declared, read }) =>
  declared.length > 0 ? (
    <>
      <p class="muted">
        Declared in robots.txt (its <code>Sitemap:</code> lines): crawlers that read the file learn
        of them there.
      </p>
      <ul>
        {declared.map((s) => (
          <li class="mono">{s}</li>
        ))}
      </ul>
    </>
  ) : (
    <p class="muted">
      robots.txt declares none (no <code>Sitemap:</code> line): crawlers learn of no sitemap from
      it, only from elsewhere (such as Google Search Console).
      {read.length === 0 ? null : (
        <>
          {' '}
          For the coverage above robowatch read{' '}
          {read.slice(0, 3).map((s, i) => (
            <>
              {i === 0 ? '' : ', '}
              <span class="mono">{s.url}</span>
            </>
          ))}
          {read.length > 3 ? ` and ${read.length - 3} more` : ''} instead.
        </>
      )}
    </p>
  );

/** A site: where it stands, its timeline, its changes, the verdict matrix and sitemaps. */
export const SitePageView: FC<SitePageProps> = ({
  view,
  kinds,
  crawlers,
  blockingOnly,
  now,
  canCheck,
  checked,
  done,
  pausedAt,
  file,
  signedIn,
  feedQuery,
  audit,
  archive,
}) => {
  const { site, current } = view;
  const base = `/sites/${site.id}`;
  // Folded columns hold several crawlers each.
  const agents = (site.config?.agents ?? []).map((a) => a.token);
  return (
    <Layout
      title={site.config?.name ?? site.origin}
      signedIn={signedIn}
      feed={`/sites/${site.id}/feed.atom${feedQuery}`}
    >
      <h1>
        {site.config?.name ?? site.origin}
        {site.config?.name ? <span class="muted origin"> {site.origin}</span> : null}
      </h1>
      {(site.config?.tags.length ?? 0) > 0 ? (
        <p class="tags">
          {site.config!.tags.map((t) => (
            <a class="tag" href={`/?tag=${encodeURIComponent(t)}`}>
              {t}
            </a>
          ))}
        </p>
      ) : null}
      {site.config === undefined ? (
        <Notice>This site is no longer watched; its history is kept.</Notice>
      ) : null}
      {pausedAt === null ? null : (
        <Notice>
          Paused since <Time date={pausedAt} />: robowatch does not check it, so a change to its
          robots.txt is not seen until it is resumed.
        </Notice>
      )}
      {checked === undefined ? null : (
        <Notice>{CHECKED[checked] ?? `Checked now: ${checked}`}</Notice>
      )}
      {done === undefined || DONE[done] === undefined ? null : <Notice>{DONE[done]}</Notice>}
      {view.refused === null ? null : (
        <Notice error>
          robowatch could not check this site since <Time date={view.refused.since} />:{' '}
          {view.refused.reason}, and robowatch does not fetch private or reserved addresses. What
          crawlers may do now is not known; what is below is what robowatch last saw. To watch a
          host on a private network, set <code>fetch.allowPrivateAddresses: true</code>.
        </Notice>
      )}
      <dl class="facts">
        <dt>Now</dt>
        <dd>
          {view.refused !== null ? (
            <>
              <ConditionBadge condition="refused" />
              <div class="muted">{CONDITION_TEXT.refused.meaning}</div>
            </>
          ) : current === undefined || current.source === 'archive' ? (
            <>
              <ConditionBadge condition="none" />
              {current === undefined ? null : (
                <div class="muted">
                  Not checked yet. Its latest capture by the Internet Archive (
                  <Time date={current.firstSeen} />) is shown below.
                </div>
              )}
            </>
          ) : (
            <>
              <ConditionBadge condition={view.condition} /> robots.txt{' '}
              {answers({
                access: current.access,
                ...(current.status === null ? {} : { status: current.status }),
                ...(current.error === null ? {} : { error: current.error }),
              })}
              {fromRedirect(redirectOf(current))}
              {current.stale ? ' (unreachable for 30 days: the last good copy applies)' : ''}
              <div class="muted">{CONDITION_TEXT[view.condition].meaning}</div>
            </>
          )}
        </dd>
        <dt>Last checked</dt>
        <dd>
          {current === undefined || current.source === 'archive' ? (
            <span class="muted">never</span>
          ) : (
            <Time date={current.lastSeen} />
          )}
        </dd>
        <dt>Next check</dt>
        <dd>
          {view.nextCheckAt === null ? (
            <span class="muted">none: no longer in the configuration</span>
          ) : pausedAt !== null ? (
            <span class="muted">none: paused</span>
          ) : (
            <NextCheck at={view.nextCheckAt} now={now} checked={current !== undefined} />
          )}
        </dd>
        <dt>Profile</dt>
        <dd>{profileOf(site)}</dd>
        <dt>Snapshots</dt>
        <dd>{view.segments.length}</dd>
        <dt>Before robowatch</dt>
        <dd>
          <ArchiveFact archive={archive} />
          {archive.canLoad ? null : (
            <span class="muted">
              {' '}
              (<code>robowatch backfill {site.origin}</code> loads it)
            </span>
          )}
          {archive.canLoad && canCheck && site.config !== undefined && archive.loading === null ? (
            <form class="inline" method="post" action={`${base}/backfill`}>
              {' '}
              <button type="submit" class="secondary">
                {archive.captures === 0 ? 'Load history' : 'Load more history'}
              </button>
            </form>
          ) : null}
        </dd>
      </dl>
      <p>
        <form class="inline" method="post" action={`${base}/check`}>
          <button type="submit" disabled={!canCheck || site.config === undefined}>
            Check now
          </button>
        </form>{' '}
        {canCheck && site.config !== undefined ? (
          <>
            {' '}
            <form
              class="inline"
              method="post"
              action={`${base}/${pausedAt === null ? 'pause' : 'resume'}`}
            >
              <button type="submit" class="secondary">
                {pausedAt === null ? 'Pause' : 'Resume'}
              </button>
            </form>{' '}
            {site.config.managedBy === 'api' ? (
              <>
                <a href={`${base}/edit`}>Edit settings</a>
                {' · '}
                <a href={`${base}/remove`}>Remove</a>
              </>
            ) : (
              <span class="muted">Settings: in {file}</span>
            )}
          </>
        ) : null}
        {canCheck ? null : (
          <span class="muted">
            Read-only: checking and editing need an editor or admin signed in (or the access token,
            web.token).
          </span>
        )}
        {' · '}
        <a href={`/tester?site=${site.id}`}>Test a new robots.txt</a>
        {view.segments.length > 1 ? (
          <>
            {' · '}
            <a href={`${base}/diff`}>Latest diff</a>
          </>
        ) : null}
      </p>

      {view.intent === undefined ? null : (
        <IntentSection siteId={site.id} view={view.intent} canEdit={canCheck} now={now} />
      )}

      <h2>Timeline</h2>
      <Timeline siteId={site.id} segments={view.segments} />
      {view.segments.some((s) => s.archived) ? (
        <p class="muted">
          Paler: states captured by the Internet Archive before robowatch watched the site. Their
          changes are listed below and never alerted.
        </p>
      ) : null}

      <VerdictMatrixSection
        view={view}
        crawlers={crawlers}
        blockingOnly={blockingOnly}
        canEdit={canCheck}
      />

      {audit === undefined ? null : (
        <>
          <h2 id="audit">Who changed its settings</h2>
          {audit.length === 0 ? (
            <p class="muted">No one has changed it in the UI or API (within the audit log).</p>
          ) : (
            <AuditTable entries={audit} />
          )}
          <p class="muted">
            <a href={`/audit?site=${site.id}`}>Its whole audit log</a>
          </p>
        </>
      )}

      <h2>Changes</h2>
      <p class="muted">
        <a href={`/sites/${site.id}/feed.atom${feedQuery}`}>Follow them in a feed reader (Atom)</a>
      </p>
      <form method="get" action={base} class="filter">
        {KIND_LABELS.map(([kind, label]) => (
          <label>
            <input type="checkbox" name="kind" value={kind} checked={kinds.includes(kind)} />{' '}
            {label}{' '}
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      {view.changes.length === 0 ? (
        <p class="muted">No changes{kinds.length > 0 ? ' of these kinds' : ''}.</p>
      ) : (
        <ol class="changes">
          {view.changes.map((change) => (
            <li>
              <p class="when">
                <Time date={change.at} /> ·{' '}
                {change.archived ? (
                  <>
                    <span class="archived">captured by the Internet Archive</span> ·{' '}
                  </>
                ) : null}
                <a
                  href={`${base}/diff?${new URLSearchParams({ ...(change.previousId === null ? {} : { from: String(change.previousId) }), to: String(change.snapshotId) }).toString()}`}
                >
                  what changed, line by line
                </a>{' '}
                ·{' '}
                <a href={`${base}/snapshots/${change.snapshotId}`}>snapshot {change.snapshotId}</a>
              </p>
              <ul class="causes">
                {change.causes.slice(0, CAUSES_PER_CHANGE).map((cause) => (
                  <CauseItem cause={cause} siteId={site.id} agents={agents} at={change.at} />
                ))}
              </ul>
              {change.causes.length > CAUSES_PER_CHANGE ? (
                <p class="muted">
                  and {change.causes.length - CAUSES_PER_CHANGE} more:{' '}
                  <a href={`${base}/diff?to=${change.snapshotId}`}>see them all</a>
                </p>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <Pager
        base={base}
        params={kinds.length > 0 ? { kind: kinds.join(',') } : {}}
        before={view.olderChanges}
      />

      <h2 id="coverage">Coverage of the sitemaps</h2>
      <CoveragePanel
        doc={view.coverage}
        history={view.coverageHistory}
        off={view.site.config === undefined || view.site.config.sitemaps === 'off'}
        now={now}
      />

      <h2>Sitemaps</h2>
      <SitemapsDeclared
        declared={view.sitemaps}
        read={(view.coverage?.urlSet.sitemaps ?? []).filter(
          (s) => s.status === 200 || s.notModified,
        )}
      />

      <h2>Snapshots</h2>
      <table>
        <thead>
          <tr>
            <th class="num">Id</th>
            <th>First seen</th>
            <th>Last seen</th>
            <th>Status</th>
            <th class="num">Size</th>
            <th class="num">Checks</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {view.snapshots.map((s) => (
            <tr>
              <td class="num">
                <a href={`${base}/snapshots/${s.id}`}>{s.id}</a>
              </td>
              <td>
                <Time date={s.firstSeen} />
              </td>
              <td>
                <Time date={s.lastSeen} />
              </td>
              <td>
                <AccessBadge access={s.access} /> {statusText(s)}
              </td>
              <td class="num">
                {formatBytes(s.size)}
                {s.truncated ? ' (cut)' : ''}
              </td>
              <td class="num">{s.checks}</td>
              <td>{s.previousId === null ? null : <a href={`${base}/diff?to=${s.id}`}>diff</a>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
};
