/**
 * A queued notification rendered, exactly as its channel sends it: the webhook channel
 * sends what this renders, and the alert log shows it again. Rendering is pure and keyed
 * by the delivery, so the same delivery renders the same body: an email's subject, text
 * and HTML; a webhook's body in its format (JSON, Slack, Teams, Discord, Telegram,
 * PagerDuty).
 */
import type { Delivery, WebhookFormat } from '../policy/alerts.js';
import { alertLink, alertSubject, renderAlertEmail, renderWebhookBody } from './render-alert.js';
import type { RenderContext, RenderedEmail } from './render-alert.js';
import {
  discordBody,
  incidentEvent,
  pagerDutyBodies,
  teamsBody,
  telegramBody,
} from './render-chat.js';
import type { ChatMessage } from './render-chat.js';
import { renderDigestWebhookBody } from './render-digest.js';
import type { StoredDigest } from './render-digest.js';
import {
  incidentModel,
  renderIncidentEmail,
  renderIncidentWebhookBody,
  incidentSubject,
} from './render-incident.js';
import { renderTestEmail, renderTestWebhookBody } from './render-test.js';

import type { RenderedDelivery } from '../monitor/records.js';

type Rendered = Pick<Delivery, 'key' | 'channel' | 'payload' | 'createdAt' | 'destination'>;

/** What a webhook delivery POSTs: where (the URL without its fragment), and its bodies. */
export interface WebhookRequests {
  readonly subject: string;
  readonly url: string;
  /** One request each, in order (a PagerDuty test is a trigger and its resolve). */
  readonly bodies: readonly string[];
}

export async function renderDelivery(
  delivery: Rendered,
  context: RenderContext,
  loadDigest: (id: number) => Promise<StoredDigest | undefined>,
): Promise<RenderedDelivery> {
  const { payload } = delivery;
  if (delivery.channel === 'webhook') {
    const requests = await webhookRequests(delivery, context, loadDigest);
    return requests === undefined
      ? { subject: `digest ${'digestId' in payload ? payload.digestId : ''} (no longer kept)` }
      : {
          subject: requests.subject,
          // PagerDuty's routing key lets anyone page the service: the log shows its end only.
          body: requests.bodies
            .map((b) =>
              b.replace(
                /"routing_key":"([^"]*)"/g,
                (_, key: string) => `"routing_key":"…${key.slice(-4)}"`,
              ),
            )
            .join('\n'),
        };
  }
  if (payload.kind === 'digest') {
    const digest = await loadDigest(payload.digestId);
    if (digest === undefined) return { subject: `digest ${payload.digestId} (no longer kept)` };
    return { subject: digest.subject, email: { text: digest.text, html: digest.html } };
  }
  const email: RenderedEmail =
    payload.kind === 'incident'
      ? renderIncidentEmail(payload, context)
      : payload.kind === 'alert'
        ? renderAlertEmail(payload, context)
        : renderTestEmail(payload, context);
  return { subject: email.subject, email: { text: email.text, html: email.html } };
}

/**
 * A webhook delivery's requests, as its format says them; undefined for a digest no
 * longer kept. PagerDuty's routing key and Telegram's chat come from the destination's
 * fragment, which is never sent.
 */
export async function webhookRequests(
  delivery: Rendered,
  context: RenderContext,
  loadDigest: (id: number) => Promise<StoredDigest | undefined>,
): Promise<WebhookRequests | undefined> {
  const { payload } = delivery;
  const format: WebhookFormat = ('format' in payload ? payload.format : undefined) ?? 'json';
  const target = new URL(delivery.destination);
  const params = new URLSearchParams(target.hash.slice(1));
  target.hash = '';
  const url = target.toString();
  const digest = payload.kind === 'digest' ? await loadDigest(payload.digestId) : undefined;
  if (payload.kind === 'digest' && digest === undefined) return undefined;
  const message = (): ChatMessage => chatMessage(payload, digest, context);
  const subject =
    payload.kind === 'incident'
      ? incidentSubject(payload, context)
      : payload.kind === 'alert'
        ? alertSubject(payload, context)
        : payload.kind === 'digest'
          ? digest!.subject
          : renderTestEmail(payload, context).subject;
  switch (format) {
    case 'teams':
      return { subject, url, bodies: [teamsBody(message())] };
    case 'discord':
      return { subject, url, bodies: [discordBody(message())] };
    case 'telegram':
      return { subject, url, bodies: [telegramBody(message(), params.get('chat_id') ?? '')] };
    case 'pagerduty':
      return {
        subject,
        url,
        bodies: pagerDutyBodies(message(), params.get('routing_key') ?? '', {
          base: context.links.base,
          key: delivery.key,
          test: payload.kind === 'test',
          at: delivery.createdAt,
        }),
      };
    case 'json':
    case 'slack': {
      const body =
        payload.kind === 'incident'
          ? renderIncidentWebhookBody(payload, format, delivery, context)
          : payload.kind === 'alert'
            ? renderWebhookBody(payload, format, delivery, context)
            : payload.kind === 'digest'
              ? renderDigestWebhookBody(digest!, format, delivery, context)
              : renderTestWebhookBody(payload, format, delivery, context);
      return { subject, url, bodies: [body] };
    }
  }
}

/** A notification as chat services show it: the email's words, one link. */
function chatMessage(
  payload: Delivery['payload'],
  digest: StoredDigest | undefined,
  context: RenderContext,
): ChatMessage {
  const linesOf = (text: string) => text.trimEnd().split('\n');
  switch (payload.kind) {
    case 'incident': {
      const model = incidentModel(payload, context);
      const { transition } = payload.incident;
      return {
        title: model.subject,
        lines: model.lines,
        link: { href: model.incidentsLink, text: `Incident #${payload.incident.id}` },
        tone:
          transition === 'resolved' ? 'fixed' : transition === 'acknowledged' ? 'info' : 'problem',
        page: incidentEvent(payload),
      };
    }
    case 'alert': {
      const email = renderAlertEmail(payload, context);
      return {
        title: email.subject,
        lines: linesOf(email.text),
        link: { href: alertLink(payload, context), text: 'What changed' },
        tone: 'problem',
      };
    }
    case 'digest':
      return {
        title: digest!.subject,
        lines: linesOf(digest!.text),
        link: { href: `${context.links.base}/digests/${digest!.id}`, text: 'The whole digest' },
        tone: 'info',
      };
    case 'test': {
      const email = renderTestEmail(payload, context);
      return {
        title: email.subject,
        lines: linesOf(email.text),
        link: { href: context.links.overview(), text: 'The sites' },
        tone: 'info',
      };
    }
  }
}
