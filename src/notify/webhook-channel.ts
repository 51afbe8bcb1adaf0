import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import type { Channel, Delivery } from '../policy/alerts.js';
import { renderWebhookBody } from './render-alert.js';
import { renderIncidentWebhookBody } from './render-incident.js';
import { renderTestWebhookBody } from './render-test.js';
import type { RenderContext } from './render-alert.js';
import { renderDigestWebhookBody } from './render-digest.js';
import type { StoredDigest } from './render-digest.js';
import { redactUrl } from '../lib/redact.js';

export interface WebhookChannelOptions {
  readonly dispatcher: Dispatcher;
  /** The secret configured for a webhook URL, if any (secrets never enter the outbox). */
  secretFor(url: string): string | undefined;
  readonly userAgent: string;
  readonly timeoutMs: number;
  /** A recorded digest; undefined if there is no such digest. */
  loadDigest(id: number): Promise<StoredDigest | undefined>;
  /** Where the web UI is and the time zone, when an alert is sent. */
  context(): RenderContext;
}

/** The signature header: HMAC-SHA256 of the exact body with the webhook's secret. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * POSTs alerts and digests as JSON (or a Slack `text`). Headers: X-Robowatch-Delivery (the same on
 * every attempt: receivers can drop a repeat), X-Robowatch-Signature when a secret is set.
 * Anything but a 2xx is a failure, retried later.
 */
export function createWebhookChannel(options: WebhookChannelOptions): Channel {
  return {
    async send(delivery: Delivery): Promise<void> {
      const { payload } = delivery;
      let body: string;
      if (payload.kind === 'alert')
        body = renderWebhookBody(payload, payload.format ?? 'json', delivery, options.context());
      else if (payload.kind === 'incident')
        body = renderIncidentWebhookBody(
          payload,
          payload.format ?? 'json',
          delivery,
          options.context(),
        );
      else if (payload.kind === 'test')
        body = renderTestWebhookBody(
          payload,
          payload.format ?? 'json',
          delivery,
          options.context(),
        );
      else {
        const digest = await options.loadDigest(payload.digestId);
        if (digest === undefined) throw new Error(`digest ${payload.digestId} is not in the store`);
        body = renderDigestWebhookBody(
          digest,
          payload.format ?? 'json',
          delivery,
          options.context(),
        );
      }
      const secret = options.secretFor(delivery.destination);
      // A deadline cleared when the request ends, so that nothing aborts it afterwards.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
      let response: Dispatcher.ResponseData;
      try {
        response = await request(delivery.destination, {
          method: 'POST',
          dispatcher: options.dispatcher,
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': options.userAgent,
            'x-robowatch-delivery': delivery.key,
            ...(secret === undefined ? {} : { 'x-robowatch-signature': signBody(body, secret) }),
          },
          signal: deadline.signal,
        });
        await response.body.dump();
      } finally {
        clearTimeout(timer);
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new Error(`${redactUrl(delivery.destination)} answered ${response.statusCode}`);
      }
    },
  };
}
