/**
 * Sites judged against their intent, and their incidents: each judgement is written
 * with the transition it makes (policy/incidents.ts) in one transaction, the site's row
 * locked so that two judgements of a site never open two incidents.
 */
import { and, asc, desc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { intentCauses, incidentStep } from '../policy/incidents.js';
import type { LatestIncident } from '../policy/incidents.js';
import type { IntentEntry } from '../policy/intent.js';
import { incidentAlerts } from '../policy/incident-alerts.js';
import type { IncidentDraft, IncidentNote, IncidentTransition } from '../policy/incident-alerts.js';
import { insertIncidentAlerts, withdrawResolution } from './outbox.js';
import type {
  IncidentQuery,
  IncidentRecord,
  JudgementRecorded,
  NewJudgement,
  StoredJudgement,
} from '../monitor/records.js';
import type { Database } from './db.js';
import { incidents, sites } from './schema.js';

/** Records a judgement and applies its incident transition. */
export async function recordJudgement(
  db: Database,
  judgement: NewJudgement,
): Promise<JudgementRecorded> {
  const { siteId, evaluation, at } = judgement;
  return db.transaction(async (tx) => {
    const [site] = await tx
      .select({
        currentSnapshotId: sites.currentSnapshotId,
        state: sites.intentState,
        since: sites.intentSince,
      })
      .from(sites)
      .where(eq(sites.id, siteId))
      .for('update');
    // Judged on a state the site has moved on from: the newer one's judgement stands.
    if (
      site === undefined ||
      (judgement.snapshotId !== null && site.currentSnapshotId !== judgement.snapshotId)
    )
      return { step: 'none', incidentId: null, worse: false };
    await tx
      .update(sites)
      .set({
        intentState: evaluation.state,
        intentSince: site.state === evaluation.state && site.since !== null ? site.since : at,
        intentKey: judgement.key,
        intentReport: {
          violations: [...evaluation.violations],
          violationCount: evaluation.violationCount,
          judged: evaluation.judged,
          reason: evaluation.reason,
        },
      })
      .where(eq(sites.id, siteId));
    const [latest] = await tx
      .select()
      .from(incidents)
      .where(eq(incidents.siteId, siteId))
      .orderBy(desc(incidents.id))
      .limit(1);
    const step = incidentStep(
      latest === undefined ? null : (latest satisfies LatestIncident),
      evaluation,
      at,
      judgement.flapWindowMs,
    );
    if (step.kind === 'none') return { step: 'none', incidentId: null, worse: false };
    /** Queues the transition's alerts (none unless the site's topics include `incidents`). */
    const notify = async (
      id: number,
      transition: IncidentTransition,
      openedAt: Date,
      notBefore = at,
    ) => {
      if (judgement.alerts === undefined) return;
      const { site: named, targets, changes } = judgement.alerts;
      const note: IncidentNote = {
        id,
        transition,
        openedAt: openedAt.toISOString(),
        resolvedAt: transition === 'resolved' ? at.toISOString() : null,
        state: evaluation.state,
        causes: intentCauses(evaluation),
        violations: evaluation.violations,
        violationCount: evaluation.violationCount,
        changes,
      };
      const drafts = incidentAlerts(named, targets, note, at);
      await insertIncidentAlerts(tx, drafts, siteId, at, notBefore);
      // Reminders count from the last thing people were told of it.
      if (drafts.length > 0 && transition !== 'resolved')
        await tx.update(incidents).set({ notifiedAt: at }).where(eq(incidents.id, id));
    };
    if (step.kind === 'resolve') {
      await tx
        .update(incidents)
        .set({ state: 'resolved', resolvedAt: at, updatedAt: at })
        .where(eq(incidents.id, step.id));
      // Told once the flap window has passed without a relapse (a relapse withdraws it).
      await notify(
        step.id,
        'resolved',
        latest!.openedAt,
        new Date(at.getTime() + judgement.flapWindowMs),
      );
      return { step: 'resolve', incidentId: step.id, worse: false };
    }
    const siteState: 'cannot-check' | 'not-as-intended' =
      evaluation.state === 'cannot-check' ? 'cannot-check' : 'not-as-intended';
    const now = {
      siteState,
      causes: intentCauses(evaluation),
      violations: [...evaluation.violations],
      violationCount: evaluation.violationCount,
      updatedAt: at,
    };
    if (step.kind === 'open') {
      const [row] = await tx
        .insert(incidents)
        .values({
          siteId,
          state: 'open',
          openedAt: at,
          worstCount: evaluation.violationCount,
          ...now,
        })
        .returning({ id: incidents.id });
      await notify(row!.id, 'opened', at);
      return { step: 'open', incidentId: row!.id, worse: true };
    }
    const worstCount = sql`GREATEST(${incidents.worstCount}, ${evaluation.violationCount})`;
    if (step.kind === 'reopen') {
      await tx
        .update(incidents)
        .set({
          state: 'open',
          resolvedAt: null,
          reopened: sql`${incidents.reopened} + 1`,
          worstCount,
          ...now,
        })
        .where(eq(incidents.id, step.id));
      // Back within the flap window: its resolution was not sent yet, and now never is;
      // said again only if it was (a window of 0).
      if ((await withdrawResolution(tx, step.id)) === 0)
        await notify(step.id, 'opened', latest!.openedAt);
      return { step: 'reopen', incidentId: step.id, worse: false };
    }
    await tx
      .update(incidents)
      .set({ worstCount, ...now })
      .where(eq(incidents.id, step.id));
    if (step.worse) await notify(step.id, 'worse', latest!.openedAt);
    return { step: 'update', incidentId: step.id, worse: step.worse };
  });
}

const incidentColumns = {
  id: incidents.id,
  siteId: incidents.siteId,
  origin: sites.origin,
  state: incidents.state,
  siteState: incidents.siteState,
  openedAt: incidents.openedAt,
  resolvedAt: incidents.resolvedAt,
  causes: incidents.causes,
  violations: incidents.violations,
  violationCount: incidents.violationCount,
  worstCount: incidents.worstCount,
  reopened: incidents.reopened,
  acknowledgedAt: incidents.acknowledgedAt,
  acknowledgedBy: incidents.acknowledgedBy,
  note: incidents.note,
};

/** Incidents, the newest first. */
export async function listIncidents(db: Database, query: IncidentQuery): Promise<IncidentRecord[]> {
  const where: SQL[] = [];
  if (query.siteId !== undefined) where.push(eq(incidents.siteId, query.siteId));
  if (query.state !== undefined) where.push(eq(incidents.state, query.state));
  return db
    .select(incidentColumns)
    .from(incidents)
    .innerJoin(sites, eq(sites.id, incidents.siteId))
    .where(and(...where))
    .orderBy(desc(incidents.id))
    .limit(query.limit);
}

export async function getIncident(db: Database, id: number): Promise<IncidentRecord | undefined> {
  const [row] = await db
    .select(incidentColumns)
    .from(incidents)
    .innerJoin(sites, eq(sites.id, incidents.siteId))
    .where(eq(incidents.id, id));
  return row;
}

/**
 * Acknowledges an incident: who and when, with a note (a later acknowledgment replaces
 * the note and keeps the first time). Returns it, or undefined when there is none.
 */
export async function acknowledgeIncident(
  db: Database,
  id: number,
  ack: { readonly by: string; readonly note: string; readonly at: Date },
): Promise<IncidentRecord | undefined> {
  await db
    .update(incidents)
    .set({
      acknowledgedAt: sql`COALESCE(${incidents.acknowledgedAt}, ${ack.at.toISOString()}::timestamptz)`,
      acknowledgedBy: ack.by,
      note: ack.note,
    })
    .where(eq(incidents.id, id));
  return getIncident(db, id);
}

/** A site's state against its intent as last judged (null: not judged yet). */
export async function loadJudgement(db: Database, siteId: number): Promise<StoredJudgement | null> {
  const [row] = await db
    .select({ state: sites.intentState, since: sites.intentSince, report: sites.intentReport })
    .from(sites)
    .where(eq(sites.id, siteId));
  if (row === undefined || row.state === null || row.report === null) return null;
  return { state: row.state, since: row.since, ...row.report };
}

/** The intent set in the UI or API for a site (null: none, the file's applies). */
export async function saveIntent(
  db: Database,
  siteId: number,
  entries: readonly IntentEntry[] | null,
): Promise<void> {
  await db
    .update(sites)
    .set({ intent: entries === null ? null : [...entries] })
    .where(eq(sites.id, siteId));
}

/**
 * Queues a reminder of each open incident nobody has acknowledged whose last notification
 * (or opening) is at least `everyMs` old, and counts the next one from now. One
 * transaction; incidents another process is reminding are skipped. `draftsFor` says who
 * hears of it (none: the site's alerts do not follow incidents, or it is gone). Returns
 * how many incidents were reminded.
 */
export async function remindIncidents(
  db: Database,
  now: Date,
  everyMs: number,
  draftsFor: (incident: IncidentRecord) => readonly IncidentDraft[],
): Promise<number> {
  const due = new Date(now.getTime() - everyMs);
  return db.transaction(async (tx) => {
    const rows = await tx
      .select(incidentColumns)
      .from(incidents)
      .innerJoin(sites, eq(sites.id, incidents.siteId))
      .where(
        and(
          eq(incidents.state, 'open'),
          isNull(incidents.acknowledgedAt),
          lte(sql`COALESCE(${incidents.notifiedAt}, ${incidents.openedAt})`, due),
        ),
      )
      .orderBy(asc(incidents.id))
      .limit(REMINDERS_AT_ONCE)
      .for('update', { of: incidents, skipLocked: true });
    let reminded = 0;
    for (const row of rows) {
      const drafts = draftsFor(row);
      await tx.update(incidents).set({ notifiedAt: now }).where(eq(incidents.id, row.id));
      if (drafts.length === 0) continue;
      await insertIncidentAlerts(tx, drafts, row.siteId, now, now);
      reminded++;
    }
    return reminded;
  });
}

/** Incidents reminded in one transaction (the rest at the next round). */
const REMINDERS_AT_ONCE = 200;
