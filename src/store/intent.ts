/**
 * Sites judged against their intent, and their incidents: each judgement is written
 * with the transition it makes (policy/incidents.ts) in one transaction, the site's row
 * locked so that two judgements of a site never open two incidents; judgements that
 * arrive together are written together. (A new state whose transition alerts no one is
 * judged in the state's own statement instead, store/snapshots.ts; every judgement counts
 * itself on the site's row, `intent_version`, which is how that statement knows whether
 * another came between.)
 */
import { and, asc, desc, eq, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';
import {
  incidentLead,
  incidentSiteState,
  intentCauses,
  intentReport,
  incidentStep,
  stateSince,
} from '../policy/incidents.js';
import type { IncidentStep, LatestIncident } from '../policy/incidents.js';
import type { IntentEntry, Violation, ViolationGrid } from '../policy/intent.js';
import { incidentAlerts } from '../policy/incident-alerts.js';
import type { IncidentDraft, IncidentNote, IncidentTransition } from '../policy/incident-alerts.js';
import { insertIncidentAlerts, withdrawResolution } from './outbox.js';
import type {
  IncidentHead,
  IncidentQuery,
  IncidentRecord,
  JudgementRecorded,
  NewJudgement,
  StoredJudgement,
} from '../monitor/records.js';
import { inSites, prepared, queryRows, rowDate } from './db.js';
import type { Database } from './db.js';
import { incidents, sites } from './schema.js';

/** Records a judgement and applies its incident transition. */
export async function recordJudgement(
  db: Database,
  judgement: NewJudgement,
): Promise<JudgementRecorded> {
  return (await recordJudgements(db, [judgement]))[0]!;
}

/**
 * Records judgements together (group commit: the checks' judgements that arrive while
 * one batch is written go in the next), each with its incident transition. A site judged
 * twice in a batch has its judgements written in order, one transaction after the other.
 */
export async function recordJudgements(
  db: Database,
  judgements: readonly NewJudgement[],
): Promise<JudgementRecorded[]> {
  const results: JudgementRecorded[] = [];
  let pending = judgements.map((judgement, index) => ({ judgement, index }));
  while (pending.length > 0) {
    const round: typeof pending = [];
    const later: typeof pending = [];
    const sitesInRound = new Set<number>();
    for (const p of pending) {
      if (sitesInRound.has(p.judgement.siteId)) later.push(p);
      else {
        sitesInRound.add(p.judgement.siteId);
        round.push(p);
      }
    }
    const recorded = await recordRound(
      db,
      round.map((p) => p.judgement),
    );
    round.forEach((p, i) => (results[p.index] = recorded[i]!));
    pending = later;
  }
  return results;
}

const NONE: JudgementRecorded = { step: 'none', incidentId: null, worse: false };

/**
 * One transaction for judgements of distinct sites: their rows locked (in id order, so
 * two batches never wait on each other in a cycle), their latest incidents read at once,
 * their states written in one statement, each transition applied.
 */
async function recordRound(
  db: Database,
  judgements: readonly NewJudgement[],
): Promise<JudgementRecorded[]> {
  return db.transaction(async (tx) => {
    const { site, latest } = await lockSites(
      tx,
      judgements.map((j) => j.siteId),
    );
    // Judged on a state the site has moved on from: the newer one's judgement stands.
    const current = judgements.filter((j) => {
      const row = site.get(j.siteId);
      return row !== undefined && (j.snapshotId === null || row.currentSnapshotId === j.snapshotId);
    });
    if (current.length === 0) return judgements.map(() => NONE);
    const steps = new Map(
      current.map((j) => {
        const last = latest.get(j.siteId);
        return [j, incidentStep(last ?? null, j.evaluation, j.at, j.flapWindowMs)] as const;
      }),
    );
    const opened = await writeRound(tx, current, steps, site);
    const results: JudgementRecorded[] = [];
    for (const j of judgements) {
      const step = steps.get(j);
      results.push(
        step === undefined
          ? NONE
          : await applyStep(tx, j, step, latest.get(j.siteId), opened.get(j.siteId)),
      );
    }
    return results;
  });
}

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** A judged site's row as the round reads it, locked. */
interface LockedSite {
  readonly currentSnapshotId: number | null;
  readonly state: string | null;
  readonly since: Date | null;
}

/** A site's latest incident, as much of it as a transition needs. */
interface Latest extends LatestIncident {
  readonly openedAt: Date;
}

/**
 * Locks the sites of a round (in id order, so two rounds never wait on each other in a
 * cycle), then reads each one's latest incident by its index (site_id, id): one lookup per
 * site, so the plan stays small however many incidents there are and whatever the
 * statistics say (DISTINCT ON over an IN list was planned as a scan of every incident,
 * with JIT, while the table grew faster than it was analysed). The incidents are read in
 * a statement of their own, after the locks: one that waited for another round's lock
 * sees the incident that round wrote. Their violations stay in the database: a
 * transition needs only the counts and causes.
 */
async function lockSites(
  tx: Transaction,
  ids: readonly number[],
): Promise<{ site: Map<number, LockedSite>; latest: Map<number, Latest> }> {
  const locked = await queryRows<{
    id: number;
    current_snapshot_id: string | number | null;
    intent_state: string | null;
    intent_since: string | Date | null;
  }>(
    tx,
    prepared(
      'lock-judged-sites',
      sql`
    SELECT id, current_snapshot_id, intent_state, intent_since FROM sites
     WHERE id = ANY(${sql.param(ids)}::int[]) ORDER BY id FOR UPDATE`,
    ),
  );
  const site = new Map<number, LockedSite>(
    locked.map((row) => [
      row.id,
      {
        currentSnapshotId:
          row.current_snapshot_id === null ? null : Number(row.current_snapshot_id),
        state: row.intent_state,
        since: rowDate(row.intent_since),
      },
    ]),
  );
  const incidentRows = await queryRows<{
    id: string | number;
    site_id: number;
    state: 'open' | 'resolved';
    site_state: 'not-as-intended' | 'cannot-check';
    violation_count: number;
    worst_count: number;
    causes: string[];
    resolved_at: string | Date | null;
    opened_at: string | Date;
  }>(
    tx,
    prepared(
      'latest-incidents',
      sql`
    SELECT i.id, i.site_id, i.state, i.site_state, i.violation_count, i.worst_count,
           i.causes, i.resolved_at, i.opened_at
      FROM unnest(${sql.param(ids)}::int[]) AS s(id)
      CROSS JOIN LATERAL (
        SELECT * FROM incidents AS i WHERE i.site_id = s.id ORDER BY i.id DESC LIMIT 1
      ) AS i`,
    ),
  );
  const latest = new Map<number, Latest>(
    incidentRows.map((row) => [
      row.site_id,
      {
        id: Number(row.id),
        state: row.state,
        siteState: row.site_state,
        violationCount: row.violation_count,
        worstCount: row.worst_count,
        causes: row.causes,
        resolvedAt: rowDate(row.resolved_at),
        openedAt: rowDate(row.opened_at)!,
      },
    ]),
  );
  return { site, latest };
}

/**
 * Writes a round's judgements in one statement: each site's state and report, the
 * incidents that open (a site has one per round at most) and those that stay open and
 * are updated (the most frequent step: a changed state of a site already in an
 * incident). The rows travel as one JSON document, each judgement's violations once: the
 * site's report and its incident hold the same list (three statements, each with its
 * copy, sent a changed state's judgement as 3.4 KB).
 */
async function writeRound(
  tx: Transaction,
  judgements: readonly NewJudgement[],
  steps: ReadonlyMap<NewJudgement, IncidentStep>,
  locked: ReadonlyMap<number, LockedSite>,
): Promise<Map<number, number>> {
  const rows = judgements.map((j) => {
    const row = locked.get(j.siteId)!;
    const { evaluation } = j;
    const step = steps.get(j)!;
    const writes = step.kind === 'open' || step.kind === 'update';
    return {
      id: j.siteId,
      state: evaluation.state,
      since: stateSince(row, evaluation, j.at).toISOString(),
      key: j.key,
      report: intentReport(evaluation),
      at: j.at.toISOString(),
      step: writes ? step.kind : null,
      incident: step.kind === 'update' ? step.id : null,
      site_state: writes ? incidentSiteState(evaluation) : null,
      causes: writes ? intentCauses(evaluation) : null,
    };
  });
  const opened = await queryRows<{ id: string | number; site_id: number }>(
    tx,
    prepared(
      'judge-round',
      sql`
    WITH v AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS v(id integer, state text, since timestamptz, key text, report jsonb,
             at timestamptz, step text, incident bigint, site_state text, causes jsonb)),
    judged AS (
      UPDATE sites AS s
         SET intent_state = v.state, intent_since = v.since, intent_key = v.key,
             intent_report = v.report, intent_version = s.intent_version + 1
        FROM v WHERE s.id = v.id),
    updated AS (${updateIncidents(sql.raw('v'))})
    ${openIncidents(sql.raw('v'))}`,
    ),
  );
  return new Map(opened.map((row) => [row.site_id, Number(row.id)]));
}

/*
 * How judgements write their incidents, in a round's statement and in a state's own: each
 * reads a relation of judgements with the site (`id`), `at`, `step` ('open', 'update' or
 * null), `incident` (the one updated), `site_state`, `causes` and `report` (its
 * violations and their count).
 */

/** The open incidents the judgements update: their cells now, the worst count kept. */
export function updateIncidents(v: SQL): SQL {
  return sql`
      UPDATE incidents AS i
         SET site_state = ${v}.site_state, causes = ${v}.causes,
             violations = ${v}.report->'violations',
             violation_count = (${v}.report->>'violationCount')::int,
             grid = ${v}.report->'grid', lead = ${incidentLeadOf(v)},
             worst_count = GREATEST(i.worst_count, (${v}.report->>'violationCount')::int),
             updated_at = ${v}.at
        FROM ${v} WHERE ${v}.step = 'update' AND i.id = ${v}.incident`;
}

/**
 * An incident's lead as a judgement says it (incidentLead's phrase, without the cells read
 * again): when it cannot be judged, its one cause (what crawlers do then); else its
 * report's, said of every cell that differs (none in a report without one: the cells are
 * phrased when read).
 */
function incidentLeadOf(v: SQL): SQL {
  return sql`CASE WHEN ${v}.site_state = 'cannot-check' THEN ${v}.causes->>0 ELSE ${v}.report->>'lead' END`;
}

/** The incidents the judgements open, returning their ids and sites. */
export function openIncidents(v: SQL): SQL {
  return sql`
    INSERT INTO incidents (site_id, state, opened_at, site_state, causes, violations,
                           violation_count, grid, lead, worst_count, updated_at)
    SELECT ${v}.id, 'open', ${v}.at, ${v}.site_state, ${v}.causes, ${v}.report->'violations',
           (${v}.report->>'violationCount')::int, ${v}.report->'grid', ${incidentLeadOf(v)},
           (${v}.report->>'violationCount')::int, ${v}.at
      FROM ${v} WHERE ${v}.step = 'open'
    RETURNING id, site_id`;
}

/** An incident's columns as a judgement says them now. */
function incidentNow(j: NewJudgement): {
  siteState: 'cannot-check' | 'not-as-intended';
  causes: string[];
  violations: Violation[];
  violationCount: number;
  grid: ViolationGrid | null;
  lead: string | null;
  updatedAt: Date;
} {
  const { evaluation } = j;
  const now = {
    siteState: incidentSiteState(evaluation),
    causes: intentCauses(evaluation),
    violations: [...evaluation.violations],
    violationCount: evaluation.violationCount,
    grid: evaluation.grid ?? null,
  };
  return { ...now, lead: incidentLead({ state: 'open', ...now }), updatedAt: j.at };
}

/** Applies one judgement's transition (an opening is inserted already: `openedId`). */
async function applyStep(
  tx: Transaction,
  judgement: NewJudgement,
  step: IncidentStep,
  latest: Latest | undefined,
  openedId: number | undefined,
): Promise<JudgementRecorded> {
  const { siteId, evaluation, at } = judgement;
  if (step.kind === 'none') return NONE;
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
      ...(evaluation.grid === undefined ? {} : { grid: evaluation.grid }),
    };
    const drafts = incidentAlerts(named, targets, note, at);
    if (drafts.length === 0) return;
    await insertIncidentAlerts(tx, drafts, siteId, at, notBefore);
    // Reminders count from the last thing people were told of it.
    if (transition !== 'resolved')
      await tx.update(incidents).set({ notifiedAt: at }).where(eq(incidents.id, id));
  };
  if (step.kind === 'open') {
    await notify(openedId!, 'opened', at);
    return { step: 'open', incidentId: openedId!, worse: true };
  }
  if (step.kind === 'resolve') {
    await tx
      .update(incidents)
      .set({ state: 'resolved', resolvedAt: at, lead: null, updatedAt: at })
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
  if (step.kind === 'reopen') {
    await tx
      .update(incidents)
      .set({
        state: 'open',
        resolvedAt: null,
        reopened: sql`${incidents.reopened} + 1`,
        worstCount: sql`GREATEST(${incidents.worstCount}, ${evaluation.violationCount})`,
        ...incidentNow(judgement),
      })
      .where(eq(incidents.id, step.id));
    // Back within the flap window: its resolution was not sent yet, and now never is;
    // said again only if it was (a window of 0).
    if ((await withdrawResolution(tx, step.id)) === 0)
      await notify(step.id, 'opened', latest!.openedAt);
    return { step: 'reopen', incidentId: step.id, worse: false };
  }
  // The update itself is written for the whole round (writeRound).
  if (step.worse) await notify(step.id, 'worse', latest!.openedAt);
  return { step: 'update', incidentId: step.id, worse: step.worse };
}

