/**
 * The notification channels: where alerts and digests go (the defaults, and each site
 * with recipients of its own), which of them are failing now, and what "Send a test"
 * sends to. Built from the running configuration and the outbox.
 */
import type { WebhookFormat } from '../../policy/alerts.js';
import type { Config, SiteConfig } from '../../config/config.js';
import { redactUrl } from '../../lib/redact.js';
import type { AlertTopic } from '../../policy/changes/cause-model.js';
import type { FailingChannel } from '../records.js';

export interface NotificationChannel {
  /** Names it in "Send a test": `email`, `webhook:0`, `site:12:email`, `site:12:webhook:0`. */
  readonly id: string;
  readonly kind: 'email' | 'webhook';
  /** The site whose own recipients these are; null for the defaults. */
  readonly site: {
    readonly id: number;
    readonly origin: string;
    readonly name: string | null;
  } | null;
  /** Where it sends: the recipients, or the webhook's URL (which may hold a secret). */
  readonly destination: string;
  /** What may be shown: the recipients, or the webhook's origin only. */
  readonly shown: string;
  readonly format: WebhookFormat | null;
  readonly signed: boolean;
  /** Which changes alert through it. */
  readonly events: readonly AlertTopic[];
  /** Its notifications that are failing now, if any. */
  readonly failing: FailingChannel | null;
}

export interface NotificationsView {
  /** The SMTP server (host and port only) and the sender; null without notify.email. */
  readonly email: { readonly server: string; readonly from: string } | null;
  readonly channels: readonly NotificationChannel[];
  /** Every channel failing now, those no longer configured too. */
  readonly failing: readonly FailingChannel[];
}

/** The SMTP server as it may be shown: scheme, host and port, never the password. */
export function smtpServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(not a URL)';
  }
}

export function viewNotifications(
  config: Config,
  sites: readonly { readonly id: number; readonly site: SiteConfig }[],
  failing: readonly FailingChannel[],
): NotificationsView {
  const defaults = config.notify.defaults;
  const failingEmail = failing.find((f) => f.channel === 'email') ?? null;
  const failingWebhook = (url: string) =>
    failing.find((f) => f.channel === 'webhook' && f.destination === url) ?? null;
  const channels: NotificationChannel[] = [];
  const add = (
    prefix: string,
    site: NotificationChannel['site'],
    targets: SiteConfig['alerts'],
    own: { email: boolean; webhooks: boolean },
  ) => {
    if (own.email && targets.email.length > 0 && config.notify.email !== undefined) {
      const to = targets.email.join(', ');
      channels.push({
        id: `${prefix}email`,
        kind: 'email',
        site,
        destination: to,
        shown: to,
        format: null,
        signed: false,
        events: targets.events,
        failing: failingEmail,
      });
    }
    if (own.webhooks)
      targets.webhooks.forEach((w, i) =>
        channels.push({
          id: `${prefix}webhook:${i}`,
          kind: 'webhook',
          site,
          destination: w.url,
          shown: redactUrl(w.url),
          format: w.format,
          signed: w.secret !== undefined,
          events: targets.events,
          failing: failingWebhook(w.url),
        }),
      );
  };
  add('', null, defaults, { email: true, webhooks: true });
  for (const { id, site } of sites) {
    // A list a site does not set is the default's own array: only its own are listed.
    add(`site:${id}:`, { id, origin: site.origin, name: site.name }, site.alerts, {
      email: site.alerts.email !== defaults.email,
      webhooks: site.alerts.webhooks !== defaults.webhooks,
    });
  }
  return {
    email:
      config.notify.email === undefined
        ? null
        : { server: smtpServer(config.notify.email.smtp), from: config.notify.email.from },
    channels,
    failing,
  };
}

/** A failing channel in a sentence for a person: what fails, since when, and what it means. */
export function failingText(f: FailingChannel): string {
  const what =
    f.channel === 'email'
      ? 'Email notifications'
      : `Notifications to the webhook ${redactUrl(f.destination ?? '')}`;
  return `${what} have failed since ${f.since.toISOString().slice(0, 16).replace('T', ' ')}Z (${f.waiting} waiting, retried automatically): ${f.error}`;
}
