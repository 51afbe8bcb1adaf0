import { StateMovedError } from '../lib/errors.js';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { eventJson } from '../policy/changes/events.js';
import type { VerdictAxes, VerdictCause, VerdictLookup, WatchVerdict } from '../policy/verdicts.js';
import { Batcher } from './batcher.js';
import { batchColumn, batchParam, prepared, queryRows, rowDate } from './db.js';
import type { Database } from './db.js';
import { insertAlertsOfStates } from './outbox.js';
import { bodies, sites, verdictSets } from './schema.js';
import { decodeVerdicts, encodeVerdicts, StoredVerdicts } from '../policy/verdict-sets.js';
import type { VerdictSet } from '../policy/verdict-sets.js';
import type {
  CheckRow,
  IncidentStart,
  JudgementBasis,
  NewSnapshot,
  RecordedState,
} from '../monitor/records.js';
import type { SiteState } from '../policy/intent.js';
import { openIncidents, updateIncidents } from './intent.js';
import { incidentStartOf } from './sites.js';

/**
 * Records checks that saw their site's state again: one small row each, the most
 * frequent write of all, by group commit.
 */
export class CheckWriter {
  readonly #commit: Batcher<CheckRow, undefined>;

  constructor(db: Database) {
    this.#commit = new Batcher(async (rows) => {
      await insertChecks(db, rows);
      return rows.map(() => undefined);
    }, 1000);
  }

  record(row: CheckRow): Promise<void> {
    return this.#commit.add(row);
  }
}

/**
 * Inserts check rows as one statement with one array parameter per column, and counts
 * them on their snapshots (how many checks saw each state, and when last) in the same
 * statement.
 */
async function insertChecks(
  db: Pick<Database, 'execute'>,
  rows: readonly CheckRow[],
): Promise<void> {
  await db.execute(
    prepared(
      'insert-checks',
      sql`
    WITH added AS (
      INSERT INTO checks (snapshot_id, checked_at, duration_ms, transient)
      SELECT * FROM unnest(
        ${batchColumn(rows, 'bigint[]', (r) => r.snapshotId)},
        ${batchColumn(rows, 'timestamptz[]', (r) => r.checkedAt.toISOString())},
        ${batchColumn(rows, 'int[]', (r) => r.durationMs)},
        ${batchColumn(rows, 'text[]', (r) => r.transient)})
      RETURNING snapshot_id, checked_at)
    UPDATE snapshots AS s SET check_count = s.check_count + a.n,
      last_checked_at = GREATEST(s.last_checked_at, a.last)
    FROM (SELECT snapshot_id, count(*)::int AS n, max(checked_at) AS last FROM added GROUP BY 1) AS a
    WHERE s.id = a.snapshot_id`,
    ),
  );
}

/**
 * Records new states: each one's body (stored once by hash), snapshot, verdict set,
 * change events, the check that saw it, and the site's pointer to it, by group commit:
 * while one statement is in flight the next states wait, and the following statement
 * writes them all at once (no timer, nothing held back). States with alerts are written
 * the same way, in a transaction with their alerts and each alert's delivery job.
 *
 * The site's row is the guard: a state is recorded only on top of the one it was
 * compared with, so two checks of a site at once cannot both record (and alert) the
 * same change; the loser records nothing and gets StateMovedError (its check is retried).
 */
export class SnapshotWriter {
  readonly #commit: Batcher<NewSnapshot, RecordedState | null>;
  readonly #commitWithAlerts: Batcher<NewSnapshot, RecordedState | null>;

  constructor(db: Database) {
    this.#commit = new Batcher((states) => insertSnapshots(db, states), 200);
    // States with alerts by group commit too: those that arrive while one transaction
    // is written go in the next, each state in the same transaction as its alerts.
    this.#commitWithAlerts = new Batcher(
      (states) =>
        db.transaction(async (tx) => {
          const written = await insertSnapshots(tx, states);
          await insertAlertsOfStates(
            tx,
            states.flatMap((state, i) => {
              const id = written[i]?.snapshotId;
              if (id === undefined) return [];
              return [
                {
                  drafts: state.alerts,
                  snapshot: { siteId: state.siteId, snapshotId: id, previousId: state.previousId },
                  now: state.check.checkedAt,
                },
              ];
            }),
          );
          return written;
        }),
      200,
    );
  }

  /** Records a state (and its judgement, if it has one): its id and the incident it opened. */
  async recordState(snapshot: NewSnapshot): Promise<RecordedState> {
    const written = await (snapshot.alerts.length > 0 ? this.#commitWithAlerts : this.#commit).add(
      snapshot,
    );
    if (written === null) throw new StateMovedError(snapshot.siteId);
    return written;
  }
}

