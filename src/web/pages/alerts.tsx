/**
 * The alert log: every alert, incident alert and digest with how each delivery went, and
 * one alert with exactly what it sent.
 */
import type { FC } from 'hono/jsx';
import { deliveryState } from '../../monitor/documents/index.js';
import type { RenderedDelivery } from '../../monitor/documents/index.js';
import type { AlertLogDelivery } from '../../monitor/records.js';
import { redactUrl } from '../../lib/redact.js';
import type { LogEntry } from '../alert-log.js';
import { Layout, SiteChoice, SiteRefusalNotice, Time } from './components.js';
import type { SiteChoices, SiteRefusal } from './components.js';

const STATE_TEXT = { queued: 'queued', sent: 'sent', failed: 'failed' } as const;

/** Where a delivery went and how it went, in a line. */
const DeliveryLine: FC<{ delivery: AlertLogDelivery }> = ({ delivery: d }) => {
  const state = deliveryState(d);
  return (
    <>
      <span class={`delivery delivery-${state}`}>{STATE_TEXT[state]}</span>{' '}
      {d.channel === 'email' ? `email to ${d.destination}` : `webhook ${redactUrl(d.destination)}`}
      {state === 'sent' ? (
        <>
          {' '}
          <Time date={d.sentAt} />
        </>
      ) : null}
      {d.attempts > 0 ? ` · ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : ''}
      {state !== 'sent' ? (
        <>
          {' '}
          · next attempt <Time date={d.nextAttemptAt} ago={false} />
        </>
      ) : null}
      {d.error === null ? null : <div class="muted">the receiver said: {d.error}</div>}
    </>
  );
};

export const AlertLogPageView: FC<{
  log: readonly LogEntry[];
  /** The sites to filter by (web/sites.ts's choices). */
  sites: SiteChoices;
  site: number | undefined;
  /** Why the site typed names none (the log is not shown), or undefined. */
  refused?: SiteRefusal | undefined;
  channel: string | undefined;
  state: string | undefined;
  older: string | null;
  signedIn: boolean;
}> = ({ log, sites, site, refused, channel, state, older, signedIn }) => (
  <Layout title="Alert log" signedIn={signedIn}>
    <h1>Alert log</h1>
    <p class="muted">
      Every alert and digest robowatch queued, newest first, with how each delivery went: queued (an
      incident's resolution waits out the flap window), sent, or failed with the receiver's answer
      and when it is tried again.
    </p>
    <form method="get" action="/alerts" class="filters">
      <SiteChoice choices={sites} site={site} none="Every site" label="Site" />
      <select name="channel" aria-label="Channel">
        <option value="" selected={channel === undefined}>
          Every channel
        </option>
        <option value="email" selected={channel === 'email'}>
          Email
        </option>
        <option value="webhook" selected={channel === 'webhook'}>
          Webhooks
        </option>
      </select>
      <select name="state" aria-label="Delivery state">
        <option value="" selected={state === undefined}>
          Any state
        </option>
        {(['queued', 'sent', 'failed'] as const).map((s) => (
          <option value={s} selected={s === state}>
            {STATE_TEXT[s]}
          </option>
        ))}
      </select>
      <button type="submit">Show</button>
    </form>
    {refused !== undefined ? (
      <SiteRefusalNotice refusal={refused} link={{ base: '/alerts', params: { channel, state } }} />
    ) : log.length === 0 ? (
      <p>
        No alert yet
        {site === undefined && channel === undefined && state === undefined ? '' : ' matches'}.
      </p>
    ) : (
      <ul class="alert-log">
        {log.map(({ entry, subject }) => (
          <li>
            <Time date={entry.createdAt} /> · <a href={`/alerts/${entry.id}`}>{subject}</a>
            <ul>
              {entry.deliveries.map((d) => (
                <li>
                  <DeliveryLine delivery={d} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    )}
    {older === null ? null : (
      <p>
        <a href={older}>Older alerts</a>
      </p>
    )}
  </Layout>
);

/** One alert: each delivery and exactly what it sent. */
export const AlertPageView: FC<{
  entry: LogEntry;
  contents: ReadonlyMap<number, RenderedDelivery>;
  signedIn: boolean;
}> = ({ entry: { entry, subject }, contents, signedIn }) => (
  <Layout title={subject} signedIn={signedIn}>
    <p>
      <a href="/alerts">← Alert log</a>
      {entry.siteId === null ? null : (
        <>
          {' '}
          · <a href={`/sites/${entry.siteId}`}>{entry.origin}</a>
        </>
      )}
    </p>
    <h1>{subject}</h1>
    <p class="muted">
      Queued <Time date={entry.createdAt} />. What each delivery sent, exactly:
    </p>
    {entry.deliveries.map((d) => {
      const content = contents.get(d.id);
      return (
        <section class="delivery-content">
          <h2>
            <DeliveryLine delivery={d} />
          </h2>
          <p class="muted">
            Sent with <code>X-Robowatch-Delivery: {d.key}</code> (the same on every attempt): look
            for it in the receiver's log, or in robowatch's "notification sent" line.
          </p>
          {content?.email === undefined ? null : (
            <>
              <h3>Subject</h3>
              <pre>{content.subject}</pre>
              <h3>Text</h3>
              <pre class="sent">{content.email.text}</pre>
              <details>
                <summary>HTML</summary>
                <pre class="sent">{content.email.html}</pre>
              </details>
            </>
          )}
          {content?.body === undefined ? null : (
            <>
              <h3>Body (POST)</h3>
              <pre class="sent">{content.body}</pre>
            </>
          )}
        </section>
      );
    })}
  </Layout>
);
