/**
 * Delivery's composition: the notification channels, the delivery jobs and the digests,
 * for the daemon, the web and the commands that send. Apart from compose.ts so that a
 * check that queued no alert loads none of it (the channels' renderers, the job engine's
 * options).
 */
import type { Config } from './config/config.js';
import { deliverDueJobs } from './monitor/delivery/deliver.js';
import type { DeliveryJobDeps, DeliveryReport } from './monitor/delivery/deliver.js';
import type { DigestDeps } from './monitor/delivery/digests.js';
import { webhookNeedsPublicAddress, webhookSecrets } from './monitor/delivery/webhook-secrets.js';
import { privateLiteral } from './fetch/public-lookup.js';
import { createEmailChannel } from './notify/email-channel.js';
import { digestData, renderDigest } from './notify/render-digest.js';
import { createWebhookChannel } from './notify/webhook-channel.js';
import type { WebhookGuard } from './notify/webhook-channel.js';
import type { RequestDispatcher } from './fetch/lazy-agent.js';
import { jobEngineOptions } from './schedule/engine-options.js';
import type { Database, DatabaseHandle } from './store/db.js';
import { createDaemonStore, createWebStore } from './store/index.js';
import { Presentation } from './compose.js';
import type { Channels, Platform } from './compose.js';

/** The email channel (with notify.email) and the webhook channel of a configuration. */
export function wireChannels(
  platform: Platform,
  config: Config,
  db: Database,
  presentation: Presentation,
  /** The running configuration (the catalog's: sites and default channels made in the UI too). */
  current: () => Config = () => config,
): Channels {
  const smtp = config.notify.email;
  const transport = smtp ? platform.createMailTransport(smtp.smtp) : undefined;
  const dispatcher = platform.createDispatcher();
  const guard = createWebhookGuard(platform, config, current);
  const store = createWebStore(db);
  const secretFor = webhookSecrets(current);
  return {
    channels: {
      ...(transport && smtp
        ? {
            email: createEmailChannel({
              transport,
              from: smtp.from,
              loadDigest: (id) => store.loadDigest(id),
              context: () => presentation.context(),
            }),
          }
        : {}),
      webhook: createWebhookChannel({
        dispatcher,
        secretFor,
        userAgent: config.fetch.userAgent,
        timeoutMs: 30_000,
        loadDigest: (id) => store.loadDigest(id),
        context: () => presentation.context(),
        guard,
      }),
    },
    close: async () => {
      transport?.close();
      await Promise.all([dispatcher.close(), guard.dispatcher.close()]);
    },
  };
}

/**
 * The SSRF guard for the webhooks the configuration file does not list (added in the UI or
 * API): they reach public addresses only, and this machine's too with
 * fetch.allowPrivateAddresses: loopback (read at start, as the fetcher reads it).
 */
export function createWebhookGuard(
  platform: Pick<Platform, 'createDispatcher'>,
  config: Config,
  current: () => Config,
): WebhookGuard & { readonly dispatcher: RequestDispatcher } {
  const allowPrivate = config.fetch.allowPrivateAddresses === 'loopback' ? 'loopback' : false;
  return {
    applies: webhookNeedsPublicAddress(current, config.fetch.allowPrivateAddresses),
    dispatcher: platform.createDispatcher({ guard: allowPrivate }),
    refusal: (url) => privateLiteral(url, allowPrivate),
  };
}

/**
 * What a delivery job needs: the store's claims and retries, the channels, the retry
 * policy (notify.retry, read from `current` at each failure, so that a reload applies it).
 */
export function wireDeliveries(
  platform: Platform,
  config: Config,
  db: Database,
  channels: Channels,
  current: () => Config = () => config,
): DeliveryJobDeps {
  const { deliveries } = createDaemonStore(db);
  return {
    claim: deliveries.claim,
    markSent: deliveries.markSent,
    retryLater: deliveries.retry,
    channels: channels.channels,
    now: () => platform.now(),
    get retry() {
      return current().notify.retry;
    },
  };
}

/** What building digests needs, for the daemon and `robowatch digest`. */
export function wireDigests(
  platform: Platform,
  db: Database,
  presentation: Presentation,
): DigestDeps {
  const store = createDaemonStore(db);
  return {
    ...store.digests,
    renderDigest: (digest) => {
      const context = presentation.context();
      return { ...renderDigest(digest, context), data: digestData(digest, context) };
    },
    now: () => platform.now(),
  };
}

/** The notifications due now, sent through the job engine (compose.ts: deliverQueued). */
export async function sendDueDeliveries(
  platform: Platform,
  config: Config,
  handle: DatabaseHandle,
): Promise<DeliveryReport> {
  const channels = wireChannels(platform, config, handle.db, new Presentation(config));
  const engine = await platform.startJobEngine(handle.executor, {
    ...jobEngineOptions(config, undefined, platform.now()),
    supervise: false,
  });
  try {
    return await deliverDueJobs(engine, wireDeliveries(platform, config, handle.db, channels));
  } finally {
    await engine.stop();
    await channels.close();
  }
}
