/**
 * Wires the daemon of `robowatch start` (its job engine's queue, the scheduler, the
 * registry's refresh): loaded only by the commands that run it.
 */
import type { Config } from './config/config.js';
import { shippedRegistry, shippedRegistryContent } from './config/registry.js';
import type { RobotsFetcher } from './fetch/robots-fetcher.js';
import type { Logger } from './lib/logger.js';
import type { Metrics } from './lib/metrics.js';
import type { CheckDeps, JobQueue } from './monitor/ports.js';
import { RegistryInUse } from './monitor/registry/in-use.js';
import type { RegistryReports } from './monitor/registry/in-use.js';
import type { SiteCatalog } from './monitor/sites/catalog.js';
import { Daemon } from './schedule/daemon.js';
import { logDaemonEvents } from './schedule/daemon-log.js';
import type { DaemonEvents } from './schedule/events.js';
import { nodeCronScheduler } from './schedule/fires.js';
import type { CronScheduler } from './schedule/job-kind.js';
import { createAccountStore } from './store/accounts.js';
import type { DatabaseHandle } from './store/db.js';
import { createDaemonStore } from './store/index.js';
import { CATALOG_CHANNEL } from './store/sites.js';
import { Presentation, observeCheck, wireCheck } from './compose.js';
import { wireBackfill } from './compose-backfill.js';
import { wireChannels, wireDeliveries, wireDigests } from './compose-delivery.js';
import type { Platform } from './compose.js';

/**
 * The daemon of `robowatch start`: scheduled checks, the outbox deliverer and the digest,
 * over one database and its job engine; `close` lets go of its connections once it has
 * stopped.
 */
export function wireDaemon(
  platform: Platform,
  config: Config,
  parts: {
    readonly handle: DatabaseHandle;
    readonly jobs: JobQueue;
    readonly fetcher: RobotsFetcher;
    readonly catalog: SiteCatalog;
    readonly logger: Logger;
    readonly metrics: Metrics;
    /** Called while the daemon is alive (the heartbeat of `robowatch health`). */
    readonly heartbeat: () => void;
    /** Its cron fires; node-cron's by default (tests fire their own). */
    readonly cron?: CronScheduler;
  },
): {
  readonly daemon: Daemon;
  readonly check: CheckDeps;
  readonly presentation: Presentation;
  readonly close: () => Promise<void>;
} {
  const { db, listen } = parts.handle;
  const presentation = new Presentation(config);
  const store = createDaemonStore(db);
  // Its checks on a connection of their own (DatabaseHandle.checks), where there is one.
  const check = wireCheck(
    platform,
    config,
    parts.handle.checks ?? db,
    parts.fetcher,
    () => parts.catalog.config,
  );
  const notifiers = wireChannels(platform, config, db, presentation, () => parts.catalog.config);
  const daemon = new Daemon({
    config,
    catalog: parts.catalog,
    check,
    jobs: parts.jobs,
    deliver: wireDeliveries(platform, config, db, notifiers, () => parts.catalog.config),
    digests: wireDigests(platform, db, presentation),
    store: {
      unsentDeliveries: store.deliveries.unsent,
      pruneDeliveries: store.deliveries.prune,
      pruneAudit: (before, attemptsBefore) =>
        createAccountStore(db).pruneAudit(before, attemptsBefore),
      failingDelivery: store.deliveries.failing,
      lastCheckAt: store.lastCheckAt,
      lastDigestEnd: store.lastDigestEnd,
      remindIncidents: store.remindIncidents,
      maintainDatabase: (vacuum) => store.maintainDatabase(parts.handle.kind, vacuum),
    },
    registry: (catalog, events) =>
      new RegistryInUse(
        {
          fetchDocument: (request) => parts.fetcher.fetchDocument(request),
          store: store.registry,
          now: () => platform.now(),
          shipped: shippedRegistry(),
          shippedContent: shippedRegistryContent(),
        },
        catalog,
        registryReports(events),
      ),
    backfill: wireBackfill(platform, config, db, parts.fetcher),
    cron: parts.cron ?? nodeCronScheduler(parts.logger),
    ...(listen === undefined
      ? {}
      : { catalogChanges: (onChange: () => void) => listen(CATALOG_CHANNEL, onChange) }),
    now: () => platform.now(),
    sleep: (ms, signal) => platform.sleep(ms, signal),
  });
  // The daemon says what happens; the log, the metrics and the heartbeat hear it.
  logDaemonEvents(daemon.events, parts.logger);
  daemon.events.on('check:done', ({ outcome }) => observeCheck(parts.metrics, outcome));
  daemon.events.on('check:refused', ({ outcome }) => observeCheck(parts.metrics, outcome));
  daemon.events.on('check:skipped', ({ sites }) => parts.metrics.countSkipped(sites.length));
  daemon.events.on('daemon:tick', () => parts.heartbeat());
  return {
    daemon,
    check,
    presentation,
    close: async () => {
      await check.coverage?.computer.close();
      await notifiers.close();
    },
  };
}

/** The registry's adoption, said as the daemon's events. */
function registryReports(events: DaemonEvents): RegistryReports {
  return {
    refreshed: (outcome, url, inUse) => events.emit('registry:refreshed', { outcome, url, inUse }),
    used: (version) => events.emit('registry:used', { version }),
    refused: (version, inUse, error) => events.emit('registry:refused', { version, inUse, error }),
  };
}
