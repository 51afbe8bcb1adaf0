/**
 * The alert log as documents: each notification (an alert, an incident's alert, a digest)
 * with its deliveries per channel and how each went, and, for one, exactly what was sent.
 */
import { WEBHOOK_FORMATS } from '../../policy/alerts.js';
import { z } from 'zod';
import { redactUrl } from '../../lib/redact.js';
import type { AlertLogDelivery, AlertLogEntry } from '../records.js';
import { Id, list, Next, Timestamp } from './common.js';

import type { RenderedDelivery } from '../records.js';

export type { RenderedDelivery };

const DeliveryState = z.enum(['queued', 'sent', 'failed']).meta({
  description:
    'queued: not tried yet (a resolution waits out the flap window); sent; failed: refused by its receiver, retried at nextAttemptAt',
});

export const AlertDeliveryDocument = z
  .object({
    id: Id,
    key: z.string().meta({
      description:
        'the X-Robowatch-Delivery header it is sent with, the same on every attempt (the receiver\'s log, robowatch\'s "notification sent" line)',
    }),
    channel: z.enum(['email', 'webhook']),
    destination: z.string().meta({ description: 'the recipients, or the webhook by origin' }),
    format: z.enum(WEBHOOK_FORMATS).nullable(),
    state: DeliveryState,
    attempts: z.number().int(),
    error: z.string().nullable(),
    sentAt: Timestamp.nullable(),
    nextAttemptAt: Timestamp.nullable(),
    content: z
      .object({
        email: z.object({ text: z.string(), html: z.string() }).optional(),
        body: z.string().optional(),
      })
      .optional()
      .meta({ description: 'exactly what was sent (GET /api/v1/alerts/{id} only)' }),
  })
  .meta({ id: 'AlertDelivery' });

export const AlertDocument = z
  .object({
    id: Id,
    site: Id.nullable(),
    origin: z.string().nullable(),
    kind: z.enum(['change', 'incident', 'digest']),
    incident: Id.nullable(),
    transition: z.enum(['opened', 'worse', 'resolved', 'reminder', 'acknowledged']).nullable(),
    subject: z.string(),
    createdAt: Timestamp,
    deliveries: list(AlertDeliveryDocument),
  })
  .meta({ id: 'Alert' });

export const AlertListDocument = z
  .object({ alerts: list(AlertDocument), next: Next })
  .meta({ id: 'AlertList' });

/** How a delivery went. */
export function deliveryState(d: Pick<AlertLogDelivery, 'sentAt' | 'attempts'>) {
  return d.sentAt !== null ? 'sent' : d.attempts > 0 ? 'failed' : 'queued';
}

export function alertDocument(
  entry: AlertLogEntry,
  subject: string,
  contents?: ReadonlyMap<number, RenderedDelivery>,
): z.input<typeof AlertDocument> {
  const { payload } = entry;
  return {
    id: entry.id,
    site: entry.siteId,
    origin: entry.origin,
    kind:
      payload.kind === 'incident' ? 'incident' : payload.kind === 'digest' ? 'digest' : 'change',
    incident: payload.kind === 'incident' ? payload.incident.id : null,
    transition: payload.kind === 'incident' ? payload.incident.transition : null,
    subject,
    createdAt: entry.createdAt.toISOString(),
    deliveries: entry.deliveries.map((d) => {
      const content = contents?.get(d.id);
      const format = 'format' in d.payload ? (d.payload.format ?? 'json') : null;
      return {
        id: d.id,
        key: d.key,
        channel: d.channel,
        destination: d.channel === 'webhook' ? redactUrl(d.destination) : d.destination,
        format: d.channel === 'webhook' ? format : null,
        state: deliveryState(d),
        attempts: d.attempts,
        error: d.error,
        sentAt: d.sentAt?.toISOString() ?? null,
        nextAttemptAt: d.sentAt === null ? d.nextAttemptAt.toISOString() : null,
        ...(content === undefined
          ? {}
          : {
              content: {
                ...(content.email === undefined ? {} : { email: content.email }),
                ...(content.body === undefined ? {} : { body: content.body }),
              },
            }),
      };
    }),
  };
}
