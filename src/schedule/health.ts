/**
 * Whether the daemon does its job, as /healthz says it: its upkeep is alive, some check
 * completed (in any process) within what the schedules allow, and no notification has
 * been failing for longer than notify.unhealthyAfterMs.
 */
import { formatDuration } from '../policy/wording/words.js';
import { periodAt } from '../policy/periods.js';
import type { DaemonContext } from './job-kind.js';
import { TICK_MS } from './tick.js';
import type { DaemonHealth } from '../monitor/ports.js';

export type { DaemonHealth };

export async function daemonHealth(
  context: DaemonContext,
  lastTick: Date | null,
  startedAt: Date | null,
): Promise<DaemonHealth> {
  const { catalog, store } = context.deps;
  const now = context.deps.now().getTime();
  const running = lastTick !== null && now - lastTick.getTime() < 4 * TICK_MS;
  const expectedWithinMs = checkAllowanceMs(context);
  const [lastCheckAt, failing] = await Promise.all([store.lastCheckAt(), store.failingDelivery()]);
  const since = Math.max(lastCheckAt?.getTime() ?? 0, startedAt?.getTime() ?? now);
  const checksOk = context.sites().size === 0 || now - since <= expectedWithinMs;
  const deliveriesOk =
    failing === null || now - failing.since.getTime() <= catalog.config.notify.unhealthyAfterMs;
  return {
    ok: running && checksOk && deliveriesOk,
    running,
    lastTickAt: lastTick,
    checks: {
      ok: checksOk,
      lastCheckAt,
      expectedWithinMs,
      ...(checksOk
        ? {}
        : {
            problem: `no site has finished a check since ${new Date(since).toISOString()}, longer than the ${formatDuration(expectedWithinMs)} the schedules allow: checks are stuck or failing (see the log)`,
          }),
    },
    deliveries: {
      ok: deliveriesOk,
      failingSince: failing?.since ?? null,
      ...(deliveriesOk || failing === null
        ? {}
        : {
            problem: `${failing.channel} notifications have been failing since ${failing.since.toISOString()}: ${failing.error}`,
          }),
    },
  };
}

/** Twice the longest period of any check schedule, and a lease: no check at all in that long is a fault. */
function checkAllowanceMs(context: DaemonContext): number {
  const { config } = context.deps;
  const now = context.deps.now();
  let longest = 0;
  for (const expression of context.bySchedule().keys()) {
    const p = periodAt(expression, config.schedule.timezone, now);
    longest = Math.max(longest, p.end.getTime() - p.start.getTime());
  }
  return 2 * longest + config.schedule.leaseMs;
}