const incidentHeadColumns = {
  id: incidents.id,
  siteId: incidents.siteId,
  origin: sites.origin,
  state: incidents.state,
  siteState: incidents.siteState,
  openedAt: incidents.openedAt,
  resolvedAt: incidents.resolvedAt,
  causes: incidents.causes,
  violationCount: incidents.violationCount,
  lead: incidents.lead,
  worstCount: incidents.worstCount,
  reopened: incidents.reopened,
  acknowledgedAt: incidents.acknowledgedAt,
  acknowledgedBy: incidents.acknowledgedBy,
  note: incidents.note,
};

const incidentColumns = {
  ...incidentHeadColumns,
  violations: incidents.violations,
  grid: incidents.grid,
};

/**
 * An incident read with its cells, its lead as kept (null once resolved: a resolution
 * clears it); phrased from the cells where it was written before leads were kept.
 */
function withLead(row: IncidentRecord): IncidentRecord {
  return row.state === 'open' && row.lead === null ? { ...row, lead: incidentLead(row) } : row;
}

/** Incidents, the newest first. */
export async function listIncidents(db: Database, query: IncidentQuery): Promise<IncidentRecord[]> {
  const rows = await newestFirst(
    db
      .select(incidentColumns)
      .from(incidents)
      .innerJoin(sites, eq(sites.id, incidents.siteId))
      .$dynamic(),
    query,
  );
  return rows.map(withLead);
}

