/**
 * The one file that knows which driver is in use: node-postgres for PostgreSQL
 * (DATABASE_URL set), PGlite embedded under the data directory otherwise (db-pglite.ts,
 * loaded only then). Everything else sees a drizzle `Database`, the same on both.
 */
import {
  entityKind,
  is,
  isSQLWrapper,
  Name,
  Param,
  Placeholder,
  SQL,
  sql,
  StringChunk,
} from 'drizzle-orm';
import type { SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg, NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../lib/package-root.js';
import { installJobSchema } from './job-schema.js';
import pg from 'pg';
import { listenOn } from './listen.js';
import type { Listening } from './listen.js';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseHandle {
  readonly db: Database;
  /**
   * The same database on one connection of its own, for a daemon's checks: their reads
   * and writes take turns on it and gather into larger batches, and the server runs one
   * backend for them rather than one for each check in flight (its changed checks, robowatch
   * and its backends, about a tenth less CPU; docs/performance.md, fifty-third round), while
   * the web UI, the job engine and the upkeep keep the pool. PostgreSQL only: the embedded
   * database has one connection for everything.
   */
  readonly checks?: Database;
  readonly kind: 'postgres' | 'pglite';
  /** Where it is, for messages (a URL without its password, or a directory). */
  readonly location: string;
  close(): Promise<void>;
  /** The embedded database's files as a tarball, to start others from (tests). */
  dump?(): Promise<Blob>;
  /** The migrations opening it applied, oldest first (their tags: `0020_snapshot_events`). */
  readonly applied?: readonly string[];
  /**
   * Raw SQL for the job engine: `$1`… placeholders; several statements at once when
   * there are no values (its migrations and locked maintenance commands).
   */
  readonly executor: SqlExecutor;
  /**
   * Calls `onNotify` with each notification on `channel`, on a connection of its own,
   * opened again when lost (and then called once with an empty payload, for what came
   * meanwhile): PostgreSQL only. The embedded database has one process, which makes every
   * change itself.
   */
  readonly listen?: (channel: string, onNotify: (payload: string) => void) => Listening;
}

/** What the job engine runs its SQL with (pg-boss's `db` adapter). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * One raw statement with `$1`… placeholders as a drizzle query, so that it runs on a
 * drizzle database or inside one of its transactions (a job created with the rows that
 * caused it).
 */
export function rawStatement(text: string, values: readonly unknown[] = []): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)));
    chunks.push(sql`${sql.param(values[Number(match[1]) - 1] ?? null)}`);
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks);
}

/**
 * `column` is one of the sites a person may see, when a list is limited to some (no
 * site at all: nothing matches); undefined when every site's rows are listed.
 */
