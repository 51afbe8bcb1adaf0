import { randomUUID } from 'node:crypto';
import type { Channel, Delivery } from '../../policy/alerts.js';
import type { NotificationChannel } from '../views/notifications.js';

/**
 * Sends a test to one channel at once (Send a test), never queued: a notification of
 * kind `test` for the channel's site, in its format.
 */
export async function sendTestNotification(
  channels: Partial<Record<Delivery['channel'], Channel>>,
  channel: NotificationChannel,
  now: Date,
): Promise<void> {
  const sender = channels[channel.kind];
  if (sender === undefined)
    throw new Error('email needs notify.email (the SMTP server to send from)');
  await sender.send({
    id: 0,
    key: randomUUID(),
    channel: channel.kind,
    destination: channel.destination,
    payload: {
      kind: 'test',
      site: channel.site?.origin ?? null,
      ...(channel.format === null ? {} : { format: channel.format }),
    },
    attempts: 0,
    createdAt: now,
  });
}