/** The incidents a query asks for, newest first (drizzle's dynamic query: any columns). */
function newestFirst<T extends PgSelect>(select: T, query: IncidentQuery): T {
  return select.where(incidentFilter(query)).orderBy(desc(incidents.id)).limit(query.limit);
}

/**
 * Incidents, the newest first, as a list shows them: each by its lead, not its cells (up
 * to 200 each, 5 MB for 200 open incidents). An open one written before leads were kept
 * (migration 0027) has its cells read, its alone, to phrase it, and the phrase is kept: an
 * incident that stays as it is writes none of its own until it changes.
 */
export async function listIncidentHeads(
  db: Database,
  query: IncidentQuery,
): Promise<IncidentHead[]> {
  const rows: IncidentHead[] = await newestFirst(
    db
      .select(incidentHeadColumns)
      .from(incidents)
      .innerJoin(sites, eq(sites.id, incidents.siteId))
      .$dynamic(),
    query,
  );
  const unphrased = rows.filter((row) => row.state === 'open' && row.lead === null);
  if (unphrased.length === 0) return rows;
  const cells = await db
    .select({ id: incidents.id, violations: incidents.violations, grid: incidents.grid })
    .from(incidents)
    .where(
      inArray(
        incidents.id,
        unphrased.map((row) => row.id),
      ),
    );
  const byId = new Map(unphrased.map((row) => [row.id, row]));
  const leads = new Map(
    cells.map((read) => [read.id, incidentLead({ ...byId.get(read.id)!, ...read })] as const),
  );
  // Kept unless a judgement wrote the incident since (its lead says its cells now).
  await db.execute(sql`
    UPDATE incidents AS i SET lead = v.lead
      FROM jsonb_to_recordset(${JSON.stringify([...leads].map(([id, lead]) => ({ id, lead })))}::jsonb)
        AS v(id bigint, lead text)
     WHERE i.id = v.id AND i.state = 'open' AND i.lead IS NULL`);
  return rows.map((row) => {
    const lead = leads.get(row.id);
    return lead === undefined ? row : { ...row, lead };
  });
}

