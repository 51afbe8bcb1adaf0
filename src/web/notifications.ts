/** The notification channels as the page and the API show them, and their test. */
import type { Context } from 'hono';
import type { WebEnv } from './auth.js';
import { HTTPException } from 'hono/http-exception';
import { oneLine } from '../lib/errors.js';
import { digestPeriod } from '../monitor/reads.js';
import type { DigestPeriod } from '../policy/digest.js';
import { parseDuration } from '../policy/wording/format.js';
import { viewNotifications } from '../monitor/views/notifications.js';
import type { NotificationChannel, NotificationsView } from '../monitor/views/notifications.js';
import type { WebDeps } from './deps.js';
import { tagLimit } from './sites.js';
import type { ConfiguredSites } from './sites.js';

export async function notificationsNow(
  c: Context<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
): Promise<NotificationsView> {
  const [entries, failing] = await Promise.all([sites.all(c), deps.store.failingChannels()]);
  const view = viewNotifications(deps.catalog.config, entries, failing);
  if (tagLimit(c).length === 0) return view;
  // Someone who sees some sites hears of the failures of their channels, no others.
  return {
    ...view,
    failing: view.failing.filter((f) => view.channels.some((n) => n.failing === f)),
  };
}

/** The outcome of "Send a test", in words for the page and the API. */
export interface TestResult {
  readonly channel: NotificationChannel;
  readonly sent: boolean;
  readonly message: string;
}

/**
 * Sends the test of the channel named `id`: 404 when there is no such channel (a reload
 * may have removed it), 503 when this process cannot send.
 */
export async function sendChannelTest(
  c: Context<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  id: string,
): Promise<TestResult> {
  const { channels } = await notificationsNow(c, deps, sites);
  const channel = channels.find((c) => c.id === id);
  if (channel === undefined)
    throw new HTTPException(404, {
      message: `there is no notification channel "${id.slice(0, 60)}" (see GET /api/v1/notifications)`,
    });
  if (deps.sendTest === undefined)
    throw new HTTPException(503, { message: 'this process cannot send notifications' });
  const to = channel.kind === 'email' ? channel.shown : `the webhook ${channel.shown}`;
  try {
    await deps.sendTest(channel);
  } catch (error) {
    deps.logger.warn({ channel: channel.id, error: oneLine(error) }, 'test notification failed');
    return { channel, sent: false, message: `The test to ${to} failed: ${oneLine(error)}` };
  }
  deps.logger.info({ channel: channel.id }, 'test notification sent');
  return {
    channel,
    sent: true,
    message: `A test was sent to ${to} and accepted${channel.kind === 'email' ? ' by the mail server: check the inbox (and the spam folder)' : ''}.`,
  };
}

/** The period a digest preview or Send now covers: the last `since` (7d, 24h…), to now. */
export function digestWindow(deps: WebDeps, since: string | undefined): DigestPeriod {
  const said = since === undefined || since.trim() === '' ? '7d' : since.trim();
  const ms = parseDuration(said);
  if (ms === undefined)
    throw new HTTPException(400, {
      message: `since must be a duration such as 7d, 24h or 2w, not "${said.slice(0, 40)}"`,
    });
  return digestPeriod(deps.now(), ms);
}

/** What "Send now" did for each recipient: queued (the digest's id), or sent before for the period. */
export interface DigestSent {
  readonly recipient: string;
  /** The recorded digest; null: this recipient's digest of the period was sent already. */
  readonly id: number | null;
}

/**
 * Records the digests of the period and queues their delivery now (one recipient, or
 * all): 404 for a recipient who receives none, 503 where this process cannot send.
 */
export async function sendDigestsNow(
  deps: WebDeps,
  period: DigestPeriod,
  recipient: string | undefined,
): Promise<DigestSent[]> {
  if (deps.sendDigests === undefined)
    throw new HTTPException(503, { message: 'this process cannot send digests' });
  const sent = await deps.sendDigests(period, recipient);
  if (recipient !== undefined && sent.length === 0)
    throw new HTTPException(404, {
      message: `${recipient.slice(0, 200)} receives no digest: it receives no site's alerts`,
    });
  deps.logger.info(
    { recipients: sent.map((d) => d.recipient), queued: sent.filter((d) => d.id !== null).length },
    'digest sent now from the web',
  );
  return sent.map((d) => ({ recipient: d.recipient, id: d.id }));
}