export function inSites(column: SQLWrapper, ids: readonly number[] | undefined): SQL | undefined {
  if (ids === undefined) return undefined;
  if (ids.length === 0) return sql`false`;
  return sql`${column} IN (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/** The job engine's executor inside a drizzle transaction (one statement per call). */
export function executorOf(db: Pick<Database, 'execute'>): SqlExecutor {
  return {
    executeSql: async (text, values = []) => {
      const result: unknown = await db.execute(rawStatement(text, values));
      return result as { rows: unknown[] };
    },
  };
}

/** How a statement says it is to be prepared: the comment it starts with. */
const PREPARED = /^\/\* prepared ([a-z][a-z0-9-]*) \*\//;

/**
 * A statement run often with the same text (only its parameters change: arrays, JSON),
 * marked to be prepared once per connection under `name` on PostgreSQL: the server parses
 * it once, and plans it once if a generic plan is costed as good as the custom ones
 * (PostgreSQL decides after five runs; its batches' arrays go in by `batchParam`, so that
 * it does). The check path's large statements cost the server 0.4–0.7 ms apiece to parse,
 * as much as running some of them. `name` is the statement's own; two texts must never
 * share one. PGlite runs it as any other (the comment is all it sees).
 */
export function prepared(name: string, query: SQL): SQL {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`bad prepared statement name: ${name}`);
  const marked = sql.join([sql.raw(`/* prepared ${name} */ `), query]);
  (marked as Marked)[STATEMENT] = name;
  return marked;
}

/** A prepared statement's SQL carries its name: its text is rendered once (renderOnce). */
const STATEMENT = Symbol('prepared statement');
type Marked = SQL & { [STATEMENT]?: string };

let renderingOnce = false;

/** The texts of prepared statements, by dialect and name, and how many parameters each takes. */
const statementTexts = new WeakMap<object, Map<string, { sql: string; params: number }>>();

/**
 * drizzle renders a statement's SQL text afresh at every run: a new state's statement, 40
 * parameters in nested fragments, cost 0.1–0.2 ms of robowatch's CPU and 60 KB of
 * garbage a batch, the same text each time. A prepared statement's text cannot change
 * (its name is its text's), so it is rendered at its first run and kept; later runs only
 * gather the parameters, in the order drizzle would. A fragment the gathering does not
 * know (a column, a placeholder, inlined values), or another count of parameters, falls
 * back to drizzle's rendering.
 */
function renderOnce(): void {
  if (renderingOnce) return;
  renderingOnce = true;
  type Render = (
    this: object,
    query: SQL,
    invokeSource?: unknown,
  ) => { sql: string; params: unknown[] };
  const dialect = PgDialect.prototype as unknown as { sqlToQuery: Render };
  const render = dialect.sqlToQuery;
  const once: Render = function (query, invokeSource) {
    const name = (query as Marked)[STATEMENT];
    if (name === undefined) return render.call(this, query, invokeSource);
    let texts = statementTexts.get(this);
    if (texts === undefined)
      statementTexts.set(this, (texts = new Map<string, { sql: string; params: number }>()));
    const known = texts.get(name);
    if (known !== undefined) {
      const params: unknown[] = [];
      if (gatherParams(query.queryChunks, params) && params.length === known.params)
        return { sql: known.sql, params };
    }
    const rendered = render.call(this, query, invokeSource);
    texts.set(name, { sql: rendered.sql, params: rendered.params.length });
    return rendered;
  };
  dialect.sqlToQuery = once;
}

/**
 * A statement's parameters as drizzle's rendering gives them (SQL.buildQueryFromSourceParams):
 * nested fragments in order, a parameter's value mapped to the driver's, any other value
 * as itself. False for what only a rendering can tell.
 */
export function gatherParams(chunks: readonly unknown[], out: unknown[]): boolean {
  for (const chunk of chunks) {
    if (chunk === undefined || chunk instanceof StringChunk || chunk instanceof Name) continue;
    if (chunk instanceof SQL) {
      const inline = (chunk as unknown as { shouldInlineParams: boolean }).shouldInlineParams;
      if (inline || !gatherParams(chunk.queryChunks, out)) return false;
    } else if (chunk instanceof Param) {
      if (is(chunk.value, Placeholder)) return false;
      const value: unknown =
        chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
      if (is(value, SQL)) return false;
      out.push(value);
    } else if (Array.isArray(chunk)) {
      if (!gatherParams(chunk, out)) return false;
    } else if (typeof chunk === 'object' && chunk !== null && !(chunk instanceof Date)) {
      // A table, a column, a subquery, a placeholder…: rendered, not gathered.
      if (entityKind in chunk.constructor || isSQLWrapper(chunk)) return false;
      out.push(chunk);
    } else out.push(chunk);
  }
  return true;
}

/** The array types a batch's parameters are sent as. */
type ArrayType = 'int[]' | 'bigint[]' | 'text[]' | 'boolean[]' | 'timestamptz[]';

/**
 * A batch's array parameter, as a sub-select: `(SELECT $n::int[])::int[]`. PostgreSQL plans a
 * prepared statement anew at each run while a plan for the values at hand is costed
 * cheaper than one plan for any values, and it costs `unnest` (or `= ANY`) of an array it
 * can see by the array's length, of one it cannot at 100 rows: a batch of fewer always
 * looked cheaper to plan anew, and planning cost the server as much as running (a
 * changed check's read of its previous state: 1 ms of planning for 0.5 of running, per
 * batch). Behind a sub-select no plan sees the array, and from the sixth run on the
 * statement keeps one plan. Its plans are joins on keys, right for any batch.
 */
export function batchParam(values: readonly unknown[], type: ArrayType): SQL {
  // The cast after it makes it one value: `= ANY((SELECT …))` would compare with its rows.
  // Its fragment made from the text around the parameter, made once per type: drizzle's
  // `sql` tag, called for each column of each batch, got hot enough for V8 to optimise it
  // in every check (25 ms of compiling a run, docs/performance.md).
  let around = batchText.get(type);
  if (around === undefined)
    batchText.set(
      type,
      (around = [new StringChunk('(SELECT '), new StringChunk(`::${type})::${type}`)]),
    );
  return new SQL([around[0], new Param(values), around[1]]);
}

/** The text before and after a batch parameter of each type (`(SELECT $n::int[])::int[]`). */
const batchText = new Map<ArrayType, readonly [StringChunk, StringChunk]>();

/** One column of a batch's rows as a `batchParam`: `pick` of each row (and its place). */
export function batchColumn<T>(
  rows: readonly T[],
  type: ArrayType,
  pick: (row: T, i: number) => unknown,
): SQL {
  return batchParam(rows.map(pick), type);
}

/**
 * node-postgres runs a query config with a `name` as a prepared statement of that name
 * (parsed once per connection); drizzle passes its configs to the client as they are,
 * so a client names the marked ones here.
 */
function nameMarkedStatements(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
    if (typeof config === 'object' && config !== null) {
      const { text, name } = config as { text?: unknown; name?: unknown };
      const marked = name === undefined && typeof text === 'string' && PREPARED.exec(text);
      if (marked) return query({ ...config, name: marked[1] }, ...rest);
    }
    return query(config, ...rest);
  };
}

/**
 * A timestamp of a raw SQL row: the drivers answer with text for timestamptz (the query
 * builder's own columns are mapped), or null.
 */
export function rowDate(value: Date | string | null | undefined): Date | null {
  return value ? (value instanceof Date ? value : new Date(value)) : null;
}

/** Rows of a raw SQL query; both drivers answer with `{ rows }`. */
export async function queryRows<T>(db: Pick<Database, 'execute'>, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (result as { rows: T[] }).rows;
}

/** The database could not be opened; the message is one line that says why. */
export class DatabaseError extends Error {
  override readonly name = 'DatabaseError';
}

/** The embedded database is held by another running process (`pid`). */
export class DatabaseInUseError extends DatabaseError {
  constructor(
    message: string,
    readonly pid: number,
    readonly dataDir: string,
  ) {
    super(message);
  }
}

export interface OpenOptions {
  /** postgres:// URL; undefined opens the embedded database under `dataDir`. */
  readonly url: string | undefined;
  readonly dataDir: string;
  /** Connections in the PostgreSQL pool. */
  readonly poolSize?: number;
  /** How long to wait for a connection slot the server says is taken (SLOT_WAIT_MS). */
  readonly slotWaitMs?: number;
  /** An embedded database in memory, gone when closed (tests). */
  readonly inMemory?: boolean;
  /** With inMemory: start from another embedded database's dump rather than an empty one. */
  readonly fromDump?: Blob;
}

export const MIGRATIONS_FOLDER = fromRoot('migrations');

/**
 * The migrations a database still lacks, oldest first, as drizzle's migrator decides them:
 * those made after the last one recorded (its journal's `when` against the recorded
 * `created_at`); all of them where nothing is recorded yet (no migrations table).
 */
export async function pendingMigrations(
  query: (text: string) => Promise<{ rows: readonly { created_at: unknown }[] }>,
): Promise<string[]> {
  const last = await query(
    'SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1',
  ).then(
    (result) => (result.rows[0] === undefined ? undefined : Number(result.rows[0].created_at)),
    () => undefined, // no table yet: a database never migrated
  );
  const journal = JSON.parse(
    readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: { when: number; tag: string }[] };
  return journal.entries.filter((e) => last === undefined || last < e.when).map((e) => e.tag);
}

/**
 * A migrated embedded database, made by `npm run build` (writeSeed) for the PGlite it
 * was built with. A new data directory is unpacked from it instead of running initdb
 * inside WebAssembly, which grows PGlite's memory to about 800 MB for good (WebAssembly
 * memory never shrinks): a first `check` of 1,000 sites peaks at 279 MB instead of 797.
 */
export const SEED_FILE = fromRoot('dist', 'pglite-seed.tar.gz');

/** Opens the database and applies any pending migration. */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  renderOnce();
  if (options.url !== undefined)
    return openPostgres(options.url, options.poolSize ?? 10, options.slotWaitMs ?? SLOT_WAIT_MS);
  // PGlite (WebAssembly PostgreSQL) is loaded only for the embedded database.
  const { openPglite } = await import('./db-pglite.js');
  return openPglite(options.inMemory ? undefined : options.dataDir, options.fromDump);
}

/** What a drizzle node-postgres session holds that its transaction() uses. */
interface SessionParts {
  readonly client: pg.Pool | pg.PoolClient | pg.Client;
  readonly dialect: ConstructorParameters<typeof NodePgTransaction>[0];
  readonly schema: ConstructorParameters<typeof NodePgTransaction>[2];
  readonly options: ConstructorParameters<typeof NodePgSession>[3];
}

let transactionsMended = false;

/**
 * drizzle-orm's node-postgres transaction() (0.45) runs BEGIN before the try/finally that
 * releases its pool client (drizzle-team/drizzle-orm#6023 and #6241, open): when BEGIN
 * fails because the server ended the session (a database outage), the client stays
 * checked out for good, and pool.end() waits for it forever. A daemon stopped after an
 * outage then had nothing left to run but that wait, and Node ended it with exit code 13
 * (seen in CI, about once in fifteen runs of the outage test). And when ROLLBACK failed
 * too, the dead client went back to the pool as if it were healthy. Here BEGIN is inside
 * the try, the caller gets the transaction's own error, and a client whose transaction
 * could not begin or be rolled back is released as broken (pg-pool drops it).
 */
function mendTransactions(): void {
  if (transactionsMended) return;
  transactionsMended = true;
  const session = NodePgSession.prototype as unknown as {
    transaction(
      this: SessionParts,
      run: (tx: unknown) => Promise<unknown>,
      config?: unknown,
    ): Promise<unknown>;
  };
  session.transaction = async function (run, config) {
    const own = this.client instanceof pg.Pool ? await this.client.connect() : undefined;
    const tx = new NodePgTransaction(
      this.dialect,
      own === undefined
        ? (this as unknown as NodePgSession<Schema, never>)
        : new NodePgSession(own, this.dialect, this.schema, this.options),
      this.schema,
    );
    // Not begun, or not rolled back: the connection is released as broken.
    let broken = false;
    let began = false;
    try {
      const settings =
        config === undefined
          ? undefined
          : (tx as unknown as { getTransactionConfigSQL(c: unknown): SQL }).getTransactionConfigSQL(
              config,
            );
      await tx.execute(sql`begin${settings === undefined ? undefined : sql` ${settings}`}`);
      began = true;
      const result = await run(tx);
      await tx.execute(sql`commit`);
      return result;
    } catch (error) {
      if (!began) broken = true;
      else await tx.execute(sql`rollback`).catch(() => (broken = true));
      throw error;
    } finally {
      own?.release(broken);
    }
  };
}

/**
 * Large values (a state's verdict set, its intent report, the incident's violations) are
 * compressed with LZ4 where the server was built with it: PostgreSQL's own compressor took
 * 5–10% more of the statement that writes new states (bench:check, 3,000 sites). Set per
 * session, not in the schema, so that a dump restores on a server built without LZ4; the
 * values read back the same either way. Asked once per process: a server without it
 * would refuse a connection that named it.
 */
const PREFER_LZ4 = `SELECT set_config('default_toast_compression', 'lz4', false)
  FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)`;

async function openPostgres(
  url: string,
  poolSize: number,
  slotWaitMs: number,
): Promise<DatabaseHandle> {
  mendTransactions();
  const location = redact(url);
  const poolOptions = (max: number, name: string): pg.PoolConfig => ({
    connectionString: url,
    max,
    application_name: name,
    // A connection idle for a minute is closed (pg's default: 10 s). An idle daemon uses
    // one every few seconds (its pools' looks, its upkeep every 15 s), and closing them
    // after 10 s opened a session every 15 s: the server forking a backend, reading its
    // catalogue afresh, and each statement prepared again.
    idleTimeoutMillis: 60_000,
    connectionTimeoutMillis: 10_000,
    // No JIT compilation: robowatch's statements are short, and a misestimate on a table
    // that grew faster than it was analysed (a first sweep) made PostgreSQL compile each
    // of them, 70 ms of CPU apiece, to save nothing.
    options: '-c jit=off',
  });
  const pool = ownPool(poolOptions(poolSize, 'robowatch'));
  let client: pg.PoolClient;
  let applied: string[];
  try {
    client = await connectWhenSlotFree(pool, slotWaitMs);
  } catch (error) {
    await pool.end().catch(() => undefined);
    const full = sqlState(error) === TOO_MANY_CONNECTIONS ? noSlotFreed(slotWaitMs) : '';
    throw new DatabaseError(
      `cannot connect to the database at ${location}: ${describe(error)}${full}`,
    );
  }
  try {
    // Several processes may start at once: one migrates, the others wait for it.
    await client.query("SELECT pg_advisory_lock(hashtext('robowatch:migrate'))");
    applied = await pendingMigrations((text) => client.query(text));
    // Up to date (nearly every open): drizzle's migrator would read and hash every
    // migration file to find nothing to do.
    if (applied.length > 0)
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    await installJobSchema({ executeSql: (text, values) => client.query(text, values) });
  } catch (error) {
    client.release(true);
    await pool.end().catch(() => undefined);
    throw new DatabaseError(`cannot migrate the database at ${location}: ${describe(error)}`);
  }
  await client.query("SELECT pg_advisory_unlock(hashtext('robowatch:migrate'))");
  // Set on this session if the server has LZ4, and on the pool's later ones as they start.
  const lz4 = await client.query(PREFER_LZ4).then(
    (result) => result.rowCount === 1,
    () => false,
  );
  if (lz4) pool.options.options += ' -c default_toast_compression=lz4';
  client.release();
  // Its connection is opened at the first check, with the pool's settings (LZ4 included).
  const checks = ownPool({ ...poolOptions(1, 'robowatch checks'), options: pool.options.options });
  const listening = new Set<Listening>();
  return {
    db: drizzlePg(pool, { schema }) as unknown as Database,
    checks: drizzlePg(checks, { schema }) as unknown as Database,
    kind: 'postgres',
    location,
    applied,
    close: async () => {
      await Promise.all([...listening].map((l) => l.close()));
      await Promise.all([pool.end(), checks.end()]);
    },
    // A config object, so that a statement marked `/* prepared name */` is prepared by name.
    executor: { executeSql: (text, values) => pool.query({ text, values }) },
    listen: (channel, onNotify) => {
      const opened = listenOn(url, channel, onNotify);
      listening.add(opened);
      return {
        ready: opened.ready,
        close: async () => {
          listening.delete(opened);
          await opened.close();
        },
      };
    },
  };
}

/** PostgreSQL's SQLSTATE for a connection refused for want of a slot (role, database, server). */
const TOO_MANY_CONNECTIONS = '53300';

/**
 * How long opening the database goes on asking for a connection the server refuses for want
 * of a slot ("too many connections for role", "… for database", "sorry, too many clients
 * already"). A backend goes on counting against its role's limit for a moment after its
 * client has closed, so a command started as the one before it ends (a cron's `check` then
 * `digest`, as a role allowed one connection) could be refused though nothing else held the
 * role's slot. Asked again after 25 ms, then twice as long each time up to half a second.
 */
export const SLOT_WAIT_MS = 5_000;

/** Said after the server's refusal when no slot came free in `waitMs`. */
function noSlotFreed(waitMs: number): string {
  return ` (still refused after ${waitMs / 1000} s: every connection the role, the database or the server allows is held, by another robowatch process or another client)`;
}

/**
 * A connection from `pool`, waiting up to `waitMs` for a slot the server says is taken. A
 * refusal is always asked again once, however long the first answer took (a busy server
 * can take all of a short wait to refuse): the slot a command before it let go may be
 * free by then.
 */
async function connectWhenSlotFree(pool: pg.Pool, waitMs: number): Promise<pg.PoolClient> {
  const deadline = Date.now() + waitMs;
  for (let pause = 25, asked = 1; ; pause = Math.min(pause * 2, 500), asked++) {
    try {
      return await pool.connect();
    } catch (error) {
      if (sqlState(error) !== TOO_MANY_CONNECTIONS || (asked > 1 && Date.now() + pause > deadline))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** A pool of robowatch's connections, each marking its named statements. */
function ownPool(options: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(options);
  // A client losing its connection must not crash the process, idle or not: pg emits
  // 'error' on a checked-out client too (a transaction between two statements when the
  // server ends its session), and an 'error' event nobody listens to kills the process.
  // The pool drops the client; its next query fails and is retried like any other.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    nameMarkedStatements(client);
  });
  return pool;
}

/**
 * A database URL as messages show it: its password masked, in the URL's user part and in
 * a `?password=` (or `sslpassword=`) parameter, which the driver reads as well.
 */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    for (const key of ['password', 'sslpassword'])
      if (parsed.searchParams.has(key)) parsed.searchParams.set(key, '***');
    return parsed.toString();
  } catch {
    return 'the configured DATABASE_URL';
  }
}

export function describe(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: { message: string }[] };
  const message = e.message || e.errors?.[0]?.message || e.code || String(error);
  return message.split('\n')[0]!;
}

/**
 * Whether an error means the database cannot be reached (as opposed to a statement it
 * refused): no connection, a connection cut, a server shutting down or not accepting
 * connections to this database.
 */
export function isConnectionError(error: unknown): boolean {
  const code = sqlState(error);
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true; // ECONNREFUSED, a cut socket…
  return (
    code.startsWith('08') ||
    code.startsWith('57P') ||
    code === '55000' ||
    code === TOO_MANY_CONNECTIONS
  );
}
