import type { Config } from '../../config/config.js';

/**
 * A webhook's secret by its URL, among the defaults' and the watched sites' webhooks of
 * the running configuration. Secrets never enter the outbox: a delivery finds its
 * webhook's secret here when it is sent, so a reload or the UI may bring new ones.
 */
export function webhookSecrets(current: () => Config): (url: string) => string | undefined {
  const secrets = new WeakMap<Config, Map<string, string | undefined>>();
  return (url) => {
    const running = current();
    let known = secrets.get(running);
    if (known === undefined) {
      known = new Map(
        [
          ...running.notify.defaults.webhooks,
          ...running.sites.flatMap((s) => s.alerts.webhooks),
        ].map((w) => [w.url, w.secret]),
      );
      secrets.set(running, known);
    }
    return known.get(url);
  };
}

/**
 * Whether a webhook (by its URL) must reach a public address: one the configuration file
 * does not list (added in the UI or API, as a default or a site's), unless
 * fetch.allowPrivateAddresses is on. The file's webhooks are the operator's own, and may
 * be an internal chat server.
 */
export function webhookNeedsPublicAddress(current: () => Config): (url: string) => boolean {
  const trusted = new WeakMap<Config, ReadonlySet<string>>();
  return (url) => {
    const running = current();
    if (running.fetch.allowPrivateAddresses) return false;
    let known = trusted.get(running);
    if (known === undefined) {
      const added = new Set(running.notify.addedWebhooks ?? []);
      known = new Set(
        [
          ...running.notify.defaults.webhooks,
          ...running.sites.filter((s) => s.managedBy === 'file').flatMap((s) => s.alerts.webhooks),
        ]
          .map((w) => w.url)
          .filter((u) => !added.has(u)),
      );
      trusted.set(running, known);
    }
    return !known.has(url);
  };
}
