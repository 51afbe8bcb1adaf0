/**
 * Notifications as documents: where alerts go (the mail server, each channel, those
 * failing), the default recipients, a channel's test, and the digests as they would be
 * sent now. A webhook is shown by its origin only: its path may hold a secret.
 */
import { WEBHOOK_FORMATS } from '../../policy/alerts.js';
import { z } from 'zod';
import { redactUrl } from '../../lib/redact.js';
import { ALERT_TOPICS } from '../../policy/changes/cause-model.js';
import type { FailingChannel } from '../records.js';
import type { NotificationChannel } from '../views/notifications.js';
import { Id, list, Timestamp } from './common.js';

/** A channel whose notifications are failing now. */
export const FailingDocument = z
  .object({
    channel: z.enum(['email', 'webhook']),
    destination: z
      .string()
      .nullable()
      .meta({ description: 'a webhook by its origin; null for email' }),
    since: Timestamp,
    waiting: z.number().int(),
    error: z.string(),
  })
  .meta({ id: 'FailingChannel' });

/** A failing channel as the API and /healthz show it: a webhook by its origin only. */
export function failingDocument(f: FailingChannel) {
  return {
    channel: f.channel,
    destination: f.destination === null ? null : redactUrl(f.destination),
    since: f.since,
    waiting: f.waiting,
    error: f.error,
  };
}

/** Where alerts go: the defaults', or one site's own recipients. */
export const ChannelDocument = z
  .object({
    id: z.string().meta({ description: 'email, webhook:0, site:12:email, site:12:webhook:0' }),
    kind: z.enum(['email', 'webhook']),
    site: z.object({ id: Id, origin: z.string(), name: z.string().nullable() }).nullable(),
    to: z.string(),
    format: z.enum(WEBHOOK_FORMATS).nullable(),
    signed: z.boolean(),
    events: list(z.enum(ALERT_TOPICS)),
    failing: FailingDocument.nullable(),
  })
  .meta({ id: 'Channel' });

export function channelDocument(c: NotificationChannel) {
  return {
    id: c.id,
    kind: c.kind,
    site: c.site,
    to: c.shown,
    format: c.format,
    signed: c.signed,
    events: c.events,
    failing: c.failing === null ? null : failingDocument(c.failing),
  };
}

export const NotificationsDocument = z
  .object({
    email: z.object({ server: z.string(), from: z.string() }).nullable(),
    channels: list(ChannelDocument),
    failing: list(FailingDocument),
  })
  .meta({ id: 'Notifications' });

const Webhook = z.object({ url: z.string(), format: z.string(), signed: z.boolean() });
const Recipients = z.object({ email: list(z.string()), webhooks: list(Webhook) });

/** The default recipients and webhooks: the configuration file's, and those added here. */
export const DefaultsDocument = z
  .object({ file: Recipients, added: Recipients })
  .meta({ id: 'NotificationDefaults' });

type Hooks = readonly { url: string; format?: string; secret?: string }[];

export function defaultsDocument(
  file: { email: readonly string[]; webhooks: Hooks },
  added: { email: readonly string[]; webhooks: Hooks },
) {
  const hooks = (list: Hooks) =>
    list.map((w) => ({
      url: redactUrl(w.url),
      format: w.format ?? 'json',
      signed: w.secret !== undefined,
    }));
  return {
    file: { email: file.email, webhooks: hooks(file.webhooks) },
    added: { email: added.email, webhooks: hooks(added.webhooks) },
  };
}

/** The body of POST /api/v1/notifications/test. */
export const ChannelTestRequest = z.strictObject({
  channel: z.string({ error: 'must be a channel id' }).min(1, 'must be a channel id'),
});

export const ChannelTestDocument = z
  .object({ sent: z.literal(true), channel: ChannelDocument, message: z.string() })
  .meta({ id: 'ChannelTest' });

/** The digests of a period as they would be sent now. */
export const DigestPreviewDocument = z
  .object({
    period: z.object({ start: Timestamp, end: Timestamp }),
    digests: list(z.object({ recipient: z.string(), subject: z.string(), text: z.string() })),
  })
  .meta({ id: 'DigestPreview' });

/** "Send now": which digests to record and queue. */
export const DigestSendRequest = z.strictObject({
  to: z.string().min(1, 'must be a recipient (see GET /api/v1/digests/preview)').optional(),
  since: z.string().min(1, 'must be a duration such as 7d').optional(),
});

/** What "Send now" did, per recipient. */
export const DigestSentDocument = z
  .object({
    period: z.object({ start: Timestamp, end: Timestamp }),
    digests: list(
      z.object({
        recipient: z.string(),
        /** The recorded digest (GET /digests/ID in the UI); null: sent before for this period. */
        id: z.number().int().nullable(),
        queued: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'DigestSent' });
