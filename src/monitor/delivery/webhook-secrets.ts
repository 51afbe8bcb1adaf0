import type { Config } from '../../config/config.js';

/** `derive` of the running configuration, made once per configuration (a reload makes a new one). */
function perConfig<T>(current: () => Config, derive: (running: Config) => T): () => T {
  const made = new WeakMap<Config, T>();
  return () => {
    const running = current();
    if (!made.has(running)) made.set(running, derive(running));
    return made.get(running)!;
  };
}

/**
 * A webhook's secret by its URL, among the defaults' and the watched sites' webhooks of
 * the running configuration. Secrets never enter the outbox: a delivery finds its
 * webhook's secret here when it is sent, so a reload or the UI may bring new ones.
 */
export function webhookSecrets(current: () => Config): (url: string) => string | undefined {
  const secrets = perConfig(
    current,
    (running) =>
      new Map(
        [
          ...running.notify.defaults.webhooks,
          ...running.sites.flatMap((s) => s.alerts.webhooks),
        ].map((w) => [w.url, w.secret]),
      ),
  );
  return (url) => secrets().get(url);
}

/**
 * Whether a webhook (by its URL) must reach a public address: one the configuration file
 * does not list (added in the UI or API, as a default or a site's), unless
 * fetch.allowPrivateAddresses is true ('loopback' lets it reach this machine too). The
 * file's webhooks are the operator's own, and may be an internal chat server. The setting
 * is the one the process started with (`fetch` applies at the next start, as the fetcher's
 * guard does); which webhooks the file lists follows each reload.
 */
export function webhookNeedsPublicAddress(
  current: () => Config,
  allowPrivate: boolean | 'loopback',
): (url: string) => boolean {
  const trusted = perConfig(current, (running): ReadonlySet<string> | 'all' => {
    if (allowPrivate === true) return 'all';
    const added = new Set(running.notify.addedWebhooks ?? []);
    return new Set(
      [
        ...running.notify.defaults.webhooks,
        ...running.sites.filter((s) => s.managedBy === 'file').flatMap((s) => s.alerts.webhooks),
      ]
        .map((w) => w.url)
        .filter((u) => !added.has(u)),
    );
  });
  return (url) => {
    const known = trusted();
    return known !== 'all' && !known.has(url);
  };
}
