/**
 * The daemon's log: one JSON line per event, as operators read them (and as the
 * end-to-end tests wait for them). A subscriber of the daemon's events, nothing more.
 */
import type { Logger } from '../lib/logger.js';
import { redactUrl } from '../lib/redact.js';
import { refusalLine } from '../policy/refusal.js';
import { describeVersion } from '../policy/registry.js';
import type { Delivery } from '../policy/alerts.js';
import type { DaemonEvents, PlannedCheck } from './events.js';
import type { CheckOutcome } from '../monitor/check/site.js';

/** Up to this many sites, a plan's log line lists each one. */
const PLAN_LOGGED = 50;

/** Where a notification goes, as the log shows it (a webhook's path may be its secret). */
const destination = (d: Delivery) =>
  d.channel === 'webhook' ? redactUrl(d.destination) : d.destination;

const listed = (plan: readonly PlannedCheck[], count: number) =>
  count <= PLAN_LOGGED ? { plan: plan.map((p) => ({ site: p.site, dueAt: p.dueAt })) } : {};

/** Logs every event of `events` through `logger`; returns what stops it. */
export function logDaemonEvents(events: DaemonEvents, logger: Logger): () => void {
  const stops = [
    events.on('daemon:started', (e) => logger.info(e, 'daemon started')),
    events.on('daemon:stopping', (e) => logger.info(e, 'daemon stopping')),
    events.on('daemon:problem', ({ message }) => logger.warn({}, message)),
    events.on('daemon:stopped', ({ handedBack }) =>
      logger.info(
        { finished: handedBack === 0, handedBack },
        handedBack === 0 ? 'daemon stopped' : 'daemon stopped at the deadline',
      ),
    ),
    events.on('sites:changed', ({ sites, added, removed }) =>
      logger.info(
        {
          sites,
          added: added.length,
          removed,
          ...(added.length <= PLAN_LOGGED ? { addedSites: added } : {}),
        },
        'watched sites changed',
      ),
    ),
    events.on('sites:first-checks', ({ plan }) =>
      logger.info({ sites: plan.length, ...listed(plan, plan.length) }, 'first checks queued'),
    ),
    events.on('period:planned', (e) =>
      logger.info(
        {
          schedule: e.schedule,
          sites: e.planned,
          periodStart: e.period.start,
          periodEnd: e.period.end,
          firstDueAt: e.firstDueAt,
          lastDueAt: e.lastDueAt,
          ...listed(e.plan, e.planned),
        },
        'checks planned',
      ),
    ),
    events.on('period:over', (e) => logger.warn(e, 'period over before it was planned; skipped')),
    events.on('check:skipped', ({ schedule, periodStart, sites }) =>
      logger.warn(
        { schedule, periodStart, skipped: sites.length, sites: sites.slice(0, PLAN_LOGGED) },
        'checks skipped this period: these sites still wait for their check from an earlier period, which runs first',
      ),
    ),
    events.on('check:done', ({ outcome, late, periodEnd }) => {
      const fields = {
        site: outcome.site,
        snapshot: outcome.snapshotId,
        status: outcome.status,
        ...(late ? { late: true, periodEnd } : {}),
      };
      if (outcome.kind === 'unchanged') logger.info(fields, 'checked: unchanged');
      else logger.info({ ...fields, events: outcome.events.length }, `checked: ${outcome.kind}`);
      logIncident(logger, outcome);
    }),
    events.on('check:refused', ({ outcome }) => {
      const cause = outcome.causes.find((c) => c.type === 'refused');
      logger.warn(
        { site: outcome.site, since: outcome.refused?.since, reason: cause?.reason },
        cause === undefined ? 'not checked: refused' : refusalLine(cause),
      );
      logIncident(logger, outcome);
    }),
    events.on('job:failed', ({ what, job, retries, error, unrecorded }) => {
      if (unrecorded)
        logger.error(
          { job, error },
          `${what} done, but the database did not record it; done again once its lease expires`,
        );
      else logger.error({ job, retries, error }, `${what} failed; retried later`);
    }),
    events.on('delivery:sent', ({ delivery: d }) =>
      logger.info({ delivery: d.key, channel: d.channel, to: destination(d) }, 'notification sent'),
    ),
    events.on('delivery:failed', ({ delivery: d, error, retryAt }) =>
      logger.warn(
        { delivery: d.key, channel: d.channel, to: destination(d), error, retryAt },
        'notification failed; retried later',
      ),
    ),
    events.on('digest:queued', ({ recipient, digest }) =>
      logger.info({ recipient, digest }, digest === null ? 'digest already sent' : 'digest queued'),
    ),
    events.on('registry:refreshed', ({ outcome, url, inUse }) => {
      if (outcome.kind === 'failed')
        logger.warn(
          { url: outcome.url, error: outcome.error },
          `AI crawler registry not refreshed; ${describeVersion(inUse)} stays in use`,
        );
      else if (outcome.kind === 'unchanged')
        logger.info(
          { url, sha256: outcome.active.version.sha256 },
          'AI crawler registry unchanged',
        );
      else
        logger.info(
          {
            registry: outcome.active.version,
            previous: outcome.previous?.version ?? null,
            sites: outcome.sites,
            alerting: outcome.alerting,
          },
          outcome.previous === null
            ? 'AI crawler registry recorded'
            : outcome.recordedElsewhere
              ? 'AI crawler registry updated (recorded by another process)'
              : 'AI crawler registry updated: what it means for each site recorded',
        );
    }),
    events.on('registry:used', ({ version }) =>
      logger.info({ registry: version }, `AI crawler registry in use: ${describeVersion(version)}`),
    ),
    events.on('registry:refused', ({ version, inUse, error }) =>
      logger.error(
        { registry: version, error },
        `AI crawler registry not used: the configuration does not hold with it; ${describeVersion(inUse)} stays in use`,
      ),
    ),
    events.on('backfill:done', ({ outcome }) =>
      logger.info(
        { ...outcome, until: outcome.until.toISOString() },
        outcome.more
          ? 'history loaded in part from the Internet Archive; the rest follows'
          : 'history loaded from the Internet Archive',
      ),
    ),
    events.on('upkeep:done', (e) => {
      if (e.task === 'prune') {
        if (e.pruned > 0)
          logger.info({ pruned: e.pruned, before: e.before }, 'sent notifications pruned');
      } else if (e.task === 'remind') {
        if (e.reminded > 0)
          logger.info(
            { incidents: e.reminded },
            'reminders queued of open incidents nobody has acknowledged',
          );
      } else {
        const what = e.task === 'vacuum' ? 'vacuumed and analyzed' : 'analyzed';
        logger.info(
          { tookMs: e.tookMs },
          e.database === 'embedded'
            ? `embedded database ${what}`
            : `database ${what} by robowatch: its PostgreSQL runs with autovacuum off`,
        );
      }
    }),
    events.on('upkeep:failed', ({ error }) =>
      logger.error({ error }, 'upkeep failed (the database?); trying again'),
    ),
    events.on('upkeep:recovered', ({ failures }) =>
      logger.info({ failures }, 'upkeep works again'),
    ),
    events.on('fire:failed', ({ what, fire, error, schedule }) =>
      logger.error({ ...(schedule === undefined ? {} : { schedule }), fire, error }, what),
    ),
    events.on('fire:missed', ({ schedule, fire }) =>
      logger.warn(
        { schedule, fire },
        'schedule fire missed (the process was busy); the period is planned by the upkeep',
      ),
    ),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** What a check did to the site's incident, when it did anything: one line for operators. */
function logIncident(logger: Logger, outcome: CheckOutcome): void {
  const recorded = outcome.judged?.recorded;
  if (recorded === undefined || recorded.step === 'none') return;
  const fields = {
    site: outcome.site,
    incident: recorded.incidentId,
    state: outcome.judged!.evaluation.state,
    cells: outcome.judged!.evaluation.violationCount,
  };
  if (recorded.step === 'resolve') logger.info(fields, 'incident resolved: as intended again');
  else if (recorded.step === 'update' && !recorded.worse)
    logger.info(fields, 'incident changed: fewer cells differ');
  else
    logger.warn(
      fields,
      recorded.step === 'open'
        ? 'incident opened: not as intended'
        : recorded.step === 'reopen'
          ? 'incident reopened within the flap window'
          : 'incident worse',
    );
}
