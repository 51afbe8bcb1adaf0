/**
 * A site against its owner's intent, as its page shows it (its state, the cells that
 * differ and why, its incident, "Accept as intended"), and the Incidents page.
 */
import { ACK_LIMITS } from '../../monitor/acknowledge.js';
import type { FC } from 'hono/jsx';
import type { IncidentHead, IncidentRecord } from '../../monitor/records.js';
import type { IntentView } from '../../monitor/views/site.js';
import {
  cameBack,
  incidentExtent,
  intentLead,
  namedCrawlers,
  violationCause,
  violationsByPage,
} from '../../policy/incidents.js';
import type { Violation, ViolationGrid } from '../../policy/intent.js';
import { formatDuration } from '../../policy/wording/words.js';
import { siteLabel } from '../../policy/wording/format.js';
import {
  IntentBadge,
  Layout,
  Notice,
  Pager,
  Rich,
  SiteChoice,
  SiteRefusalNotice,
  Time,
} from './components.js';
import type { SiteChoices, SiteRefusal } from './components.js';

/** Cells listed under the state before "and N more". */
const LISTED = 20;

const FROM: Record<IntentView['intent']['from'], string> = {
  'built-in':
    'No intent is set: robowatch takes every watched page as meant to be crawled by the search engines (@search).',
  file: 'The intent is the configuration file’s top-level `intent`.',
  'site-file': 'The intent is this site’s own `intent` in the configuration file: edit it there.',
  web: 'The intent was set here (or through the API).',
};

/** An accept button: takes the current verdicts of the cells it names as intended. */
export const AcceptButton: FC<{
  siteId: number;
  url?: string;
  agent?: string;
  label: string;
  title: string;
}> = ({ siteId, url, agent, label, title }) => (
  <form class="inline" method="post" action={`/sites/${siteId}/intent/accept`}>
    {url === undefined ? null : <input type="hidden" name="url" value={url} />}
    {agent === undefined ? null : <input type="hidden" name="agent" value={agent} />}
    <button type="submit" class="secondary small" title={title}>
      {label}
    </button>
  </form>
);

/** How long an incident lasted, or has lasted so far. */
export function incidentDuration(incident: IncidentHead, now: Date): string {
  const end = incident.resolvedAt ?? now;
  return formatDuration(Math.max(0, end.getTime() - incident.openedAt.getTime()));
}

/**
 * The incident in a sentence, with its acknowledgment; `site`: the site as the line names
 * it (lists of several sites' incidents), linked to its page.
 */
export const IncidentLine: FC<{ incident: IncidentHead; now: Date; site?: string }> = ({
  incident,
  now,
  site,
}) => (
  <>
    {site === undefined ? null : (
      <>
        <a href={`/sites/${incident.siteId}#intent`}>{site}</a>:{' '}
      </>
    )}
    {incident.state === 'open' ? (
      <>
        <strong>open</strong> for {incidentDuration(incident, now)}, since{' '}
        <Time date={incident.openedAt} ago={false} />
      </>
    ) : (
      <>
        resolved <Time date={incident.resolvedAt} /> after {incidentDuration(incident, now)}
      </>
    )}
    {incident.reopened > 0 ? `, ${cameBack(incident.reopened)}` : ''}
    {incident.acknowledgedAt === null ? null : (
      <>
        {' '}
        · acknowledged by {incident.acknowledgedBy} <Time date={incident.acknowledgedAt} />
        {incident.note === null ? null : <>: “{incident.note}”</>}
      </>
    )}
  </>
);

/** An acknowledgment's note and who wrote it, as its forms ask them. */
const AckFields: FC<{ placeholder: string; note?: string | null; by?: string | null }> = ({
  placeholder,
  note,
  by,
}) => (
  <>
    <label>
      Note{' '}
      <input
        type="text"
        name="note"
        required
        maxlength={ACK_LIMITS.note}
        placeholder={placeholder}
        value={note ?? ''}
      />
    </label>{' '}
    <label>
      By <input type="text" name="by" maxlength={ACK_LIMITS.by} value={by ?? ''} />
    </label>{' '}
  </>
);

/**
 * One note for every open incident no one has acknowledged yet, as when one change (a CDN
 * rule, a shared template) reached many sites at once.
 */
const AckAllForm: FC<{ count: number | undefined }> = ({ count }) => (
  <form method="post" action="/incidents/ack-open" class="ack">
    <AckFields placeholder="What is being done about them" />
    <button type="submit">
      {count === undefined ? 'Acknowledge all not acknowledged' : `Acknowledge all ${count}`}
    </button>
    <span class="muted">
      {' '}
      Every open incident no one has acknowledged yet, with this note; those acknowledged keep
      theirs.
    </span>
  </form>
);

