/** The notification channels as the page and the API show them, and their test. */
import { HTTPException } from 'hono/http-exception';
import { oneLine } from '../lib/errors.js';
import { viewNotifications } from '../monitor/views/notifications.js';
import type { NotificationChannel, NotificationsView } from '../monitor/views/notifications.js';
import type { WebDeps } from './deps.js';
import type { ConfiguredSites } from './sites.js';

export async function notificationsNow(
  deps: WebDeps,
  sites: ConfiguredSites,
): Promise<NotificationsView> {
  const [entries, failing] = await Promise.all([sites.all(), deps.store.failingChannels()]);
  return viewNotifications(deps.catalog.config, entries, failing);
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
  deps: WebDeps,
  sites: ConfiguredSites,
  id: string,
): Promise<TestResult> {
  const { channels } = await notificationsNow(deps, sites);
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