/**
 * A body as the statement sends it: base64, a third larger than the bytes where hex was
 * twice as large (a changed check sends 8 KB a site; its bodies were an eighth of it).
 * Read in place, not copied into a Buffer first.
 */
function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Writes new states in one statement of data-modifying CTEs (they see none of each
 * other's rows; the foreign keys are checked at the end of the statement, when the
 * snapshots are there), each with its judgement when it has one: the site's state against
 * intent and the incident it opens or updates. Returns each state's new id (and the
 * incident it opened), or null where the site had moved on: another check recorded a
 * state meanwhile (or an earlier state of the same batch), or another judgement of the
 * site came between the reads this one was decided from and this statement. The site's
 * row is the guard of both: an update that waited for another transaction's lock on it
 * checks its condition again on the row that transaction left, while the statement's
 * other reads see the tables as they were when it began.
 *
 * The guard names the batch's sites by their key as well as by the join: the planner
 * costs a join by the table's statistics, and a table just filled (a first check of new
 * sites, before autovacuum has read it) has none, so it read every site for each batch: a
 * third of a first check's statement time (bench:check, 3,000 sites).
 */
async function insertSnapshots(
  db: Pick<Database, 'execute'>,
  snapshots: readonly NewSnapshot[],
): Promise<(RecordedState | null)[]> {
  const col = (
    pick: (s: NewSnapshot, i: number) => unknown,
    type: Parameters<typeof batchParam>[1],
  ) => batchColumn(snapshots, type, pick);
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  const json = (value: unknown) => JSON.stringify(value);
  const sets = snapshots.map((s) => s.verdicts);
  // The JSON values travel as one jsonb document each (not as jsonb[]: an array literal
  // escapes every quote of every document, on both sides).
  const documents = snapshots.map((s, i) => {
    const set = sets[i] ?? null;
    const j = s.judgement;
    return [
      s.redirects,
      s.causes,
      set === null
        ? null
        : // The state before's set has its axes (0.7 KB of URLs for 20 watches).
          s.axesAsBefore === true
          ? { causes: set.causes, counts: set.counts, registry: s.registry ?? null }
          : {
              urls: set.urls,
              agents: set.agents,
              profiles: set.profiles,
              causes: set.causes,
              counts: set.counts,
              registry: s.registry ?? null,
            },
      j === undefined
        ? null
        : {
            version: j.version,
            state: j.state,
            since: j.since.toISOString(),
            key: j.keyPrefix,
            report: j.report,
            at: j.at.toISOString(),
            step: j.step.kind === 'none' ? null : j.step.kind,
            incident: j.step.kind === 'update' ? j.step.id : null,
            site_state: j.siteState,
            causes: j.causes,
          },
    ];
  });
  // Each event's text is made once (eventJson): `check --json` prints the same.
  // As one JSON text (an array literal would escape every quote of every event).
  const events = `[${snapshots.map((s) => (s.events.length === 0 ? 'null' : `[${s.events.map(eventJson).join(',')}]`)).join(',')}]`;
  const eventTypes = snapshots.map((s) =>
    s.events.length === 0 ? null : `{${[...new Set(s.events.map((e) => e.type))].join(',')}}`,
  );
  const rows = await queryRows<{
    ord: number;
    id: string | number;
    incident: string | number | null;
  }>(
    db,
    prepared(
      'insert-states',
      sql`
      WITH input AS (
        SELECT * FROM unnest(
          ${col((_, i) => i, 'int[]')},
          ${col((s) => s.siteId, 'int[]')},
          ${col((s) => s.previousId, 'bigint[]')},
          ${col((s) => s.status, 'int[]')},
          ${col((s) => s.error, 'text[]')},
          ${col((s) => s.errorDetail, 'text[]')},
          ${col((s) => s.body?.sha256 ?? null, 'text[]')},
          ${col((s) => (s.body === null ? null : base64Of(s.body.bytes)), 'text[]')},
          ${col((s) => s.cut?.droppedBytes ?? null, 'int[]')},
          ${col((s) => s.cut?.droppedLineBreaks ?? null, 'int[]')},
          ${col((s) => s.cut?.complete ?? null, 'boolean[]')},
          ${col((s) => s.finalUrl, 'text[]')},
          ${col((s) => s.stale, 'boolean[]')},
          ${col((s) => s.lastGoodId, 'bigint[]')},
          ${col((s) => iso(s.firstSeenAt), 'timestamptz[]')},
          ${col((s) => s.fileCondition, 'text[]')},
          ${col((s) => s.verdictsKey, 'text[]')},
          ${col((s) => iso(s.unreachableSince), 'timestamptz[]')},
          ${col((s) => iso(s.check.checkedAt), 'timestamptz[]')},
          ${col((s) => s.check.durationMs, 'int[]')},
          ${col((s) => s.check.transient, 'text[]')},
          ${batchParam(
            sets.map((v) => (v === null ? null : `{${v.cells.join(',')}}`)),
            'text[]',
          )},
          ${batchParam(eventTypes, 'text[]')}
        ) AS t(ord, site_id, previous_id, status, error, error_detail, sha256, body_base64,
          dropped_bytes, dropped_line_breaks, dropped_complete, final_url, stale,
          last_good_id, first_seen_at, file_condition, verdicts_key, unreachable_since,
          checked_at, duration_ms, transient, cells, event_types)),
      documents AS (
        SELECT n - 1 AS ord, d->0 AS redirects, d->1 AS causes,
          NULLIF(d->2, 'null'::jsonb) AS verdict_set, NULLIF(d->3, 'null'::jsonb) AS judgement
        FROM jsonb_array_elements(${json(documents)}::jsonb) WITH ORDINALITY AS x(d, n)),
      state_events AS (
        SELECT n - 1 AS ord, CASE WHEN json_typeof(e) = 'null' THEN NULL ELSE e END AS events
        FROM json_array_elements(${events}::json) WITH ORDINALITY AS x(e, n)),
      fresh AS (
        SELECT input.*, documents.redirects, documents.causes, documents.verdict_set,
          documents.judgement, state_events.events,
          -- The sequence by its name (migrations/0000), resolved once with the statement:
          -- pg_get_serial_sequence looked it up again for every row (1.6 µs apiece).
          nextval('snapshots_id_seq'::regclass) AS id
        FROM input JOIN documents USING (ord) JOIN state_events USING (ord)),
      guard AS (
        UPDATE sites AS s SET current_snapshot_id = f.id, verdicts_key = f.verdicts_key,
          unreachable_since = f.unreachable_since,
          current_status = f.status, current_error = f.error, current_stale = f.stale,
          current_file_condition = CASE WHEN f.sha256 IS NOT NULL THEN f.file_condition
            ELSE (SELECT p.file_condition FROM snapshots p WHERE p.id = f.last_good_id) END,
          blocking = COALESCE(
            jsonb_path_exists(f.verdict_set->'counts', '$[*] ? (@.disallowed > 0)'), false),
          intent_state = CASE WHEN f.judgement IS NULL THEN s.intent_state
            ELSE f.judgement->>'state' END,
          intent_since = CASE WHEN f.judgement IS NULL THEN s.intent_since
            ELSE (f.judgement->>'since')::timestamptz END,
          intent_key = CASE WHEN f.judgement IS NULL THEN s.intent_key
            ELSE (f.judgement->>'key') || ':' || f.id END,
          intent_report = CASE WHEN f.judgement IS NULL THEN s.intent_report
            ELSE f.judgement->'report' END,
          intent_version = s.intent_version + CASE WHEN f.judgement IS NULL THEN 0 ELSE 1 END
        FROM fresh AS f
        WHERE s.id = f.site_id AND s.id = ANY(${col((s) => s.siteId, 'int[]')})
          AND s.current_snapshot_id IS NOT DISTINCT FROM f.previous_id
          AND (f.judgement IS NULL OR s.intent_version = (f.judgement->>'version')::int)
          -- Axes taken from the state before's set: only while it was made for the same.
          AND (f.verdict_set IS NULL OR f.verdict_set->'urls' IS NOT NULL
            OR s.verdicts_key = f.verdicts_key)
        RETURNING f.ord),
      ok AS (SELECT f.* FROM fresh AS f JOIN guard AS g ON g.ord = f.ord),
      stored_bodies AS (
        INSERT INTO bodies (sha256, content, size)
        SELECT DISTINCT ON (sha256) sha256, content, length(content)
        FROM (SELECT sha256, decode(body_base64, 'base64') AS content FROM ok
          WHERE sha256 IS NOT NULL) AS b
        ON CONFLICT (sha256) DO NOTHING),
      stored_snapshots AS (
        INSERT INTO snapshots (id, site_id, previous_id, status, error, error_detail,
          body_sha256, truncated, dropped_bytes, dropped_line_breaks, dropped_complete,
          redirects, final_url, stale, last_good_id, first_seen_at, file_condition, causes,
          events, event_types, check_count, last_checked_at)
        OVERRIDING SYSTEM VALUE
        SELECT id, site_id, previous_id, status, error, error_detail, sha256,
          dropped_bytes IS NOT NULL, dropped_bytes, dropped_line_breaks, dropped_complete,
          redirects, final_url, stale, CASE WHEN sha256 IS NOT NULL THEN id ELSE last_good_id END,
          first_seen_at, file_condition, causes, events, event_types::text[], 1, checked_at
        FROM ok),
      stored_verdicts AS (
        INSERT INTO verdict_sets (snapshot_id, urls, agents, profiles, causes, cells, counts,
          registry_sha256)
        SELECT ok.id,
          CASE WHEN ok.verdict_set->'urls' IS NULL THEN p.urls ELSE
          ARRAY(SELECT x FROM jsonb_array_elements_text(ok.verdict_set->'urls') WITH ORDINALITY AS e(x, n) ORDER BY n) END,
          CASE WHEN ok.verdict_set->'agents' IS NULL THEN p.agents ELSE
          ARRAY(SELECT x FROM jsonb_array_elements_text(ok.verdict_set->'agents') WITH ORDINALITY AS e(x, n) ORDER BY n) END,
          CASE WHEN ok.verdict_set->'profiles' IS NULL THEN p.profiles ELSE
          ARRAY(SELECT x FROM jsonb_array_elements_text(ok.verdict_set->'profiles') WITH ORDINALITY AS e(x, n) ORDER BY n) END,
          ok.verdict_set->'causes',
          ok.cells::int[],
          ok.verdict_set->'counts',
          ok.verdict_set->>'registry'
        -- Without the state before's set, its axes are null: the row is refused, not wrong.
        FROM ok LEFT JOIN verdict_sets AS p
          ON p.snapshot_id = ok.previous_id AND ok.verdict_set->'urls' IS NULL
        WHERE ok.verdict_set IS NOT NULL),
      stored_checks AS (
        INSERT INTO checks (snapshot_id, checked_at, duration_ms, transient)
        SELECT id, checked_at, duration_ms, transient FROM ok),
      judged AS (
        SELECT ok.site_id AS id, j.*
        FROM ok CROSS JOIN LATERAL jsonb_to_record(ok.judgement)
          AS j(at timestamptz, step text, incident bigint, site_state text, causes jsonb,
               report jsonb)
        WHERE ok.judgement IS NOT NULL),
      opened AS (${openIncidents(sql.raw('judged'))}),
      reported AS (${updateIncidents(sql.raw('judged'))})
      SELECT ok.ord, ok.id, o.id AS incident FROM ok LEFT JOIN opened AS o USING (site_id)`,
    ),
  );
  const written: (RecordedState | null)[] = snapshots.map(() => null);
  for (const row of rows)
    written[row.ord] = {
      snapshotId: Number(row.id),
      openedIncidentId: row.incident === null ? null : Number(row.incident),
    };
  return written;
}

