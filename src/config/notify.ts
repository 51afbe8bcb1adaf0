import type { AlertTargets, WebhookTarget } from '../policy/alerts.js';

export type { AlertTargets, WebhookTarget };
import { ConfigError } from './errors.js';
import type { ConfigFile, WebhookEntry } from './schema.js';

export interface NotifyConfig {
  /** The SMTP server to send from; undefined: no email. */
  readonly email: { readonly smtp: string; readonly from: string } | undefined;
  /** Targets of sites that name none of their own. */
  readonly defaults: AlertTargets;
  /**
   * The URLs among the defaults' webhooks that were added in the UI or API, not written in
   * the file (their deliveries pass the SSRF guard); absent: none was.
   */
  readonly addedWebhooks?: readonly string[];
  readonly retry: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  /** /healthz turns unhealthy when a notification has been failing for longer than this. */
  readonly unhealthyAfterMs: number;
  /** When a change that newly blocks part of a site's URL set alerts. */
  readonly coverage: { readonly minUrls: number; readonly minShare: number };
  /** A relapse within this long of an incident's resolution reopens it. */
  readonly flapWindowMs: number;
  /** How long sent notifications are kept (the alert log), in days. */
  readonly alertLogDays: number;
  /** How long after its last notification an unacknowledged open incident is said again; null: never. */
  readonly remindMs: number | null;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Replaces ${NAME} with the environment variable NAME, so that secrets stay out of the
 * file; ${NAME:-fallback} uses the fallback (possibly empty) when NAME is unset or empty.
 */
export function interpolate(value: string, env: Env, where: string): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`${where}: environment variable ${name} is not set`);
    },
  );
}

/**
 * A webhook's secret or routing key with its ${NAME}s filled in, refused when that leaves
 * nothing (`${NAME:-}` with NAME unset): an empty routing key pages nobody, and a body
 * signed with an empty secret is one anybody can sign.
 */
function filled(
  value: string | undefined,
  env: Env,
  where: string,
  use: 'PagerDuty' | 'signing',
): string | undefined {
  if (value === undefined) return undefined;
  const text = interpolate(value, env, where);
  if (text.trim() !== '') return text;
  const empty = value.includes('${') ? `is empty once ${value} is filled in` : 'is blank';
  throw new ConfigError(
    use === 'PagerDuty'
      ? `${where}: ${empty}: PagerDuty needs the integration’s routing key`
      : `${where}: ${empty}: set it, or drop secret to send the webhook unsigned`,
  );
}

function resolveWebhooks(
  entries: readonly WebhookEntry[],
  env: Env,
  where: string,
): WebhookTarget[] {
  return entries.map((entry, i) => {
    const url = interpolate(entry.url, env, `${where}[${i}].url`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConfigError(`${where}[${i}].url: "${url}" is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(`${where}[${i}].url: must be http or https`);
    }
    if (parsed.hash !== '') throw new ConfigError(`${where}[${i}].url: must not have a #fragment`);
    // PagerDuty's routing key and Telegram's chat ride in the fragment (never sent).
    const needs = (field: 'routingKey' | 'chat', format: string, what: string) => {
      if (entry.format === format && entry[field] === undefined)
        throw new ConfigError(`${where}[${i}].${field}: ${what}`);
      if (entry.format !== format && entry[field] !== undefined)
        throw new ConfigError(`${where}[${i}].${field}: only a ${format} webhook has one`);
    };
    needs(
      'routingKey',
      'pagerduty',
      'PagerDuty needs the integration’s routing key (Events API v2)',
    );
    needs('chat', 'telegram', 'Telegram needs the chat to post in (its id, or @channelname)');
    const routingKey = filled(entry.routingKey, env, `${where}[${i}].routingKey`, 'PagerDuty');
    const fragment =
      routingKey !== undefined
        ? `#${new URLSearchParams({ routing_key: routingKey }).toString()}`
        : entry.chat !== undefined
          ? `#${new URLSearchParams({ chat_id: String(entry.chat) }).toString()}`
          : '';
    return {
      url: `${url}${fragment}`,
      secret: filled(entry.secret, env, `${where}[${i}].secret`, 'signing'),
      format: entry.format,
    };
  });
}

export function resolveNotify(notify: ConfigFile['notify'], env: Env, file: string): NotifyConfig {
  let email: NotifyConfig['email'];
  if (notify.email !== undefined) {
    const smtp = interpolate(notify.email.smtp, env, `${file}: notify.email.smtp`);
    if (!/^smtps?:\/\//.test(smtp))
      throw new ConfigError(`${file}: notify.email.smtp: must be an smtp:// or smtps:// URL`);
    email = { smtp, from: notify.email.from };
  }
  if (notify.retry.maxDelayMs < notify.retry.baseDelayMs) {
    throw new ConfigError(`${file}: notify.retry.maxDelayMs: must be at least baseDelayMs`);
  }
  return {
    email,
    defaults: {
      email: notify.email?.to ?? [],
      webhooks: resolveWebhooks(notify.webhooks, env, `${file}: notify.webhooks`),
      events: notify.events,
    },
    retry: notify.retry,
    unhealthyAfterMs: notify.unhealthyAfterMs,
    coverage: notify.coverage,
    flapWindowMs: notify.flapWindow,
    alertLogDays: notify.alertLogDays,
    remindMs: notify.remind,
  };
}

/**
 * Default channels made in the UI or API as targets; `where` prefixes each key in
 * messages. An email needs the SMTP server, which only the file sets.
 */
export function resolveChannels(
  notify: NotifyConfig,
  channels: { readonly email: readonly string[]; readonly webhooks: readonly WebhookEntry[] },
  env: Env,
  where: string,
): Pick<AlertTargets, 'email' | 'webhooks'> {
  if (channels.email.length > 0 && notify.email === undefined)
    throw new ConfigError(
      `${where}email: needs an SMTP server to send from: set notify.email in the configuration file`,
    );
  return {
    email: [...new Set(channels.email)],
    webhooks: resolveWebhooks(channels.webhooks, env, `${where}webhooks`),
  };
}

/** The defaults with channels made in the UI or API added to the file's. */
export function withDefaultChannels(
  notify: NotifyConfig,
  added: Pick<AlertTargets, 'email' | 'webhooks'>,
): NotifyConfig {
  if (added.email.length === 0 && added.webhooks.length === 0) return notify;
  const email = [...new Set([...notify.defaults.email, ...added.email])];
  const urls = new Set(notify.defaults.webhooks.map((w) => w.url));
  const fresh = added.webhooks.filter((w) => !urls.has(w.url));
  const webhooks = [...notify.defaults.webhooks, ...fresh];
  return {
    ...notify,
    defaults: { ...notify.defaults, email, webhooks },
    addedWebhooks: fresh.map((w) => w.url),
  };
}

/** A site's alert targets: each list it gives replaces the global one. */
export function resolveSiteTargets(
  notify: NotifyConfig,
  site: ConfigFile['sites'][number]['notify'],
  env: Env,
  where: string,
): AlertTargets {
  if (site === undefined) return notify.defaults;
  if (site.email !== undefined && site.email.length > 0 && notify.email === undefined) {
    throw new ConfigError(
      `${where}notify.email: needs notify.email (the SMTP server to send from)`,
    );
  }
  return {
    email: site.email ?? notify.defaults.email,
    webhooks: site.webhooks
      ? resolveWebhooks(site.webhooks, env, `${where}notify.webhooks`)
      : notify.defaults.webhooks,
    events: site.events ?? notify.defaults.events,
  };
}
