import type { FC } from 'hono/jsx';
import { failingText } from '../../monitor/view-notifications.js';
import type { NotificationsView } from '../../monitor/view-notifications.js';
import type { TestResult } from '../notifications.js';
import { Layout, Notice } from './components.js';

const EVENT_WORDS: Record<string, string> = {
  newly_disallowed: 'pages newly blocked',
  newly_allowed: 'pages newly allowed',
  fetch_status_changed: 'robots.txt answering differently',
  file_condition_changed: 'robots.txt turning into something else',
  rules_changed: 'rules changed',
  sitemaps_changed: 'sitemaps changed',
  directives_changed: 'other lines changed',
  fetch_status_same_effect: 'status changes with the same effect',
};

/**
 * Where alerts and digests go: the mail server, the default recipients and webhooks, the
 * sites with their own; which are failing; and "Send a test" for each.
 */
export const NotificationsPageView: FC<{
  view: NotificationsView;
  signedIn: boolean;
  /** Whether this request may send tests (the token is set and it is signed in). */
  canSend: boolean;
  /** Whether web.token is set (without it, nothing can be sent from the web). */
  tokenSet: boolean;
  result?: TestResult | undefined;
}> = ({ view, signedIn, canSend, tokenSet, result }) => (
  <Layout title="Notifications" signedIn={signedIn}>
    <h1>Notifications</h1>
    {result === undefined ? null : <Notice error={!result.sent}>{result.message}</Notice>}
    {view.failing.map((f) => (
      <Notice error>{failingText(f)}</Notice>
    ))}
    <p>
      {view.email === null ? (
        <>
          No email: set <code>notify.email</code> (the SMTP server to send from) in the
          configuration to send alerts and digests by email.
        </>
      ) : (
        <>
          Email goes through <code>{view.email.server}</code>, from {view.email.from}.
        </>
      )}
    </p>
    <p class="muted">
      The mail server and the default recipients come from the configuration file (they may hold
      passwords); a site’s own recipients and webhooks are edited with the site (Edit on its page),
      and override the defaults for that site.
    </p>
    {view.channels.length === 0 ? (
      <p class="muted">
        No channel is set up: alerts are recorded and shown here, and sent nowhere.
      </p>
    ) : (
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>For</th>
              <th>Channel</th>
              <th>Alerts on</th>
              <th>State</th>
              <th>Test</th>
            </tr>
          </thead>
          <tbody>
            {view.channels.map((c) => (
              <tr>
                <td>
                  {c.site === null ? (
                    'every site without its own'
                  ) : (
                    <a href={`/sites/${c.site.id}`}>{c.site.name ?? c.site.origin}</a>
                  )}
                </td>
                <td>
                  {c.kind === 'email' ? `Email to ${c.shown}` : `Webhook ${c.shown}`}
                  {c.kind === 'webhook' ? (
                    <div class="muted">
                      {c.format === 'slack' ? 'Slack message' : 'JSON'}
                      {c.signed ? ', signed' : ''}
                    </div>
                  ) : null}
                </td>
                <td>{c.events.map((e) => EVENT_WORDS[e] ?? e).join(', ')}</td>
                <td>
                  {c.failing === null ? (
                    <span class="access access-ok">working</span>
                  ) : (
                    <span class="access access-unreachable" title={c.failing.error}>
                      failing ({c.failing.waiting} waiting)
                    </span>
                  )}
                </td>
                <td>
                  {canSend ? (
                    <form class="inline" method="post" action="/notifications/test">
                      <input type="hidden" name="channel" value={c.id} />
                      <button type="submit">Send a test</button>
                    </form>
                  ) : (
                    <span class="muted">
                      {tokenSet ? 'sign in to send a test' : 'needs web.token to send a test'}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </Layout>
);