/** Replaces a snapshot's verdicts after the watches or agents changed (no events: the file did not). */
export async function replaceVerdicts(
  db: Database,
  siteId: number,
  snapshotId: number,
  rows: readonly WatchVerdict[],
  verdictsKey: string,
  registry: string | null = null,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(verdictSets).where(eq(verdictSets.snapshotId, snapshotId));
    await insertVerdicts(tx, snapshotId, rows, registry);
    await tx
      .update(sites)
      .set({ verdictsKey, blocking: rows.some((r) => !r.allowed) })
      .where(and(eq(sites.id, siteId), eq(sites.currentSnapshotId, snapshotId)));
  });
}

/** A set as the verdict_sets table's columns take it (the query builder wants its own arrays). */
export function verdictSetRow(set: VerdictSet) {
  return {
    urls: [...set.urls],
    agents: [...set.agents],
    profiles: [...set.profiles],
    causes: [...set.causes],
    cells: [...set.cells],
    counts: set.counts,
  };
}

/** Stores a snapshot's verdicts as one compact row (policy/verdict-sets.ts). */
async function insertVerdicts(
  tx: Pick<Database, 'insert'>,
  snapshotId: number,
  rows: readonly WatchVerdict[],
  registry: string | null,
) {
  if (rows.length === 0) return;
  await tx
    .insert(verdictSets)
    .values({ snapshotId, ...verdictSetRow(encodeVerdicts(rows)), registrySha256: registry });
}

