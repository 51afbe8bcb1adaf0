import cron from 'node-cron';
import type { ScheduledTask } from 'node-cron';
import type { Config, SiteConfig } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import { oneLine } from '../lib/errors.js';
import type { CheckOutcome } from '../monitor/check-site.js';
import { deliverDue } from '../monitor/deliver-outbox.js';
import type { DeliverDeps } from '../monitor/deliver-outbox.js';
import { periodAt, periodEndingAt } from '../monitor/periods.js';
import type { CheckDeps, RunStore } from '../monitor/ports.js';
import { planChecks, runDueChecks } from '../monitor/run-due-checks.js';
import { prepareDigests } from '../monitor/send-digests.js';
import type { DigestDeps } from '../monitor/send-digests.js';
import { FireCoordinator } from './coordinator.js';
import type { FireStore } from './coordinator.js';

export interface DaemonDeps {
  readonly config: Config;
  readonly check: CheckDeps;
  readonly runs: RunStore & { nextDueAt(now: Date): Promise<Date | null> };
  /** This process's claims on work: renewed while it lives, given back when it stops. */
  readonly leases: { renew(now: Date): Promise<void>; release(): Promise<void> };
  readonly fires: FireStore;
  readonly deliver: DeliverDeps;
  readonly digests: DigestDeps;
  readonly logger: Logger;
  /** Waits `ms`, or less if `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Called while the daemon is alive (main.ts writes a heartbeat for the health check). */
  heartbeat?(): void;
  /** Called after each check this process makes (metrics). */
  onChecked?(outcome: CheckOutcome): void;
}

/** Up to this many sites, the plan's log line lists each one's due time. */
const PLAN_LOGGED = 50;
/** The longest the check loop waits before looking again. */
const MAX_IDLE_MS = 30_000;
const DELIVERY_POLL_MS = 2_000;
/** How often, at most, leases are renewed, abandoned fires swept and the heartbeat written. */
const MAINTENANCE_MS = 15_000;
/** After a scheduled task failed, when it is taken up again. */
const FIRE_RETRY_MS = 5 * 60_000;

/**
 * `robowatch start`: plans each site's check in every period of its schedule, checks the
 * sites as they fall due (leased, so that several processes share the work), delivers
 * the outbox, and sends the digest when it is due. Stateless: everything another process
 * needs is in the database, and what a dead process held is taken over when its leases
 * expire.
 */
export class Daemon {
  readonly #deps: DaemonDeps;
  readonly #fires: FireCoordinator;
  readonly #stopping = new AbortController();
  #wakeDeliverer: AbortController = new AbortController();
  #wakeChecker: AbortController = new AbortController();
  #tasks: ScheduledTask[] = [];
  #loops: Promise<void>[] = [];
  #sites = new Map<number, SiteConfig>();
  #lastTick: Date | null = null;