/** The acknowledgment form of an open incident. */
const AckForm: FC<{ incident: IncidentHead }> = ({ incident }) => (
  <form method="post" action={`/incidents/${incident.id}/ack`} class="ack">
    <AckFields
      placeholder="What is being done about it"
      note={incident.note}
      by={incident.acknowledgedBy}
    />
    <button type="submit">
      {incident.acknowledgedAt === null ? 'Acknowledge' : 'Update note'}
    </button>
    {incident.acknowledgedAt === null ? (
      <span class="muted"> Tells everyone it is in hand, and stops reminders (notify.remind).</span>
    ) : null}
  </form>
);

/**
 * Cells that differ, a line for each page and reason, its crawlers named ("`/cart` is
 * blocked for Googlebot, Bingbot and 5 more: Disallow: /cart (line 2) blocks pages meant
 * to be crawled"); the first LISTED lines, then how many pairs more.
 */
export const ViolationList: FC<{
  violations: readonly Violation[];
  count: number;
  /** Said of a resolved incident's last cells: "was blocked". */
  past?: boolean;
  /** Where the pairs left out are, if anywhere. */
  more?: string;
}> = ({ violations, count, past = false, more }) => {
  const shown = violationsByPage(violations, violationCause).slice(0, LISTED);
  const left = count - shown.reduce((n, line) => n + line.agents.length, 0);
  return (
    <>
      <ul class="violations">
        {shown.map((line) => (
          <li>
            <code>{line.path}</code> {past ? 'was' : 'is'}{' '}
            {line.expected === 'allowed' ? 'blocked for' : 'open to'} {namedCrawlers(line.agents)}:{' '}
            <Rich text={line.why} />
          </li>
        ))}
      </ul>
      {left > 0 ? (
        <p class="muted">
          and {left} more page × crawler pair{left === 1 ? '' : 's'}
          {more === undefined ? '' : ` (${more})`}
        </p>
      ) : null}
    </>
  );
};

/**
 * More cells differ than are kept, and they make one block (a file that shuts the search
 * engines out of 40 pages): said whole before the first of them, as the alerts say it.
 */
const WholeBlock: FC<{
  violations: readonly Violation[];
  count: number;
  grid: ViolationGrid | undefined;
}> = ({ violations, count, grid }) =>
  grid === undefined || violations.length >= count ? null : (
    <p>
      All {count} as one block: {intentLead('not-as-intended', violations, count, undefined, grid)}.
    </p>
  );

/** The site's state against its intent, the cells that differ, its incident. */
export const IntentSection: FC<{
  siteId: number;
  view: IntentView;
  canEdit: boolean;
  now: Date;
}> = ({ siteId, view, canEdit, now }) => {
  const { judgement, intent, incident } = view;
  const editable = canEdit && intent.from !== 'site-file';
  const violations = judgement?.violations ?? [];
  return (
    <section aria-labelledby="intent">
      <h2 id="intent">Against intent</h2>
      <p>
        <IntentBadge intent={judgement} />
        {judgement?.since === null || judgement === null ? null : (
          <>
            {' '}
            since <Time date={judgement.since} />
          </>
        )}
        {judgement?.state === 'as-intended' ? (
          <span class="muted">
            {' '}
            {judgement.judged} watched cell{judgement.judged === 1 ? '' : 's'} as intended.
          </span>
        ) : null}
        {judgement?.state === 'cannot-check' ? <span> {judgement.reason}</span> : null}
      </p>
      {violations.length === 0 ? null : (
        <>
          <WholeBlock
            violations={violations}
            count={judgement!.violationCount}
            grid={judgement!.grid}
          />
          <ViolationList
            violations={violations}
            count={judgement!.violationCount}
            more="marked in the matrix below"
          />
        </>
      )}
      {incident === undefined ? null : (
        <p>
          Incident <a href={`/incidents?site=${siteId}#incident-${incident.id}`}>#{incident.id}</a>:{' '}
          <IncidentLine incident={incident} now={now} />
        </p>
      )}
      {incident?.state === 'open' && canEdit ? <AckForm incident={incident} /> : null}
      <p class="muted">
        <Rich text={FROM[intent.from]} /> Each watched cell takes the expectation of the last entry
        that matches it ({intent.entries.length} entr{intent.entries.length === 1 ? 'y' : 'ies'}
        ).
      </p>
      <IntentEntries siteId={siteId} view={view} editable={editable} />
      {editable && judgement?.state === 'not-as-intended' ? (
        <p>
          <AcceptButton
            siteId={siteId}
            label="Accept all as intended"
            title="Take what every watched crawler may fetch now as what is intended"
          />{' '}
          <span class="muted">
            or accept one cell, a row or a column in the matrix below: what crawlers may fetch there
            now becomes what is intended.
          </span>
        </p>
      ) : null}
    </section>
  );
};

