import type { FC } from 'hono/jsx';
import type { DigestRecord } from '../../monitor/records.js';
import { Layout, Notice, Time, day } from './components.js';

/** The digests sent, newest first. */
export const DigestsPageView: FC<{
  digests: readonly (DigestRecord & { id: number })[];
  /** The person sees only some sites: digests as sent (which cover others) are not shown. */
  limited?: boolean;
  signedIn: boolean;
}> = ({ digests, limited = false, signedIn }) => (
  <Layout title="Digests" signedIn={signedIn}>
    <h1>Digests</h1>
    <p>
      <a href="/digests/preview">The next digest</a>: what it will say, per recipient, with Send
      now.
    </p>
    {limited ? (
      <p class="muted">
        Digests as sent cover sites you do not see: the next digest above shows what it says of
        yours.
      </p>
    ) : digests.length === 0 ? (
      <p class="muted">No digest has been sent yet.</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th>Period</th>
            <th>To</th>
            <th>Subject</th>
          </tr>
        </thead>
        <tbody>
          {digests.map((d) => (
            <tr>
              <td>
                {day(d.periodStart)} to {day(d.periodEnd)}
              </td>
              <td>{d.recipient}</td>
              <td>
                <a href={`/digests/${d.id}`}>{d.subject}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </Layout>
);

/** One digest as it was sent: its text, with a link to the email's HTML. */
export const DigestPageView: FC<{ digest: DigestRecord & { id: number }; signedIn: boolean }> = ({
  digest,
  signedIn,
}) => (
  <Layout title={digest.subject} signedIn={signedIn}>
    <p>
      <a href="/digests">← Digests</a>
    </p>
    <h1>{digest.subject}</h1>
    <p class="muted">
      To {digest.recipient}, for <Time date={digest.periodStart} /> to{' '}
      <Time date={digest.periodEnd} />.{' '}
      <a href={`/digests/${digest.id}/email.html`}>The email as HTML</a>
    </p>
    <pre class="wrap">{digest.text}</pre>
  </Layout>
);

/** A digest as the next one would be sent now, for one recipient. */
export interface DigestPreview {
  readonly recipient: string;
  readonly subject: string;
  readonly text: string;
}

/**
 * What the next digest will say, per recipient: their list, the chosen one's digest as
 * text with its email as HTML, and Send now.
 */
export const DigestPreviewPageView: FC<{
  previews: readonly DigestPreview[];
  /** The recipient shown (the first when none was chosen). */
  chosen: string | undefined;
  since: string;
  period: { start: Date; end: Date };
  canSend: boolean;
  done: string | undefined;
  signedIn: boolean;
}> = ({ previews, chosen, since, period, canSend, done, signedIn }) => {
  const shown = previews.find((p) => p.recipient === chosen) ?? previews[0];
  const query = (recipient: string) => new URLSearchParams({ to: recipient, since }).toString();
  return (
    <Layout title="The next digest" signedIn={signedIn}>
      <p>
        <a href="/digests">← Digests</a>
      </p>
      <h1>The next digest</h1>
      {done === 'sent' ? (
        <Notice>Queued: it goes out now, and the alert log shows how its delivery went.</Notice>
      ) : done === 'queued' ? (
        <Notice>
          Queued: the daemon (robowatch start) sends it; this process only serves the web UI. The
          alert log shows how its delivery goes.
        </Notice>
      ) : done === 'already' ? (
        <Notice>
          This recipient’s digest of this period was sent already; robowatch does not send a period
          twice.
        </Notice>
      ) : null}
      <p class="muted">
        What each recipient’s digest would say if it were sent now, for <Time date={period.start} />{' '}
        to <Time date={period.end} />. The daemon sends it on its schedule (schedule.digest).
      </p>
      <form method="get" action="/digests/preview" class="inline">
        <label>
          Period: the last <input name="since" value={since} size={4} aria-label="Period" />
        </label>
        {shown === undefined ? null : <input type="hidden" name="to" value={shown.recipient} />}{' '}
        <button type="submit">Show</button>
      </form>
      {previews.length === 0 ? (
        <p>
          No one receives a digest: add recipients on <a href="/notifications">Notifications</a> or
          in the configuration file (notify.email.to, notify.webhooks).
        </p>
      ) : (
        <>
          <nav aria-label="Recipients">
            <ul class="tabs">
              {previews.map((p) => (
                <li>
                  {p === shown ? (
                    <strong aria-current="page">{p.recipient}</strong>
                  ) : (
                    <a href={`/digests/preview?${query(p.recipient)}`}>{p.recipient}</a>
                  )}
                </li>
              ))}
            </ul>
          </nav>
          {shown === undefined ? null : (
            <section aria-label={`The digest to ${shown.recipient}`}>
              <h2>{shown.subject}</h2>
              <p>
                To {shown.recipient}.{' '}
                <a href={`/digests/preview/email.html?${query(shown.recipient)}`}>
                  The email as HTML
                </a>
              </p>
              {canSend ? (
                <form method="post" action="/digests/send">
                  <input type="hidden" name="to" value={shown.recipient} />
                  <input type="hidden" name="since" value={since} />
                  <button type="submit">Send now to {shown.recipient}</button>
                </form>
              ) : (
                <p class="muted">Sign in with the admin token to send it now.</p>
              )}
              <pre class="wrap">{shown.text}</pre>
            </section>
          )}
        </>
      )}
    </Layout>
  );
};