  constructor(deps: DaemonDeps) {
    this.#deps = deps;
    this.#fires = new FireCoordinator({
      store: deps.fires,
      now: () => deps.check.now(),
      ttlMs: deps.config.schedule.leaseMs,
      retryMs: FIRE_RETRY_MS,
      onError: (fire, error) =>
        deps.logger.error(
          { fire, error: oneLine(error), retryInMs: FIRE_RETRY_MS },
          'scheduled task failed; taken up again later',
        ),
    });
  }

  async start(): Promise<void> {
    const { config, logger } = this.#deps;
    const { timezone, leaseMs } = config.schedule;
    const stored = await this.#deps.check.store.syncSites(config.sites.map((s) => s.origin));
    const byOrigin = new Map(config.sites.map((s) => [s.origin, s]));
    this.#sites = new Map(stored.map((s) => [s.id, byOrigin.get(s.origin)!]));
    // Plan the current periods now: a process starting mid-period should not wait for
    // the next fire, and a site never checked gets its baseline within a minute, whatever
    // its schedule. Planning is idempotent, so every process may do it.
    const never = new Set(stored.filter((s) => s.current === null).map((s) => s.id));
    await this.#plan([...this.#sites.keys()], never);

    const bySchedule = new Map<string, number[]>();
    for (const [id, site] of this.#sites)
      bySchedule.set(site.schedule, [...(bySchedule.get(site.schedule) ?? []), id]);
    const options = (name: string) => ({
      name,
      timezone,
      distributed: true,
      runCoordinator: this.#fires.runCoordinator,
      distributedLease: leaseMs,
      noOverlap: true,
    });
    for (const [expression, ids] of bySchedule) {
      const name = `plan ${expression}`;
      this.#tasks.push(
        cron.schedule(
          expression,
          this.#fires.task(name, () => this.#plan(ids)),
          options(name),
        ),
      );
    }
    this.#tasks.push(
      cron.schedule(
        config.schedule.digest,
        this.#fires.task('digest', (fire) => this.#sendDigests(fire)),
        options('digest'),
      ),
    );
    // A digest due while every process was down is sent now.
    const lastDigest = periodAt(config.schedule.digest, timezone, this.#deps.check.now()).start;
    if (await this.#fires.catchUp('digest', lastDigest))
      logger.info({ fire: lastDigest }, 'missed digest sent');

    this.#loops = [this.#checkLoop(), this.#deliveryLoop(), this.#maintenanceLoop()];
    logger.info({ sites: this.#sites.size, schedules: [...bySchedule.keys()] }, 'daemon started');
  }

  /**
   * Stops leasing, lets in-flight checks and deliveries finish for up to `deadlineMs`,
   * then gives back the leases this process still holds.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.#deps.logger.info({ deadlineMs }, 'daemon stopping');
    for (const task of this.#tasks) await task.destroy();
    this.#stopping.abort();
    this.#wakeDeliverer.abort();
    const finished = await Promise.race([
      Promise.all(this.#loops).then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), deadlineMs).unref()),
    ]);
    await this.#deps.leases.release();
    this.#deps.logger.info(
      { finished },
      finished ? 'daemon stopped' : 'daemon stopped at the deadline',
    );
  }

  /**
   * Keeps this process's claims alive, takes up scheduled fires that failed or whose
   * process died, and writes the heartbeat.
   */
  /** When the daemon's loops last ran (the web's /healthz); null before they start. */
  lastTick(): Date | null {
    return this.#lastTick;
  }

  async #maintenanceLoop(): Promise<void> {
    const { logger, config } = this.#deps;
    const signal = this.#stopping.signal;
    const every = Math.min(MAINTENANCE_MS, Math.floor(config.schedule.leaseMs / 3));
    while (!signal.aborted) {
      try {
        await this.#deps.leases.renew(this.#deps.check.now());
        this.#lastTick = this.#deps.check.now();
        this.#deps.heartbeat?.();
        const taken = await this.#fires.sweep();
        if (taken > 0) logger.info({ fires: taken }, 'abandoned scheduled tasks taken up');
      } catch (error) {
        logger.error({ error: oneLine(error) }, 'lease renewal failed; trying again');
      }
      await this.#deps.sleep(every, signal);
    }
  }

  async #plan(
    siteIds: readonly number[],
    baseline: ReadonlySet<number> = new Set(),
  ): Promise<void> {
    const sites = siteIds.map((id) => ({
      id,
      config: this.#sites.get(id)!,
      baseline: baseline.has(id),
    }));
    const plan = await planChecks(
      this.#deps.runs,
      sites,
      this.#deps.config.schedule.timezone,
      this.#deps.check.now(),
    );
    // The plan, as an operator reads it: when checks start and end, and which sites get
    // their first check now (each site's due time for small configurations).
    const due = plan.map((r) => r.dueAt.getTime());
    this.#deps.logger.info(
      {
        sites: plan.length,
        baseline: baseline.size,
        firstDueAt: due.length ? new Date(Math.min(...due)) : null,
        lastDueAt: due.length ? new Date(Math.max(...due)) : null,
        periodEnd: plan[0]?.periodEnd ?? null,
        ...(plan.length <= PLAN_LOGGED
          ? {
              plan: plan.map((r) => ({
                site: this.#sites.get(r.siteId)!.origin,
                dueAt: r.dueAt,
                ...(baseline.has(r.siteId) ? { first: true } : {}),
              })),
            }
          : {}),
      },
      'checks planned',
    );
    this.#wakeChecker.abort(); // new runs may be due before the check loop would look again
  }

  async #checkLoop(): Promise<void> {
    const { logger } = this.#deps;
    const signal = this.#stopping.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const leased = await runDueChecks(this.#deps.check, this.#deps.runs, this.#sites, {
          limit: this.#deps.config.fetch.concurrency,
          onOutcome: (outcome) => this.#checked(outcome),
          onFailure: (site, error, retryAt) =>
            logger.error(
              { site, error: oneLine(error), retryAt },
              'check failed; retried later in the period',
            ),
        });
        failures = 0;
        if (leased > 0) continue;
        this.#wakeChecker = new AbortController();
        const next = await this.#deps.runs.nextDueAt(this.#deps.check.now());
        const wait =
          next === null ? MAX_IDLE_MS : next.getTime() - this.#deps.check.now().getTime();
        await this.#deps.sleep(
          Math.min(Math.max(wait, 250), MAX_IDLE_MS),
          AbortSignal.any([this.#wakeChecker.signal, signal]),
        );
      } catch (error) {
        // The store is unreachable or the like: wait, longer each time, and go on.
        failures++;
        logger.error({ error: oneLine(error) }, 'check loop failed; trying again');
        await this.#deps.sleep(Math.min(1_000 * 2 ** failures, MAX_IDLE_MS), signal);
      }
    }
  }

  #checked(outcome: CheckOutcome): void {
    this.#deps.onChecked?.(outcome);
    const fields = { site: outcome.site, snapshot: outcome.snapshotId, status: outcome.status };
    if (outcome.kind === 'unchanged') this.#deps.logger.info(fields, 'checked: unchanged');
    else
      this.#deps.logger.info(
        { ...fields, events: outcome.events.length },
        `checked: ${outcome.kind}`,
      );
    if (outcome.events.length > 0) this.#wakeDeliverer.abort(); // its alerts are queued
  }

  async #deliveryLoop(): Promise<void> {
    const { logger } = this.#deps;
    let failures = 0;
    while (!this.#stopping.signal.aborted) {
      try {
        const { leased } = await deliverDue(this.#deps.deliver, 20);
        failures = 0;
        if (leased > 0) continue;
        this.#wakeDeliverer = new AbortController();
        await this.#deps.sleep(
          DELIVERY_POLL_MS,
          AbortSignal.any([this.#wakeDeliverer.signal, this.#stopping.signal]),
        );
      } catch (error) {
        failures++;
        logger.error({ error: oneLine(error) }, 'delivery loop failed; trying again');
        await this.#deps.sleep(Math.min(1_000 * 2 ** failures, MAX_IDLE_MS), this.#stopping.signal);
      }
    }
  }

  async #sendDigests(fire: Date): Promise<void> {
    // The period runs from the previous fire to this one, so that every process names it
    // alike and consecutive digests neither overlap nor leave a gap.
    const { digest, timezone } = this.#deps.config.schedule;
    const period = periodEndingAt(digest, timezone, fire);
    const digests = await prepareDigests(this.#deps.digests, this.#deps.config, period, {
      record: true,
    });
    for (const d of digests) {
      this.#deps.logger.info(
        { recipient: d.recipient, digest: d.id },
        d.id === null ? 'digest already sent' : 'digest queued',
      );
    }
    this.#wakeDeliverer.abort();
  }
}
