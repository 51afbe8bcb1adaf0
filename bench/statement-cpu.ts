/**
 * Where the backends' CPU goes, statement by statement (bench:alternate with
 * BENCH_PG_LOG=FILE, the server's log file, readable by the benchmark). The run's database
 * is set to log each statement's resource use (`log_statement_stats`, with the statement's
 * text: `log_min_error_statement = log`); what its sessions logged between two marks is
 * read back per statement (its prepared name, `/* prepared NAME *\/`, else its first words)
 * and phase (PARSE, BIND, EXECUTE of the extended protocol; QUERY of a simple one). BIND is
 * where the server reads the parameters (a jsonb parameter is parsed there) and plans.
 * Logging costs the backends a little CPU of its own: an instrument for where, not for
 * how much in all.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import pg from 'pg';
import { spread } from './process-support.js';

export interface StatementCpu {
  readonly calls: number;
  /** User + system CPU seconds. */
  readonly cpu: number;
}

/** CPU by "statement phase", e.g. "insert-states BIND". */
export type StatementTable = Map<string, StatementCpu>;

export interface StatementLog {
  /** Where the log ends now. */
  mark(): number;
  /** What the database's sessions logged between two marks. */
  read(from: number, to: number): StatementTable;
}

/** Sets the database at `url` to log its statements' CPU, to be read from `logPath`. */
export async function statementLog(url: string, logPath: string): Promise<StatementLog> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of ['log_statement_stats = on', 'log_min_error_statement = log'])
      await client.query(`ALTER DATABASE "${database.replaceAll('"', '""')}" SET ${setting}`);
  } finally {
    await client.end();
  }
  return {
    mark: () => statSync(logPath).size,
    read: (from, to) => parseStatementLog(readRange(logPath, from, to), database),
  };
}

function readRange(path: string, from: number, to: number): string {
  const buffer = Buffer.alloc(Math.max(0, to - from));
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, from);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

/**
 * A log's statement statistics of one database's sessions, summed by statement and phase.
 * The lines must carry the backend's pid and `user@database` (Debian's default prefix,
 * `%m [%p] %q%u@%d `): the statistics, their DETAIL and their STATEMENT come as separate
 * lines of the same pid, interleaved with other sessions' lines.
 */
export function parseStatementLog(text: string, database: string): StatementTable {
  const line = /\[(\d+)\] (?:\S*@(\S+) )?(LOG|DETAIL|STATEMENT):\s+(.*)$/;
  const usage = /!\s+([\d.]+) s user, ([\d.]+) s system/;
  // Per pid: the statistics read, waiting for their statement.
  const pending = new Map<string, { phase: string; cpu: number; text?: string }>();
  const table: StatementTable = new Map();
  const add = (entry: { phase: string; cpu: number; text?: string }) => {
    const key = `${statementName(entry.text ?? '')} ${entry.phase}`;
    const known = table.get(key) ?? { calls: 0, cpu: 0 };
    table.set(key, { calls: known.calls + 1, cpu: known.cpu + entry.cpu });
  };
  let current: { phase: string; cpu: number; text?: string } | undefined;
  for (const raw of text.split('\n')) {
    const m = line.exec(raw);
    if (m === null) {
      // A continuation: the usage lines of a DETAIL, or more of a statement's text.
      const used = current && current.cpu < 0 ? usage.exec(raw) : null;
      if (used && current) current.cpu = Number(used[1]) + Number(used[2]);
      continue;
    }
    const [, pid, db, kind, rest] = m;
    if (db !== database) {
      current = undefined;
      continue;
    }
    if (kind === 'LOG' && rest!.endsWith(' STATISTICS')) {
      const before = pending.get(pid!);
      if (before) add(before); // logged without its statement
      current = { phase: rest!.split(' ')[0]!, cpu: -1 };
      pending.set(pid!, current);
    } else if (kind === 'DETAIL') {
      current = pending.get(pid!);
    } else if (kind === 'STATEMENT') {
      const entry = pending.get(pid!);
      pending.delete(pid!);
      if (entry && entry.cpu >= 0) add({ ...entry, text: rest! });
      current = undefined;
    }
  }
  for (const entry of pending.values()) if (entry.cpu >= 0) add(entry);
  return table;
}

/** A statement's prepared name, else its first words. */
function statementName(text: string): string {
  const prepared = /^\/\* prepared ([\w-]+) \*\//.exec(text.trim());
  if (prepared) return prepared[1]!;
  return text.trim().replace(/\s+/g, ' ').slice(0, 48) || '(unknown)';
}

/**
 * The backends' CPU of some runs by statement and phase, the dearest first: calls and CPU
 * µs per unit (a site of a check, a check of a daemon's period), min / median / max of
 * the runs, and each one's median share of the CPU the log accounts for.
 */
export function printStatements(
  runs: readonly StatementTable[],
  {
    title,
    unit,
    units,
    rows: shown = 12,
  }: { title: string; unit: string; units: number; rows?: number },
): void {
  const keys = new Set(runs.flatMap((table) => [...table.keys()]));
  const total = (table: StatementTable) => [...table.values()].reduce((a, s) => a + s.cpu, 0);
  const rows = [...keys].map((key) => {
    const cpu = runs.map((table) => ((table.get(key)?.cpu ?? 0) * 1e6) / units);
    const share = runs.map((table) => (table.get(key)?.cpu ?? 0) / (total(table) || 1));
    const calls = runs.map((table) => (table.get(key)?.calls ?? 0) / units);
    return { key, cpu, share, calls };
  });
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  rows.sort((a, b) => median(b.cpu) - median(a.cpu));
  console.log(
    `\nThe backends' CPU by statement, ${title} (${runs.length}; logged: ` +
      `${spread(
        runs.map((table) => (total(table) * 1e6) / units),
        0,
      )} µs ${unit})`,
  );
  console.log(`| statement and phase | calls ${unit} | CPU µs ${unit} | share |`);
  console.log('|---|--:|--:|--:|');
  for (const row of rows.slice(0, shown))
    console.log(
      `| ${row.key} | ${median(row.calls).toFixed(3)} | ${spread(row.cpu, 1)} | ${(100 * median(row.share)).toFixed(0)}% |`,
    );
}
