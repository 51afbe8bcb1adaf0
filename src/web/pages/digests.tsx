import type { FC } from 'hono/jsx';
import type { DigestRecord } from '../../monitor/records.js';
import { Layout, Time, day } from './components.js';

/** The digests sent, newest first. */
export const DigestsPageView: FC<{
  digests: readonly (DigestRecord & { id: number })[];
  signedIn: boolean;
}> = ({ digests, signedIn }) => (
  <Layout title="Digests" signedIn={signedIn}>
    <h1>Digests</h1>
    {digests.length === 0 ? (
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
    <pre>{digest.text}</pre>
  </Layout>
);