/**
 * The intent's entries, the last one that matches a cell deciding it; where it may be
 * changed here, each with Remove, a form that adds one, and the way back to the file's.
 */
const IntentEntries: FC<{ siteId: number; view: IntentView; editable: boolean }> = ({
  siteId,
  view,
  editable,
}) => {
  const { entries, from } = view.intent;
  return (
    <details class="intent-entries" open={from === 'web'}>
      <summary>
        The intent’s {entries.length} entr{entries.length === 1 ? 'y' : 'ies'}
        {editable ? ', to change here' : ''}
      </summary>
      {entries.length === 0 ? (
        <p class="muted">No entry: no watched cell is judged.</p>
      ) : (
        <table class="entries">
          <thead>
            <tr>
              <th>Watched pages</th>
              <th>Crawlers</th>
              <th>Meant to be</th>
              {editable ? <th></th> : null}
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr>
                <td>
                  <code>{e.watch}</code>
                </td>
                <td>{e.agents.join(', ')}</td>
                <td>{e.expect === 'allowed' ? 'crawled' : 'kept out'}</td>
                {editable ? (
                  <td>
                    <form
                      class="inline"
                      method="post"
                      action={`/sites/${siteId}/intent/entries/${i}/remove`}
                    >
                      <input type="hidden" name="entry" value={JSON.stringify(e)} />
                      <button
                        type="submit"
                        class="secondary small"
                        aria-label={`Remove ${e.watch} for ${e.agents.join(', ')}`}
                      >
                        Remove
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editable ? (
        <form method="post" action={`/sites/${siteId}/intent/entries`} class="intent-add">
          <label>
            Watched pages{' '}
            <input
              type="text"
              name="watch"
              required
              maxlength={2000}
              placeholder="/pricing, or /admin/* for a prefix"
            />
          </label>{' '}
          <label>
            Crawlers{' '}
            <input
              type="text"
              name="agents"
              required
              maxlength={2000}
              placeholder="Googlebot, @search, @ai-training"
            />
          </label>{' '}
          <label>
            Meant to be{' '}
            <select name="expect">
              <option value="allowed">crawled</option>
              <option value="disallowed">kept out</option>
            </select>
          </label>{' '}
          <button type="submit">Add to the intent</button>
        </form>
      ) : null}
      {editable && from === 'web' ? (
        <form method="post" action={`/sites/${siteId}/intent/reset`}>
          <button type="submit" class="secondary">
            Remove the intent set here
          </button>{' '}
          <span class="muted">
            the configuration file’s top-level <code>intent</code> (or the built-in one) applies
            again.
          </span>
        </form>
      ) : null}
    </details>
  );
};

/** Every incident, open ones first. */
export const IncidentsPageView: FC<{
  open: readonly IncidentHead[];
  resolved: readonly IncidentHead[];
  now: Date;
  canEdit: boolean;
  signedIn: boolean;
  done: string | undefined;
  /** The filters: one site, one state (undefined: all). */
  sites: SiteChoices;
  site: number | undefined;
  /** Why the site typed names none (the lists are not shown), or undefined. */
  refused?: SiteRefusal | undefined;
  state: 'open' | 'resolved' | undefined;
  /** The watched sites' names, by id: an incident is listed under its site's name. */
  names: ReadonlyMap<number, string | null | undefined>;
  /** How many incidents were just acknowledged at once (done=acknowledged-all). */
  doneCount?: number;
  /** More are open than those shown (the newest). */
  openCut?: boolean;
  /** The id the older resolved ones start below, or null: these are the oldest. */
  older?: number | null;
}> = ({
  open,
  resolved,
  now,
  canEdit,
  signedIn,
  done,
  doneCount = 0,
  sites,
  site,
  refused,
  state,
  names,
  openCut = false,
  older = null,
}) => {
  const unacknowledged = open.filter((i) => i.acknowledgedAt === null).length;
  return (
    <Layout title="Incidents" signedIn={signedIn}>
      <h1>Incidents</h1>
      {done === 'acknowledged' ? (
        <Notice>Acknowledged: the note, and who wrote it, are on the incident.</Notice>
      ) : null}
      {done === 'acknowledged-all' ? (
        <Notice>
          {doneCount === 0
            ? 'Nothing to acknowledge: every open incident was acknowledged already.'
            : `Acknowledged ${doneCount === 1 ? '1 incident' : `${doneCount.toLocaleString('en')} incidents`}: the note, and who wrote it, are on each.`}
        </Notice>
      ) : null}
      <p class="muted">
        An incident opens when a site stops being as its owner intends (a crawler kept from a page
        meant to be crawled, let into one meant to be kept out, or robots.txt that cannot be read)
        and resolves when it is back. A relapse within the flap window reopens the same incident.
      </p>
      <form method="get" action="/incidents" class="filter">
        <label>
          Site <SiteChoice choices={sites} site={site} none="every site" />
        </label>{' '}
        <label>
          State{' '}
          <select name="state">
            <option value="">open and resolved</option>
            <option value="open" selected={state === 'open'}>
              open
            </option>
            <option value="resolved" selected={state === 'resolved'}>
              resolved
            </option>
          </select>
        </label>{' '}
        <button type="submit">Show</button>
      </form>
      {refused === undefined ? null : (
        <SiteRefusalNotice refusal={refused} link={{ base: '/incidents', params: { state } }} />
      )}
      {state === 'resolved' || refused !== undefined ? null : (
        <>
          <h2>Open</h2>
          {open.length === 0 ? (
            <p>No open incident: every site is as intended, or not checked yet.</p>
          ) : (
            <>
              <p class="muted">
                {openCut
                  ? `The newest ${open.length} open (more are open: choose a site to see its own), ${unacknowledged} of them not acknowledged.`
                  : unacknowledged === 0
                    ? `${open.length} open, ${open.length === 1 ? 'acknowledged' : 'every one acknowledged'}.`
                    : `${open.length} open, ${unacknowledged} not acknowledged.`}
              </p>
              {canEdit && site === undefined && (unacknowledged > 1 || openCut) ? (
                <AckAllForm count={openCut ? undefined : unacknowledged} />
              ) : null}
              <IncidentList incidents={open} now={now} canEdit={canEdit} names={names} />
            </>
          )}
        </>
      )}
      {state === 'open' || refused !== undefined ? null : (
        <>
          <h2>Resolved</h2>
          {resolved.length === 0 ? (
            <p class="muted">None yet.</p>
          ) : (
            <IncidentList incidents={resolved} now={now} canEdit={false} names={names} />
          )}
          <Pager
            base="/incidents"
            params={{
              ...(site === undefined ? {} : { site: String(site) }),
              state: 'resolved',
            }}
            before={older}
          />
        </>
      )}
    </Layout>
  );
};

/** One incident, where alerts and digests link to. */
export const IncidentPageView: FC<{
  incident: IncidentRecord;
  now: Date;
  canEdit: boolean;
  signedIn: boolean;
  /** The site's name, where it has one. */
  name: string | null | undefined;
}> = ({ incident, now, canEdit, signedIn, name }) => (
  <Layout title={`Incident #${incident.id}`} signedIn={signedIn}>
    <p>
      <a href={`/incidents?site=${incident.siteId}`}>← The site’s incidents</a>
    </p>
    <h1>Incident #{incident.id}</h1>
    <IncidentList
      incidents={[incident]}
      now={now}
      canEdit={canEdit}
      names={new Map([[incident.siteId, name]])}
    />
    {incident.violations.length === 0 ? null : (
      <>
        <h2>
          {incident.state === 'resolved'
            ? 'The watched pages and crawlers that differed'
            : 'The watched pages and crawlers that differ'}
        </h2>
        {incident.state === 'resolved' ? null : (
          <WholeBlock
            violations={incident.violations}
            count={incident.violationCount}
            grid={incident.grid ?? undefined}
          />
        )}
        <ViolationList
          violations={incident.violations}
          count={incident.violationCount}
          past={incident.state === 'resolved'}
        />
      </>
    )}
    <p>
      <a href={`/alerts?site=${incident.siteId}`}>The site’s alerts</a> ·{' '}
      <a href={`/sites/${incident.siteId}#intent`}>The site</a>
    </p>
  </Layout>
);

const IncidentList: FC<{
  incidents: readonly IncidentHead[];
  now: Date;
  canEdit: boolean;
  names: ReadonlyMap<number, string | null | undefined>;
}> = ({ incidents, now, canEdit, names }) => (
  <ul class="incidents">
    {incidents.map((incident) => (
      <li id={`incident-${incident.id}`}>
        <a href={`/incidents/${incident.id}`}>#{incident.id}</a>{' '}
        <IncidentLine
          incident={incident}
          now={now}
          site={siteLabel(incident.origin, names.get(incident.siteId))}
        />
        {/* What crawlers do against the intent, as its alerts lead; the causes say why. */}
        {incident.state === 'open' && incident.siteState === 'not-as-intended' ? (
          <div class="lead">{incident.lead}</div>
        ) : null}
        <ul>
          {incident.causes.map((c) => (
            <li>
              <Rich text={c} />
            </li>
          ))}
        </ul>
        <span class="muted">{incidentExtent(incident)}</span>
        {canEdit && incident.state === 'open' ? <AckForm incident={incident} /> : null}
      </li>
    ))}
  </ul>
);
