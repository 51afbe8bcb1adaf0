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
import type { MailServer } from './notify/email-channel.js';
import type { Transporter } from 'nodemailer';
import { digestData, renderDigest } from './notify/render-digest.js';
import { createWebhookChannel } from './notify/webhook-channel.js';
import type { WebhookGuard } from './notify/webhook-channel.js';
import type { RequestDispatcher } from './fetch/lazy-agent.js';
import { jobEngineOptions } from './schedule/engine-options.js';
import type { Database, DatabaseHandle } from './store/db.js';
import { createDaemonStore, createWebStore } from './store/index.js';
import { Presentation } from './compose.js';
import type { Channels, Platform } from './compose.js';

/**
 * The email channel and the webhook channel of a configuration. Email goes through the
 * mail server `current` names at each send (notify.email: a reload applies it); without
 * one, an email fails and is retried until the file names one.
 */
export function wireChannels(
  platform: Platform,
  config: Config,
  db: Database,
  presentation: Presentation,
  /** The running configuration (the catalog's: sites and default channels made in the UI too). */
  current: () => Config = () => config,
): Channels {
  const mail = mailServers(platform, current);
  const dispatcher = platform.createDispatcher();
  const guard = createWebhookGuard(platform, config, current);
  const store = createWebStore(db);
  const secretFor = webhookSecrets(current);
  return {
    channels: {
      email: createEmailChannel({
        server: mail.server,
        loadDigest: (id) => store.loadDigest(id),
        context: () => presentation.context(),
      }),
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
      mail.close();
      await Promise.all([dispatcher.close(), guard.dispatcher.close()]);
    },
  };
}

/**
 * The mail server of the running configuration's notify.email, its transport made when
 * first used and made again when a reload names another server. A transport let go of
 * is closed with the channels, not at once: a message may still be on its way through it.
 */
function mailServers(
  platform: Pick<Platform, 'createMailTransport'>,
  current: () => Config,
): { readonly server: () => MailServer; readonly close: () => void } {
  const made = new Map<string, Transporter>();
  return {
    server: () => {
      const email = current().notify.email;
      if (email === undefined)
        throw new Error('email needs notify.email (the SMTP server to send from)');
      let transport = made.get(email.smtp);
      if (transport === undefined) {
        transport = platform.createMailTransport(email.smtp);
        made.set(email.smtp, transport);
      }
      return { transport, from: email.from };
    },
    close: () => {
      for (const transport of made.values()) transport.close();
      made.clear();
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
