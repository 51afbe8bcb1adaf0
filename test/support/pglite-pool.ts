/**
 * Embedded databases kept between the tests of one test process. Opening PGlite from a
 * dump takes 0.6–1.1 s of CPU (it writes some 1,200 files into WebAssembly memory and
 * starts PostgreSQL), and about 200 tests open one each; emptying one that a test is done
 * with takes about a tenth of that. A test gets a database in the migrated template's
 * state either way:
 *
 * - its handle works only while the test holds it: once closed, every statement on it
 *   fails as on a closed database, so late work (a timer, an unawaited write) cannot
 *   reach the next test's database;
 * - when the test is done, its session is reset (an open transaction rolled back, its
 *   settings, temporary tables and locks discarded), every table emptied (truncated, its
 *   planner statistics dropped), the template's own rows (applied migrations, the job
 *   engine's queues) put back and every sequence set back where the template left it;
 * - a database whose schema the test changed (a table, a column, a function, a role, a
 *   setting of the database: told by a fingerprint of the catalogues) or that cannot be
 *   emptied is closed instead, and the next test opens a fresh one.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { DatabaseHandle } from '../../src/store/db.js';
import { pgliteHandle, pgliteInMemory } from '../../src/store/db-pglite.js';

/** What the template holds that emptying a database must restore. */
interface TemplateFacts {
  /** Every table to empty (partitions through their parent), schema-qualified and quoted. */
  readonly tables: readonly string[];
  /** The template's own rows, by table, as JSON. */
  readonly rows: ReadonlyMap<string, string>;
  /** Every sequence, with its value in the template (null: never used). */
  readonly sequences: readonly {
    readonly name: string;
    readonly value: string | null;
    readonly start: string;
  }[];
  readonly fingerprint: string;
}

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;

/** The catalogues' shape: any object created, dropped or altered changes it. */
const FINGERPRINT = `SELECT concat_ws('|',
  (SELECT count(*) || ':' || max(oid) FROM pg_class),
  (SELECT count(*) || ':' || max(oid) FROM pg_proc),
  (SELECT count(*) || ':' || max(oid) FROM pg_type),
  (SELECT count(*) || ':' || max(oid) FROM pg_namespace),
  (SELECT count(*) || ':' || coalesce(max(oid), 0) FROM pg_constraint),
  (SELECT count(*) || ':' || coalesce(max(oid), 0) FROM pg_trigger),
  (SELECT count(*) || ':' || coalesce(max(oid), 0) FROM pg_attrdef),
  (SELECT count(*) || ':' || coalesce(max(oid), 0) FROM pg_enum),
  (SELECT count(*) || ':' || sum(attisdropped::int) || ':' || sum(atttypid::bigint) FROM pg_attribute),
  (SELECT count(*) FROM pg_index),
  (SELECT count(*) FROM pg_roles),
  (SELECT count(*) FROM pg_db_role_setting)) AS fingerprint`;

async function fingerprint(client: PGlite): Promise<string> {
  const result = await client.query<{ fingerprint: string }>(FINGERPRINT);
  return result.rows[0]!.fingerprint;
}

async function templateFacts(client: PGlite): Promise<TemplateFacts> {
  const tables = (
    await client.query<{ name: string }>(
      `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND ${USER_SCHEMAS}
       ORDER BY 1`,
    )
  ).rows.map((r) => r.name);
  const rows = new Map<string, string>();
  for (const table of tables) {
    const result = await client.query<{ rows: string | null }>(
      `SELECT json_agg(t)::text AS rows FROM ${table} t`,
    );
    const kept = result.rows[0]!.rows;
    if (kept !== null) rows.set(table, kept);
  }
  const sequences = (
    await client.query<{ name: string; value: string | null; start: string }>(
      `SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS value,
         start_value::text AS start
       FROM pg_sequences WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    )
  ).rows;
  return { tables, rows, sequences, fingerprint: await fingerprint(client) };
}

/** Empties a database the template's way; false when it is no longer the template's shape. */
async function empty(client: PGlite, facts: TemplateFacts): Promise<boolean> {
  await client.exec('ROLLBACK'); // a warning only, when no transaction is open
  await client.exec('DISCARD ALL');
  if ((await fingerprint(client)) !== facts.fingerprint) return false;
  // Every table at once, storage and all: rows deleted one by one left their dead tuples
  // and index entries behind (an embedded database has no autovacuum), and the planner's
  // statistics of a test that analyzed (a daemon's upkeep runs ANALYZE) outlived it. A later
  // test then ran on another test's statistics, planned for other data: the likely reason
  // the alert log's 470 page reads once took over 120 s in CI, against 3 s. So the tables'
  // statistics go too.
  await client.exec(
    `TRUNCATE ${facts.tables.join(', ')};
     DELETE FROM pg_statistic s USING pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE s.starelid = c.oid AND ${USER_SCHEMAS};`,
  );
  for (const [table, rows] of facts.rows)
    await client.query(
      `INSERT INTO ${table} OVERRIDING SYSTEM VALUE
       SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`,
      [rows],
    );
  // Every sequence in one statement.
  await client.query(
    `SELECT setval(s.name, s.value, s.called)
     FROM json_to_recordset($1::json) AS s(name text, value bigint, called boolean)`,
    [
      JSON.stringify(
        facts.sequences.map(({ name, value, start }) => ({
          name,
          value: value ?? start,
          called: value !== null,
        })),
      ),
    ],
  );
  return true;
}

const CLOSED = 'PGlite is closed';

/**
 * The client as one test sees it: every method call fails once the test has closed it.
 * (Methods run on the client itself: PGlite keeps its state in private fields.)
 */
function leased(client: PGlite, open: () => boolean): PGlite {
  return new Proxy(client, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!open()) throw new Error(CLOSED);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

export class PglitePool {
  readonly #idle: PGlite[] = [];
  #facts: Promise<TemplateFacts> | undefined;
  readonly #dump: () => Promise<Blob>;

  constructor(dump: () => Promise<Blob>) {
    this.#dump = dump;
  }

  async #fresh(): Promise<PGlite> {
    return pgliteInMemory(await this.#dump());
  }

  /** A database in the template's state, for one test; closing the handle gives it back. */
  async take(): Promise<DatabaseHandle> {
    const client = this.#idle.pop() ?? (await this.#fresh());
    // The first database this process opens tells what the template holds.
    this.#facts ??= templateFacts(client);
    const facts = await this.#facts;
    let open = true;
    let released: Promise<void> | undefined;
    const release = async () => {
      open = false;
      const reusable = await empty(client, facts).catch(() => false);
      if (reusable) this.#idle.push(client);
      else await client.close();
    };
    return pgliteHandle(
      leased(client, () => open),
      'memory://',
      () => (released ??= release()),
    );
  }
}
