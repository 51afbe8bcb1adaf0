import { createHmac } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Channel, Delivery } from '../policy/alerts.js';
import type { RenderContext } from './render-alert.js';
import type { StoredDigest } from './render-digest.js';
import { webhookRequests } from './render-delivery.js';
import { redactUrl } from '../lib/redact.js';

export interface WebhookChannelOptions {
  readonly dispatcher: Pick<Dispatcher, 'request'>;
  /** The secret configured for a webhook URL, if any (secrets never enter the outbox). */
  secretFor(url: string): string | undefined;
  readonly userAgent: string;
  readonly timeoutMs: number;
  /** A recorded digest; undefined if there is no such digest. */
  loadDigest(id: number): Promise<StoredDigest | undefined>;
  /** Where the web UI is and the time zone, when an alert is sent. */
  context(): RenderContext;
  /**
   * The SSRF guard for webhooks the configuration file does not list (added in the UI or
   * API): posted through a dispatcher that connects to public addresses only, and refused
   * at once when the URL itself names a private one. Without it, every webhook is posted
   * through `dispatcher`.
   */
  readonly guard?: WebhookGuard;
}

export interface WebhookGuard {
  /** Whether a webhook (its configured URL) must reach a public address. */
  applies(destination: string): boolean;
  readonly dispatcher: Pick<Dispatcher, 'request'>;
  /** Why a URL may not be posted to (it names a private address), or undefined. */
  refusal(url: URL): string | undefined;
}

/** What the guard says when it refuses, after the address: how to allow it. */
const GUARD_ADVICE =
  'robowatch posts to private addresses only for the webhooks the configuration file lists, or with fetch.allowPrivateAddresses';

/** The signature header: HMAC-SHA256 of the exact body with the webhook's secret. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * POSTs alerts, incidents and digests in the webhook's format (JSON, Slack, Teams,
 * Discord, Telegram, PagerDuty). Headers: X-Robowatch-Delivery (the same on every
 * attempt: receivers can drop a repeat), X-Robowatch-Signature when a secret is set.
 * Anything but a 2xx is a failure, retried later, with what the receiver said.
 */
export function createWebhookChannel(options: WebhookChannelOptions): Channel {
  return {
    async send(delivery: Delivery): Promise<void> {
      const requests = await webhookRequests(delivery, options.context(), (id) =>
        options.loadDigest(id),
      );
      if (requests === undefined) {
        const { payload } = delivery;
        throw new Error(
          `digest ${'digestId' in payload ? payload.digestId : ''} is not in the store`,
        );
      }
      const secret = options.secretFor(delivery.destination);
      for (const body of requests.bodies) await post(options, delivery, requests.url, body, secret);
    },
  };
}

/** One POST; anything but a 2xx is a failure, with what the receiver said. */
async function post(
  options: WebhookChannelOptions,
  delivery: Delivery,
  url: string,
  body: string,
  secret: string | undefined,
): Promise<void> {
  const target = new URL(url);
  const guard = options.guard?.applies(delivery.destination) === true ? options.guard : undefined;
  const refused = guard?.refusal(target);
  if (refused !== undefined)
    throw new Error(`${redactUrl(delivery.destination)} is refused: ${GUARD_ADVICE} (${refused})`);
  const dispatcher = guard?.dispatcher ?? options.dispatcher;
  // A deadline cleared when the request ends, so that nothing aborts it afterwards.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  let response: Dispatcher.ResponseData;
  let said: string;
  try {
    // The dispatcher's own request (undici's top-level request() would load its index).
    response = await dispatcher.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent,
        'x-robowatch-delivery': delivery.key,
        ...(secret === undefined ? {} : { 'x-robowatch-signature': signBody(body, secret) }),
      },
      signal: deadline.signal,
    });
    said = await answerOf(response);
  } catch (error) {
    // The guard's lookup found only private addresses for the webhook's host.
    if (blockedByGuard(error))
      throw new Error(`${redactUrl(delivery.destination)} is refused: ${GUARD_ADVICE}`, {
        cause: error,
      });
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (response.statusCode < 200 || response.statusCode > 299)
    throw new Error(
      `${redactUrl(delivery.destination)} answered ${response.statusCode}${said === '' ? '' : `: ${said}`}`,
    );
}

/** What a receiver said, in a line: Telegram's `description`, PagerDuty's `errors`, or the start of the body. */
async function answerOf(response: Dispatcher.ResponseData): Promise<string> {
  if (response.statusCode >= 200 && response.statusCode <= 299) {
    await response.body.dump();
    return '';
  }
  let text = '';
  for await (const chunk of response.body) {
    if (text.length < 2_000) text += Buffer.from(chunk as Uint8Array).toString('utf8');
  }
  try {
    const json = JSON.parse(text) as { description?: unknown; errors?: unknown; message?: unknown };
    const said = json.description ?? json.errors ?? json.message;
    if (said !== undefined) text = typeof said === 'string' ? said : JSON.stringify(said);
  } catch {
    // Not JSON: its first words.
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** Whether an error (or its cause) is the SSRF guard's refusal of an address. */
function blockedByGuard(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause)
    if ((e as { code?: unknown }).code === 'ROBOWATCH_BLOCKED_ADDRESS') return true;
  return false;
}
