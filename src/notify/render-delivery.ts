/**
 * A queued notification rendered again, exactly as its channel sends it (the alert log
 * shows what was sent): an email's subject, text and HTML, a webhook's body. Rendering is
 * pure and keyed by the delivery, so the same delivery renders the same body.
 */
import type { Delivery } from '../policy/alerts.js';
import { alertSubject, renderAlertEmail, renderWebhookBody } from './render-alert.js';
import type { RenderContext, RenderedEmail } from './render-alert.js';
import { renderDigestWebhookBody } from './render-digest.js';
import type { StoredDigest } from './render-digest.js';
import {
  renderIncidentEmail,
  renderIncidentWebhookBody,
  incidentSubject,
} from './render-incident.js';
import { renderTestEmail, renderTestWebhookBody } from './render-test.js';

import type { RenderedDelivery } from '../monitor/records.js';

export async function renderDelivery(
  delivery: Pick<Delivery, 'key' | 'channel' | 'payload' | 'createdAt'>,
  context: RenderContext,
  loadDigest: (id: number) => Promise<StoredDigest | undefined>,
): Promise<RenderedDelivery> {
  const { payload } = delivery;
  const format = ('format' in payload ? payload.format : undefined) ?? 'json';
  if (payload.kind === 'digest') {
    const digest = await loadDigest(payload.digestId);
    if (digest === undefined) return { subject: `digest ${payload.digestId} (no longer kept)` };
    return delivery.channel === 'email'
      ? { subject: digest.subject, email: { text: digest.text, html: digest.html } }
      : {
          subject: digest.subject,
          body: renderDigestWebhookBody(digest, format, delivery, context),
        };
  }
  let email: RenderedEmail;
  if (payload.kind === 'incident') {
    if (delivery.channel === 'webhook')
      return {
        subject: incidentSubject(payload, context),
        body: renderIncidentWebhookBody(payload, format, delivery, context),
      };
    email = renderIncidentEmail(payload, context);
  } else if (payload.kind === 'alert') {
    if (delivery.channel === 'webhook')
      return {
        subject: alertSubject(payload, context),
        body: renderWebhookBody(payload, format, delivery, context),
      };
    email = renderAlertEmail(payload, context);
  } else {
    email = renderTestEmail(payload, context);
    if (delivery.channel === 'webhook')
      return {
        subject: email.subject,
        body: renderTestWebhookBody(payload, format, delivery, context),
      };
  }
  return { subject: email.subject, email: { text: email.text, html: email.html } };
}