/** What a snapshot's verdicts are decoded from. */
const verdictColumns = {
  urls: verdictSets.urls,
  agents: verdictSets.agents,
  profiles: verdictSets.profiles,
  causes: verdictSets.causes,
  cells: verdictSets.cells,
};

/** A snapshot's verdicts. */
export async function loadVerdicts(db: Database, snapshotId: number): Promise<WatchVerdict[]> {
  const [set] = await db
    .select(verdictColumns)
    .from(verdictSets)
    .where(eq(verdictSets.snapshotId, snapshotId));
  return set === undefined ? [] : decodeVerdicts(set);
}

/** Several snapshots' verdicts in one query, by snapshot id (a snapshot without any is absent). */
export async function loadVerdictsOf(
  db: Database,
  snapshotIds: readonly number[],
): Promise<Map<number, WatchVerdict[]>> {
  if (snapshotIds.length === 0) return new Map();
  const sets = await db
    .select({ snapshotId: verdictSets.snapshotId, ...verdictColumns })
    .from(verdictSets)
    .where(inArray(verdictSets.snapshotId, [...snapshotIds]));
  return new Map(sets.map((set) => [set.snapshotId, decodeVerdicts(set)]));
}

/** A stored body by its hash. */
export async function loadBody(db: Database, sha256: string): Promise<Uint8Array> {
  const [row] = await db
    .select({ content: bodies.content })
    .from(bodies)
    .where(eq(bodies.sha256, sha256));
  if (row === undefined) throw new Error(`body ${sha256} is missing from the store`);
  return row.content;
}

