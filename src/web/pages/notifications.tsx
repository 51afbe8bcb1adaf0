import type { FC } from 'hono/jsx';
import { redactUrl } from '../../lib/redact.js';
import type { DefaultChannels } from '../../monitor/sites/entries.js';
import { failingText } from '../../monitor/views/notifications.js';
import type { NotificationsView } from '../../monitor/views/notifications.js';
import type { TestResult } from '../notifications.js';
import { Layout, Notice, webhookReach } from './components.js';
import { webhookLines } from './site-form.js';
import type { WebhookFormat } from '../../policy/alerts.js';

/** The default-recipients form as typed. */
export interface ChannelsForm {
  readonly email: string;
  readonly webhooks: string;
}

const EVENT_WORDS: Record<string, string> = {
  newly_disallowed: 'pages newly blocked',
  newly_allowed: 'pages newly allowed',
  fetch_status_changed: 'robots.txt answering differently',
  file_condition_changed: 'robots.txt turning into something else',
  rules_changed: 'rules changed',
  sitemaps_changed: 'sitemaps changed',
  directives_changed: 'other lines changed',
  redirect_changed: 'robots.txt redirecting elsewhere',
  preferences_changed: 'AI usage preferences changed',
  coverage_changed: 'a share of the sitemaps newly blocked',
  fetch_status_same_effect: 'status changes with the same effect',
};

/** What a webhook receives, in words. */
const FORMAT_WORDS: Record<WebhookFormat, string> = {
  json: 'JSON',
  slack: 'Slack message',
  teams: 'Microsoft Teams card',
  discord: 'Discord message',
  telegram: 'Telegram message',
  pagerduty: 'PagerDuty events (incidents)',
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
  /** The default recipients and webhooks: the file's, and those added here. */
  defaults: DefaultChannels;
  /** Whether this request may change the defaults added here. */
  canEdit: boolean;
  /** What was just done, or the one line that says why not. */
  notice?: { readonly text: string; readonly error: boolean } | undefined;
  /** The defaults form as sent, when it was refused. */
  form?: ChannelsForm | undefined;
  /** The file the configuration was read from. */
  file: string;
  /** fetch.allowPrivateAddresses: where a webhook added here may be posted. */
  allowPrivate: boolean | 'loopback';
}> = ({
  view,
  signedIn,
  canSend,
  tokenSet,
  result,
  defaults,
  canEdit,
  notice,
  form,
  file,
  allowPrivate,
}) => (
  <Layout title="Notifications" signedIn={signedIn}>
    <h1>Notifications</h1>
    {result === undefined ? null : <Notice error={!result.sent}>{result.message}</Notice>}
    {notice === undefined ? null : <Notice error={notice.error}>{notice.text}</Notice>}
    {view.failing.map((f) => (
      <Notice error>{failingText(f)}</Notice>
    ))}
    <p>
      {view.email === null ? (
        <>
          No email: set <code>notify.email</code> (the SMTP server to send from) in the
          configuration file to send alerts and digests by email, then reload the daemon (
          <code class="nowrap">kill -HUP</code> its process): it applies without a restart.
        </>
      ) : (
        <>
          Email goes through <code>{view.email.server}</code>, from {view.email.from}.
        </>
      )}
    </p>
    <p>
      <a href="/alerts">The alert log</a>: every alert and digest sent, queued or failing, and
      exactly what each said.
    </p>
    <p class="muted">
      Every site without recipients of its own alerts the default recipients and webhooks: those of
      the configuration file and those added below. A site’s own are edited with the site (Edit on
      its page) and replace the defaults for that site. The mail server stays in the configuration
      file (it may hold a password).
    </p>
    {view.channels.length === 0 ? (
      <p class="muted">
        No channel is set up: incidents are recorded and shown on the{' '}
        <a href="/incidents">Incidents</a> page, and sent nowhere.
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
                      {FORMAT_WORDS[c.format ?? 'json']}
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
    <h2 id="defaults">Default recipients</h2>
    <dl class="facts">
      <dt>From {file}</dt>
      <dd>
        {[
          ...defaults.file.email,
          ...defaults.file.webhooks.map((w) => `webhook ${redactUrl(w.url)}`),
        ].join(', ') || 'none'}
      </dd>
      {canEdit ? null : (
        <>
          <dt>Added here</dt>
          <dd>
            {[
              ...defaults.added.email,
              ...defaults.added.webhooks.map((w) => `webhook ${redactUrl(w.url)}`),
            ].join(', ') || 'none'}
          </dd>
        </>
      )}
    </dl>
    {canEdit ? (
      <form method="post" action="/notifications/defaults" class="site-form">
        <label>
          Alert emails to
          <textarea name="email" rows={2}>
            {form?.email ?? defaults.added.email.join(', ')}
          </textarea>
          <span class="muted">
            Added to the file’s recipients; commas or lines between.
            {view.email === null ? ' Needs notify.email (the mail server) in the file.' : ''}
          </span>
        </label>
        <label>
          Webhooks
          <textarea name="webhooks" rows={2}>
            {form?.webhooks ?? webhookLines(defaults.added.webhooks)}
          </textarea>
          <span class="muted">
            One per line: the URL, then its format unless JSON: “slack”, “teams” (an Adaptive Card),
            “discord”, “telegram chat=ID” (the Bot API’s sendMessage URL), or “pagerduty
            routingKey=KEY” (Events API v2: pages for incidents only). A webhook kept by URL keeps
            its signing secret (secrets are set through the API). A webhook added here:{' '}
            {webhookReach(allowPrivate)}. The configuration file’s webhooks may be internal.
          </span>
        </label>
        <button type="submit">Save default recipients</button>
      </form>
    ) : (
      <p class="muted">
        Read-only: {tokenSet ? 'sign in' : 'set web.token in the configuration and sign in'} to add
        default recipients from the web.
      </p>
    )}
  </Layout>
);
