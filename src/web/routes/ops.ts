/** Operations: /healthz for probes, /metrics for Prometheus. */
import type { Hono } from 'hono';
import { oneLine } from '../../lib/errors.js';
import { failingDocument } from '../../monitor/documents/index.js';
import { failingText } from '../../monitor/views/notifications.js';
import type { WebEnv } from '../auth.js';
import { tagLimit } from '../sites.js';
import type { WebDeps } from '../deps.js';

export function registerOps(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/healthz', async (c) => {
    let database: { ok: boolean; error?: string };
    try {
      await deps.store.ping();
      database = { ok: true };
    } catch (error) {
      database = { ok: false, error: oneLine(error) };
    }
    const problems: string[] = [];
    if (!database.ok) problems.push(`the database does not answer: ${database.error}`);
    let daemon: object;
    let daemonOk = true;
    if (deps.scheduler === undefined) {
      daemon = { running: false, note: 'not in this process (robowatch serve)' };
    } else if (!database.ok) {
      daemon = { running: true, note: 'its state cannot be read without the database' };
    } else {
      const health = await deps.scheduler.health();
      daemonOk = health.ok;
      if (!health.running) problems.push('the daemon loop has stopped running');
      if (health.checks.problem !== undefined) problems.push(health.checks.problem);
      if (health.deliveries.problem !== undefined) problems.push(health.deliveries.problem);
      daemon = health;
    }
    // Failing channels show in every process (under serve too): alerts that do not arrive
    // are a fault once they have failed for longer than notify.unhealthyAfterMs (as last
    // reloaded).
    const failing = database.ok ? await deps.store.failingChannels() : [];
    const limit = deps.catalog.config.notify.unhealthyAfterMs;
    const late = failing.filter((f) => deps.now().getTime() - f.since.getTime() > limit);
    const notificationsOk = late.length === 0;
    if (deps.scheduler === undefined) for (const f of late) problems.push(failingText(f));
    const notifications = {
      ok: notificationsOk,
      failing: failing.map(failingDocument),
    };
    const ok = database.ok && daemonOk && notificationsOk;
    // To nobody (where a token or users guard it), and to a person who sees only some
    // sites, only whether it is healthy: the details name every site's channels.
    if ((c.get('guarded') && !c.get('signedIn')) || tagLimit(c).length > 0)
      return c.json({ status: ok ? 'ok' : 'failing' }, ok ? 200 : 503);
    return c.json(
      { status: ok ? 'ok' : 'failing', problems, database, daemon, notifications },
      ok ? 200 : 503,
    );
  });

  app.get('/metrics', async (c) => {
    const [outbox, lastCheck, jobs] = await Promise.all([
      deps.store.outboxCounts(),
      deps.store.lastCheckAt(),
      deps.scheduler?.jobCounts(),
    ]);
    deps.metrics.setOutbox(outbox.pending, outbox.failed);
    deps.metrics.setLastCheck(lastCheck);
    if (jobs !== undefined) deps.metrics.setJobs(jobs);
    return c.body(await deps.metrics.registry.metrics(), 200, {
      'content-type': deps.metrics.registry.contentType,
    });
  });
}
