import type { Transporter } from 'nodemailer';
import type { Dispatcher } from 'undici';
import type { Config } from '../../src/config/config.js';
import type { DeliveryJobDeps } from '../../src/monitor/delivery/deliver.js';
import { createEmailChannel } from '../../src/notify/email-channel.js';
import type { RenderContext } from '../../src/notify/render-alert.js';
import { createWebhookChannel } from '../../src/notify/webhook-channel.js';
import type { Database, SqlExecutor } from '../../src/store/db.js';
import { createDaemonStore } from '../../src/store/index.js';
import { JobEngine } from '../../src/store/jobs.js';

/**
 * A process's job engine on a test's database, as a one-shot command starts it (no
 * maintenance): five-minute leases, jobs kept a week. Stop it after the test.
 */
export function startTestEngine(executor: SqlExecutor): Promise<JobEngine> {
  return JobEngine.start(executor, {
    leaseSeconds: 300,
    retentionDays: 7,
    keepFinishedSeconds: 3_600,
    maintenanceSeconds: 60,
    onError: () => undefined,
    supervise: false,
  });
}

/**
 * What delivery jobs need on a test's database, as compose wires them: the store's
 * claims and retries, an email channel on `transport` and a webhook channel on
 * `dispatcher` (with the secret `secretFor` gives), the test's clock and retry policy.
 */
export function testDeliveries(
  db: Database,
  parts: {
    readonly transport: Transporter;
    readonly dispatcher: Dispatcher;
    readonly secretFor: (url: string) => string | undefined;
    readonly context: () => RenderContext;
    readonly now: () => Date;
    readonly retry: Config['notify']['retry'];
  },
): DeliveryJobDeps {
  const store = createDaemonStore(db);
  return {
    claim: store.deliveries.claim,
    markSent: store.deliveries.markSent,
    retryLater: store.deliveries.retry,
    channels: {
      email: createEmailChannel({
        transport: parts.transport,
        from: 'robowatch@example.com',
        loadDigest: (id) => store.digests.loadDigest(id),
        context: parts.context,
      }),
      webhook: createWebhookChannel({
        dispatcher: parts.dispatcher,
        secretFor: parts.secretFor,
        userAgent: 'robowatch-test',
        timeoutMs: 5_000,
        loadDigest: (id) => store.digests.loadDigest(id),
        context: parts.context,
      }),
    },
    now: parts.now,
    retry: parts.retry,
  };
}
