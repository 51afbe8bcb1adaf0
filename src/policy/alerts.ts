/**
 * Alerts (DESIGN.md: "alert"): which changes go where. Pure: takes the events and causes
 * of one check and a site's targets, returns what to send.
 */
import { CHANGED_TOPICS, causeAlerts, DEFAULT_ALERT_TOPICS } from './changes/cause-model.js';
import type { AlertTopic, ChangeCause } from './changes/cause-model.js';
import type { ChangeEvent, ChangeEventType } from './changes/events.js';
import type { IncidentPayload } from './incident-alerts.js';

/** The topics that alert when the configuration does not say. */
export const DEFAULT_ALERT_EVENTS: readonly AlertTopic[] = DEFAULT_ALERT_TOPICS;

/**
 * What a webhook receives: `json`, the causes and events as they are; `slack`, a readable
 * `text` (Slack, Mattermost, …); `teams`, an Adaptive Card; `discord`, an embed;
 * `telegram`, a Bot API sendMessage; `pagerduty`, Events API v2 events (incidents only).
 */
export const WEBHOOK_FORMATS = [
  'json',
  'slack',
  'teams',
  'discord',
  'telegram',
  'pagerduty',
] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface WebhookTarget {
  /**
   * Where to POST. PagerDuty's routing key and Telegram's chat ride in the fragment
   * (`#routing_key=…`, `#chat_id=…`), never sent as part of the URL: one target per key.
   */
  readonly url: string;
  /** Signs each delivery with HMAC-SHA256 when set. */
  readonly secret: string | undefined;
  readonly format: WebhookFormat;
}

/** Where a site's alerts go, and which changes alert (`notify.events`). */
export interface AlertTargets {
  readonly email: readonly string[];
  readonly webhooks: readonly WebhookTarget[];
  readonly events: readonly AlertTopic[];
}

/** Whether a site's alerts reach anyone: it has a recipient or a webhook (else none is queued). */
export function reachesAnyone(targets: AlertTargets): boolean {
  return targets.email.length > 0 || targets.webhooks.length > 0;
}

/** A cause as an alert carries it: whether it is one of the changes that alert. */
export type AlertCause = ChangeCause & { readonly alerts: boolean };

/** What one alert says: the site's changes of one check. */
export interface AlertContent {
  readonly site: string;
  /** What people call the site (its `name`), absent when it has none. */
  readonly name?: string;
  /** The change events of the alerting types (the machine interface, as today). */
  readonly events: readonly ChangeEvent[];
  /** Every cause of the check, most severe first, each marked whether it alerts. */
  readonly causes: readonly AlertCause[];
  /** The crawlers watched on the site, for saying crawler lists ("every crawler but …"). */
  readonly agents: readonly string[];
}

/** One notification to queue: a site's alert of one check, for one channel. */
export type AlertDraft = AlertContent &
  (
    | { readonly channel: 'email'; readonly to: readonly string[] }
    | {
        readonly channel: 'webhook';
        readonly url: string;
        readonly format: WebhookTarget['format'];
      }
  );

/**
 * Routes the changes of one check of one site: when one of its causes falls under the
 * site's topics, one email to all its recipients and one POST per webhook; else nothing.
 */
export function routeAlerts(
  site: string,
  events: readonly ChangeEvent[],
  causes: readonly ChangeCause[],
  targets: AlertTargets,
  agents: readonly string[],
  name: string | null = null,
): AlertDraft[] {
  const marked = causes.map((cause) => ({ ...cause, alerts: causeAlerts(cause, targets.events) }));
  if (!marked.some((c) => c.alerts)) return [];
  const content: AlertContent = {
    site,
    ...(name === null ? {} : { name }),
    events: rankEvents(
      events.filter((e) => {
        const topics = targets.events as readonly string[];
        return (
          topics.includes(e.type) ||
          (topics.includes('changed') && (CHANGED_TOPICS as readonly string[]).includes(e.type))
        );
      }),
    ),
    causes: marked,
    agents,
  };
  const drafts: AlertDraft[] = [];
  if (targets.email.length > 0) drafts.push({ ...content, channel: 'email', to: targets.email });
  // PagerDuty pages for incidents, not for each change.
  for (const webhook of targets.webhooks.filter((w) => w.format !== 'pagerduty'))
    drafts.push({ ...content, channel: 'webhook', url: webhook.url, format: webhook.format });
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

export type { ChangeEventType };

/** What a queued notification asks to send. */
export type OutboxPayload = AlertPayload | IncidentPayload | DigestPayload | TestPayload;

/**
 * A test notification ("Send a test" in the web UI and API): sent at once, never queued,
 * so that whoever set a channel up sees whether its messages arrive.
 */
export interface TestPayload {
  readonly kind: 'test';
  /** Whose alerts the channel carries: a site's origin, or null for the defaults. */
  readonly site: string | null;
  readonly format?: WebhookTarget['format'];
}

/**
 * An alert as queued: its content, where it points in the web UI, and when it was seen.
 * Rows queued by an older robowatch have only `site` and `events`.
 */
export interface AlertPayload extends Partial<Omit<AlertContent, 'site' | 'events'>> {
  readonly kind: 'alert';
  readonly site: string;
  readonly events: readonly ChangeEvent[];
  readonly format?: WebhookTarget['format'];
  readonly siteId?: number;
  readonly snapshotId?: number;
  /** The snapshot compared with, for the link to the diff. */
  readonly previousId?: number | null;
  /** When the check that saw the change ran (ISO 8601). */
  readonly checkedAt?: string;
}

/** A digest as queued: the recorded digest to send (and, for webhooks, in what form). */
export interface DigestPayload {
  readonly kind: 'digest';
  readonly digestId: number;
  readonly format?: WebhookTarget['format'];
}

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