/** When any site's check last completed, in any process; null before the first. */
export async function lastCheckAt(db: Database): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`SELECT max(checked_at) AS at FROM checks`,
  );
  return row?.at ? new Date(row.at) : null;
}

/** What a new state of a site is compared with: its current state's stored parts. */
export interface PreviousParts {
  /** The last good copy's body (null when there is none). */
  readonly body: Uint8Array | null;
  /** The current snapshot's verdicts, read back compactly: a new state's are compared with them. */
  readonly verdicts: VerdictLookup;
  readonly incident: IncidentStart;
  readonly judgement: JudgementBasis;
}

interface PreviousRequest {
  readonly siteId: number;
  readonly snapshotId: number;
  readonly lastGoodSha256: string | null;
  /** The verdicts' URLs, crawlers and profiles, when the check knows them. */
  readonly axes: VerdictAxes | undefined;
}

/**
 * Reads what new states are compared with, for the checks that ask at the same time in
 * one query (a changed check's three reads, for many sites, in one round trip).
 */
export class PreviousReader {
  readonly #batch: Batcher<PreviousRequest, PreviousParts>;

  constructor(db: Database) {
    this.#batch = new Batcher((requests) => loadPreviousParts(db, requests), 200);
  }

  load(
    siteId: number,
    snapshotId: number,
    lastGoodSha256: string | null,
    axes?: VerdictAxes,
  ): Promise<PreviousParts> {
    return this.#batch.add({ siteId, snapshotId, lastGoodSha256, axes });
  }
}

/** A snapshot with no verdicts stored: none to compare with. */
const NO_VERDICTS = new StoredVerdicts({
  urls: [],
  agents: [],
  profiles: [],
  causes: [],
  cells: [],
});

/**
 * A stored verdict set, read from one JSON text (V8 parses it at once; the driver's parser
 * of text[] columns read the URLs and crawlers character by character), in the order a
 * check computes verdicts.
 */
function previousVerdicts(text: string, axes: VerdictAxes | undefined): StoredVerdicts {
  const [urls, agents, profiles, causes, cells] = JSON.parse(text) as [
    string[] | null,
    string[] | null,
    string[] | null,
    VerdictCause[],
    number[],
  ];
  // Axes the check gave are not read back (a changed site's 20 URLs are 0.7 KB).
  return new StoredVerdicts({
    urls: urls ?? axes!.urls,
    agents: agents ?? axes!.agents,
    profiles: profiles ?? axes!.profiles,
    causes,
    cells,
  });
}

