import type { Config, SiteConfig } from '../config/config.js';
import type { Accounts } from '../monitor/accounts.js';
import type { SsoClient } from '../monitor/records-accounts.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { RunSummary } from '../monitor/check/batch.js';
import type { CheckOutcome } from '../monitor/check/site.js';
import type { PreparedDigest } from '../monitor/delivery/digests.js';
import type { DigestPeriod } from '../policy/digest.js';
import type { ReadStore, SchedulerPort } from '../monitor/ports.js';
import type { SiteCatalog } from '../monitor/sites/catalog.js';
import type { TesterThread } from '../monitor/threads/tester-thread.js';
import type { NotificationChannel } from '../monitor/views/notifications.js';
import type { AlertLogDelivery } from '../monitor/records.js';
import type { RenderedDelivery } from '../monitor/documents/alerts.js';

/** What the web app is given by main.ts (through the CLI): no driver, no listener. */
export interface WebDeps {
  readonly config: Config;
  /** The watched sites: the file's and those added in the UI or API. */
  readonly catalog: SiteCatalog;
  readonly store: ReadStore;
  /** Checks a configured site now: the "Check now" button and POST /api/v1/sites/:id/check. */
  checkNow(site: SiteConfig): Promise<CheckOutcome>;
  /**
   * Checks many configured sites now, as `robowatch check` does (its concurrency), each
   * outcome given as its check completes: POST /api/v1/checks. Absent: not offered.
   */
  checkMany?(
    sites: readonly SiteConfig[],
    onOutcome: (outcome: CheckOutcome) => void,
    signal: AbortSignal,
  ): Promise<RunSummary>;
  /**
   * Judges a site's current state again, without a fetch, after its watched URLs,
   * crawlers or intent changed (absent: at its next check).
   */
  rejudge?(site: SiteConfig): Promise<unknown>;
  readonly metrics: Metrics;
  readonly logger: Logger;
  now(): Date;
  /** The daemon in this process, under `robowatch start`; absent under `robowatch serve`. */
  readonly scheduler?: SchedulerPort;
  /**
   * The digests of a period as they would be sent now (not recorded); with `only`, as
   * they would read with only those sites (what a person limited to some tags sees).
   */
  previewDigests(
    period: DigestPeriod,
    recipient?: string,
    only?: (site: SiteConfig) => boolean,
  ): Promise<PreparedDigest[]>;
  /**
   * Records the digests of a period (each recipient's, or one's) and queues their delivery
   * now ("Send now"); a period sent to a recipient before is not sent again (its id is
   * null). Absent: this process does not send.
   */
  sendDigests?(period: DigestPeriod, recipient?: string): Promise<PreparedDigest[]>;
  /**
   * Sends a channel's test notification at once (not queued); throws with the reason
   * when its receiver does not accept it. Absent: "Send a test" is not offered.
   */
  sendTest?(channel: NotificationChannel): Promise<void>;
  /**
   * A queued notification as its channel sends it (the alert log shows exactly what was
   * sent). Absent: the log shows subjects only.
   */
  renderDelivery?(delivery: AlertLogDelivery, createdAt: Date): Promise<RenderedDelivery>;
  /** Where tests of proposed files run (its own thread); one is made when absent. */
  readonly tester?: TesterThread;
  /** Accepted as a Bearer token beside web.token: the local commands of the running daemon. */
  readonly localToken?: string;
  /** Users, their sessions and API keys, and the audit log; absent: web.token alone. */
  readonly accounts?: Accounts;
  /** Single sign-on with the OpenID provider of web.sso; absent: not configured. */
  readonly sso?: SsoClient;
}
