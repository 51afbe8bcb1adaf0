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
