/**
 * Alerts: which change events go where (DESIGN.md: "alert"). Pure: takes the events of
 * one check and a site's targets, returns what to send.
 */
import type { ChangeEvent, ChangeEventType } from './events.js';

/** The events that alert when the configuration does not say. */
export const DEFAULT_ALERT_EVENTS: readonly ChangeEventType[] = [
  'newly_disallowed',
  'fetch_status_changed',
];

export interface WebhookTarget {
  readonly url: string;
  /** Signs each delivery with HMAC-SHA256 when set. */
  readonly secret: string | undefined;
  /** `json`: the events as they are; `slack`: a readable `text` (Slack, Mattermost, …). */
  readonly format: 'json' | 'slack';
}

/** Where a site's alerts go, and which events alert. */
export interface AlertTargets {
  readonly email: readonly string[];
  readonly webhooks: readonly WebhookTarget[];
  readonly events: readonly ChangeEventType[];
}

/** One notification to queue: a site's alerting events of one check, for one channel. */
export type AlertDraft =
  | {
      readonly channel: 'email';
      readonly to: readonly string[];
      readonly site: string;
      readonly events: readonly ChangeEvent[];
    }
  | {
      readonly channel: 'webhook';
      readonly url: string;
      readonly format: WebhookTarget['format'];
      readonly site: string;
      readonly events: readonly ChangeEvent[];
    };

/**
 * Routes the events of one check of one site: the types the site alerts on, in one email
 * to all its recipients and one POST per webhook, or nothing if no event alerts.
 */
export function routeAlerts(
  site: string,
  events: readonly ChangeEvent[],
  targets: AlertTargets,
): AlertDraft[] {
  const alerting = rankEvents(events.filter((e) => targets.events.includes(e.type)));
  if (alerting.length === 0) return [];
  const drafts: AlertDraft[] = [];
  if (targets.email.length > 0)
    drafts.push({ channel: 'email', to: targets.email, site, events: alerting });
  for (const webhook of targets.webhooks) {
    drafts.push({
      channel: 'webhook',
      url: webhook.url,
      format: webhook.format,
      site,
      events: alerting,
    });
  }
  return drafts;
}

/**
 * How much an event matters to a site owner, most first: a page newly blocked; the file
 * becoming unreachable (everything blocked); other status changes; a page unblocked; the
 * rules and sitemaps themselves.
 */
export function importance(event: ChangeEvent): number {
  switch (event.type) {
    case 'newly_disallowed':
      return 0;
    case 'fetch_status_changed':
      return event.after.access === 'unreachable' ? 1 : 2;
    case 'newly_allowed':
      return 3;
    case 'rules_changed':
      return 4;
    case 'sitemaps_changed':
      return 5;
  }
}

/** Events in order of importance; the original order within the same importance. */
export function rankEvents(events: readonly ChangeEvent[]): ChangeEvent[] {
  return events
    .map((event, index) => ({ event, index }))
    .sort((a, b) => importance(a.event) - importance(b.event) || a.index - b.index)
    .map(({ event }) => event);
}

/** What a queued notification asks to send. */
export type OutboxPayload =
  | {
      readonly kind: 'alert';
      readonly site: string;
      readonly events: readonly ChangeEvent[];
      readonly format?: WebhookTarget['format'];
    }
  | { readonly kind: 'digest'; readonly digestId: number };

/** A queued notification, as a channel sends it. */
export interface Delivery {
  readonly id: number;
  /** Identifies the notification to its receiver (Message-ID, a webhook header), resends included. */
  readonly key: string;
  readonly channel: 'email' | 'webhook';
  /** Recipients of an email (comma-separated), or a webhook's URL. */
  readonly destination: string;
  readonly payload: OutboxPayload;
  readonly attempts: number;
  readonly createdAt: Date;
}

/** Sends deliveries of one kind; throws when the receiver did not accept one. */
export interface Channel {
  send(delivery: Delivery): Promise<void>;
}

/** Exponential backoff with a cap: base × 2^attempts, at most max. */
export function retryDelay(
  attempts: number,
  retry: { readonly baseDelayMs: number; readonly maxDelayMs: number },
): number {
  return Math.min(retry.baseDelayMs * 2 ** Math.min(attempts, 30), retry.maxDelayMs);
}