/** Which incidents a query asks for. */
function incidentFilter(query: IncidentQuery): SQL | undefined {
  const where: SQL[] = [];
  if (query.siteId !== undefined) where.push(eq(incidents.siteId, query.siteId));
  const only = inSites(incidents.siteId, query.siteIds);
  if (only !== undefined) where.push(only);
  if (query.state !== undefined) where.push(eq(incidents.state, query.state));
  if (query.before !== undefined) where.push(lt(incidents.id, query.before));
  return and(...where);
}

export async function getIncident(db: Database, id: number): Promise<IncidentRecord | undefined> {
  const [row] = await db
    .select(incidentColumns)
    .from(incidents)
    .innerJoin(sites, eq(sites.id, incidents.siteId))
    .where(eq(incidents.id, id));
  return row === undefined ? undefined : withLead(row);
}

/**
 * Acknowledges an incident: who and when, with a note (a later acknowledgment replaces
 * the note and keeps the first time). Returns it and whether it was written, or undefined
 * when there is none. With `waitingOnly` (one note for every open incident no one has
 * acknowledged), one resolved or acknowledged by someone else since it was read is left as
 * it is: the check is made on the row, locked, not on what was read before.
 */
export async function acknowledgeIncident(
  db: Database,
  id: number,
  ack: { readonly by: string; readonly note: string; readonly at: Date },
  /** Who hears of a first acknowledgment (PagerDuty acknowledges its incident too). */
  draftsFor?: (incident: IncidentRecord) => readonly IncidentDraft[],
  options: { readonly waitingOnly?: boolean } = {},
): Promise<{ incident: IncidentRecord; written: boolean } | undefined> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ acknowledgedAt: incidents.acknowledgedAt, state: incidents.state })
      .from(incidents)
      .where(eq(incidents.id, id))
      .for('update');
    if (before === undefined) return undefined;
    const written =
      options.waitingOnly !== true || (before.state === 'open' && before.acknowledgedAt === null);
    if (written)
      await tx
        .update(incidents)
        .set({
          acknowledgedAt: sql`COALESCE(${incidents.acknowledgedAt}, ${ack.at.toISOString()}::timestamptz)`,
          acknowledgedBy: ack.by,
          note: ack.note,
        })
        .where(eq(incidents.id, id));
    const [read] = await tx
      .select(incidentColumns)
      .from(incidents)
      .innerJoin(sites, eq(sites.id, incidents.siteId))
      .where(eq(incidents.id, id));
    const incident = withLead(read!);
    // Said once: a changed note acknowledges nothing new.
    const drafts = written && before.acknowledgedAt === null ? (draftsFor?.(incident) ?? []) : [];
    if (drafts.length > 0) await insertIncidentAlerts(tx, drafts, incident.siteId, ack.at, ack.at);
    return { incident, written };
  });
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
      const drafts = draftsFor(withLead(row));
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
