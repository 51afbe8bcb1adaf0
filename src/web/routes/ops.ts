/** Operations: /healthz for probes, /metrics for Prometheus. */
import type { Hono } from 'hono';
import { oneLine } from '../../lib/errors.js';
import type { WebEnv } from '../auth.js';
import type { WebDeps } from '../deps.js';

/** The daemon's loops tick at least this often; older than twice that, it is stuck. */
const SCHEDULER_STALE_MS = 2 * 60_000;

export function registerOps(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/healthz', async (c) => {
    let database: { ok: boolean; error?: string };
    try {
      await deps.store.ping();
      database = { ok: true };
    } catch (error) {
      database = { ok: false, error: oneLine(error) };
    }
    const lastTick = deps.scheduler?.lastTick() ?? null;
    const scheduler =
      deps.scheduler === undefined
        ? { running: false, ok: true, note: 'not in this process (robowatch serve)' }
        : {
            running: true,
            ok: lastTick !== null && deps.now().getTime() - lastTick.getTime() < SCHEDULER_STALE_MS,
            lastTickAt: lastTick,
          };
    let lastSweepAt: Date | null = null;
    if (database.ok) lastSweepAt = await deps.store.lastSweepAt().catch(() => null);
    const ok = database.ok && scheduler.ok;
    return c.json(
      { status: ok ? 'ok' : 'failing', database, scheduler, lastSweepAt },
      ok ? 200 : 503,
    );
  });

  app.get('/metrics', async (c) => {
    const [outbox, lastSweep] = await Promise.all([
      deps.store.outboxCounts(),
      deps.store.lastSweepAt(),
    ]);
    deps.metrics.setOutbox(outbox.pending, outbox.failed);
    deps.metrics.setLastSweep(lastSweep);
    return c.body(await deps.metrics.registry.metrics(), 200, {
      'content-type': deps.metrics.registry.contentType,
    });
  });
}
