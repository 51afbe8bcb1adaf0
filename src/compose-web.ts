/**
 * Wires the web UI and API (`serve`, `start`): loaded only by the commands that serve it,
 * with hono, the OpenAPI document and the single sign-on client.
 */
import type { Config } from './config/config.js';
import { isLoopbackAddress } from './fetch/addresses.js';
import { createSsoClient } from './fetch/oidc.js';
import { bare } from './fetch/public-lookup.js';
import type { Logger } from './lib/logger.js';
import type { Metrics } from './lib/metrics.js';
import { rejudge } from './monitor/check/rejudge.js';
import { prepareDigests } from './monitor/delivery/digests.js';
import { sendTestNotification } from './monitor/delivery/send-test.js';
import type { CheckDeps } from './monitor/ports.js';
import type { SiteCatalog } from './monitor/sites/catalog.js';
import { renderDelivery } from './notify/render-delivery.js';
import type { Database } from './store/db.js';
import { createWebStore } from './store/index.js';
import { createApp } from './web/app.js';
import type { WebDeps } from './web/deps.js';
import { Presentation, checkManyWith, checkNowWith } from './compose.js';
import { wireAccounts } from './compose-accounts.js';
import { wireChannels, wireDigests } from './compose-delivery.js';
import type { FetchApp, Listener, Platform } from './compose.js';

/** The web UI and API over a database, for `serve` and `start`. */
export function wireWeb(
  platform: Platform,
  config: Config,
  parts: {
    readonly db: Database;
    readonly check: CheckDeps;
    readonly logger: Logger;
    readonly metrics: Metrics;
    readonly catalog: SiteCatalog;
    readonly scheduler?: WebDeps['scheduler'];
    /** The daemon's local token (embedded database): its own commands may use the API. */
    readonly localToken?: string;
    readonly presentation?: Presentation;
  },
): FetchApp {
  const presentation = parts.presentation ?? new Presentation(config);
  const digests = wireDigests(platform, parts.db, presentation);
  const { catalog } = parts;
  const webStore = createWebStore(parts.db);
  return createApp({
    config,
    catalog,
    store: webStore,
    // A test goes out at once, through channels made for it and closed after it: the
    // running configuration's (a reload may have changed them), never queued.
    sendTest: async (channel) => {
      const notifiers = wireChannels(
        platform,
        catalog.config,
        parts.db,
        presentation,
        () => catalog.config,
      );
      try {
        await sendTestNotification(notifiers.channels, channel, platform.now());
      } finally {
        await notifiers.close();
      }
    },
    checkNow: checkNowWith(parts.check, parts.metrics, parts.logger),
    checkMany: checkManyWith(
      parts.check,
      config.fetch.concurrency,
      parts.metrics,
      parts.logger,
      () => parts.scheduler?.deliverNow(),
    ),
    rejudge: async (site) => {
      const judged = await rejudge(parts.check, site);
      parts.scheduler?.deliverNow(); // an incident's alert may be queued
      return judged;
    },
    renderDelivery: (delivery, createdAt) =>
      renderDelivery({ ...delivery, createdAt }, presentation.context(), (id) =>
        webStore.loadDigest(id),
      ),
    previewDigests: (period, recipient, only) =>
      prepareDigests(digests, catalog.config, period, {
        record: false,
        ...(recipient === undefined ? {} : { recipient }),
        ...(only === undefined ? {} : { only }),
      }),
    // Under `robowatch serve` the daemon beside it (on PostgreSQL) delivers what is queued.
    sendDigests: async (period, recipient) => {
      const sent = await prepareDigests(digests, catalog.config, period, {
        record: true,
        ...(recipient === undefined ? {} : { recipient }),
      });
      parts.scheduler?.deliverNow();
      return sent;
    },
    metrics: parts.metrics,
    logger: parts.logger,
    now: () => platform.now(),
    ...(parts.scheduler === undefined ? {} : { scheduler: parts.scheduler }),
    ...(parts.localToken === undefined ? {} : { localToken: parts.localToken }),
    accounts: wireAccounts(platform, parts.db),
    ...(config.web.sso === undefined ? {} : { sso: createSsoClient(config.web.sso) }),
  });
}

/**
 * Serves an app on web.listen and says where; warns when it is open to anyone who can
 * reach it from elsewhere (an address beyond this machine, and no token, single sign-on or
 * user to sign in as): every site, its history, its alerts and where they go can be read.
 */
export async function startWeb(
  platform: Platform,
  config: Config,
  app: FetchApp,
  logger: Logger,
  /** Its users: with one, people sign in. */
  db: Database,
): Promise<Listener> {
  const listener = await platform.listen(app, config.web);
  logger.info(
    { url: listener.url, token: config.web.token === undefined ? 'none (read-only)' : 'required' },
    'web listening',
  );
  const { host, token, sso } = config.web;
  if (
    token === undefined &&
    sso === undefined &&
    host !== 'localhost' &&
    !isLoopbackAddress(bare(host)) &&
    !(await wireAccounts(platform, db).hasUsers())
  )
    logger.warn(
      { url: listener.url },
      `the web UI listens beyond this machine (${host}) with no web.token, single sign-on or user: anyone who can reach it reads every site, its history, its alerts and where they are sent; set web.token, or add a user with robowatch users add`,
    );
  return listener;
}
