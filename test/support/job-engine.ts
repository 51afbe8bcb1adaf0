import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Dispatcher } from 'undici';
import type { Config } from '../../src/config/config.js';
import { deliverDueJobs } from '../../src/monitor/delivery/deliver.js';
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
        server: () => ({ transport: parts.transport, from: 'robowatch@example.com' }),
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

/**
 * Delivers every notification due now, as a one-shot command does: its own job engine,
 * an SMTP transport to `smtpUrl` and the given webhook dispatcher, stopped after.
 */
export async function deliverOnce(
  handle: { readonly db: Database; readonly executor: SqlExecutor },
  parts: Omit<Parameters<typeof testDeliveries>[1], 'transport'> & { readonly smtpUrl: string },
): Promise<{ sent: number; failed: number }> {
  const engine = await startTestEngine(handle.executor);
  const transport = nodemailer.createTransport({ url: parts.smtpUrl, connectionTimeout: 2_000 });
  try {
    return await deliverDueJobs(engine, testDeliveries(handle.db, { ...parts, transport }));
  } finally {
    transport.close();
    await engine.stop();
  }
}