async function loadPreviousParts(
  db: Pick<Database, 'execute'>,
  requests: readonly PreviousRequest[],
): Promise<PreviousParts[]> {
  const rows = await queryRows<{
    ord: number;
    body: string | null;
    verdict_set: string | null;
    troubled: boolean | null;
    intent_version: number;
    intent_state: SiteState | null;
    intent_since: string | Date | null;
    incident_id: string | number | null;
    incident_state: 'open' | 'resolved' | null;
    site_state: 'not-as-intended' | 'cannot-check' | null;
    violation_count: number | null;
    worst_count: number | null;
    causes: string[] | null;
    resolved_at: string | Date | null;
  }>(
    db,
    prepared(
      'load-previous',
      sql`
      SELECT r.ord, encode(b.content, 'base64') AS body,
        CASE WHEN v.snapshot_id IS NULL THEN NULL
          WHEN r.axes_known THEN json_build_array(NULL, NULL, NULL, v.causes, v.cells)::text
          ELSE json_build_array(v.urls, v.agents, v.profiles, v.causes, v.cells)::text
        END AS verdict_set,
        NOT (c.status BETWEEN 200 AND 299
          AND coalesce(c.file_condition, 'robots') IN ('robots', 'cut')) AS troubled,
        s.intent_version, s.intent_state, s.intent_since, i.id AS incident_id,
        i.state AS incident_state, i.site_state, i.violation_count, i.worst_count, i.causes,
        i.resolved_at
      FROM unnest(${batchColumn(requests, 'int[]', (_, i) => i)},
        ${batchColumn(requests, 'int[]', (r) => r.siteId)},
        ${batchColumn(requests, 'bigint[]', (r) => r.snapshotId)},
        ${batchColumn(requests, 'text[]', (r) => r.lastGoodSha256)},
        ${batchColumn(requests, 'boolean[]', (r) => r.axes !== undefined)})
        AS r(ord, site_id, snapshot_id, sha256, axes_known)
      JOIN sites AS s ON s.id = r.site_id
      LEFT JOIN snapshots AS c ON c.id = r.snapshot_id
      LEFT JOIN bodies AS b ON b.sha256 = r.sha256
      LEFT JOIN verdict_sets AS v ON v.snapshot_id = r.snapshot_id
      LEFT JOIN LATERAL (
        SELECT * FROM incidents AS i WHERE i.site_id = r.site_id ORDER BY i.id DESC LIMIT 1
      ) AS i ON true`,
    ),
  );
  const parts: PreviousParts[] = [];
  const troubled: number[] = [];
  for (const row of rows) {
    const request = requests[row.ord]!;
    if (request.lastGoodSha256 !== null && row.body === null)
      throw new Error(`body ${request.lastGoodSha256} is missing from the store`);
    parts[row.ord] = {
      body: row.body === null ? null : new Uint8Array(Buffer.from(row.body, 'base64')),
      verdicts:
        row.verdict_set === null ? NO_VERDICTS : previousVerdicts(row.verdict_set, request.axes),
      incident: NO_INCIDENT,
      judgement: {
        version: row.intent_version,
        state: row.intent_state,
        since: rowDate(row.intent_since),
        latest:
          row.incident_id === null
            ? null
            : {
                id: Number(row.incident_id),
                state: row.incident_state!,
                siteState: row.site_state!,
                violationCount: row.violation_count!,
                worstCount: row.worst_count!,
                causes: row.causes!,
                resolvedAt: rowDate(row.resolved_at),
              },
      },
    };
    if (row.troubled !== false) troubled.push(row.ord);
  }
  // When the trouble began, only where the state read is in trouble (a failing fetch, a
  // file that is not robots.txt): of a state that fetched a robots.txt, both are null by
  // definition. Asking for all of them cost the changed check's reads half their time.
  if (troubled.length > 0) {
    const starts = await queryRows<{
      ord: number;
      access: string | Date | null;
      file: string | Date | null;
    }>(
      db,
      prepared(
        'incident-starts',
        sql`
        SELECT r.ord, i.access, i.file
        FROM unnest(${batchParam(troubled, 'int[]')},
          ${batchColumn(troubled, 'int[]', (ord) => requests[ord]!.siteId)},
          ${batchColumn(troubled, 'bigint[]', (ord) => requests[ord]!.snapshotId)})
          AS r(ord, site_id, snapshot_id)
        CROSS JOIN LATERAL (${incidentStartOf(sql`r.site_id`, sql`r.snapshot_id`)}) AS i`,
      ),
    );
    for (const row of starts)
      parts[row.ord] = {
        ...parts[row.ord]!,
        incident: { access: rowDate(row.access), file: rowDate(row.file) },
      };
  }
  return parts;
}

/** A state that fetched a robots.txt is part of no trouble. */
const NO_INCIDENT: IncidentStart = Object.freeze({ access: null, file: null });
