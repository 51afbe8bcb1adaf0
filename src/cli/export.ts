import type { Command } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { ByteWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { UsageError } from '../lib/errors.js';
import { ARCHIVE_START_MS } from '../policy/capture-time.js';
import { readCalendarDay } from '../policy/calendar-day.js';
import { setHeapFloor } from '../lib/heap-governor.js';
import {
  auditRecord,
  causeRecord,
  checkRecord,
  COLUMNS,
  EXPORTS,
  snapshotRecord,
  verdictRecord,
} from '../monitor/export.js';
import type { Column, ExportContext, ExportKind, ExportRow } from '../monitor/export.js';
import {
  bodyRows,
  causeRows,
  checkRows,
  snapshotRows,
  trendSites,
  trendStart,
  verdictRows,
} from '../store/export.js';
import { TREND_BY, viewTrends } from '../monitor/views/trends.js';
import type { TrendBy } from '../monitor/views/trends.js';
import type { Trend } from '../policy/trends.js';
import type { CliContext } from './context.js';
import { watchedSites } from './watched-sites.js';
import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import { createAccountStore } from '../store/accounts.js';
import type { AuditEntry } from '../monitor/accounts.js';
import { readConfig, withStore } from './context.js';
import { openOutputFile, streamOutput } from './output.js';
import type { FileOutput, Output } from './output.js';

const FORMATS = ['csv', 'jsonl', 'parquet'] as const;
type Format = (typeof FORMATS)[number];

interface ExportFlags {
  config?: string;
  what: string;
  by: string;
  format: string;
  since?: string;
  output?: string;
}

/** Rows per Parquet row group, and per batch handed to the writer (memory stays bounded). */
const PARQUET_BATCH = 20_000;

/** Writes rows as one format; `close` finishes the file. */
interface RowSink {
  write(row: ExportRow): Promise<void>;
  close(): Promise<void>;
}

const text = (value: ExportRow[string]) =>
  value === null
    ? ''
    : value instanceof Date
      ? value.toISOString()
      : value instanceof Uint8Array
        ? Buffer.from(value).toString('base64')
        : String(value);

const json = (value: ExportRow[string]) =>
  value instanceof Date
    ? value.toISOString()
    : value instanceof Uint8Array
      ? Buffer.from(value).toString('base64')
      : value;

/** Rows a text sink turns into text at a time. */
const TEXT_BATCH = 1_000;

/** CSV: the header, then the rows a batch at a time (csv-stringify quotes as RFC 4180 says). */
function csvSink(output: Output, columns: readonly Column[]): RowSink {
  const names = columns.map((c) => c.name);
  let batch: string[][] = [];
  let started = false;
  const flush = async () => {
    const text = stringify(batch, { header: !started, columns: names });
    started = true;
    batch = [];
    await output.write(text);
  };
  return {
    write: async (row) => {
      batch.push(columns.map((c) => text(row[c.name] ?? null)));
      if (batch.length >= TEXT_BATCH) await flush();
    },
    close: async () => {
      if (batch.length > 0 || !started) await flush();
    },
  };
}

function jsonlSink(output: Output, columns: readonly Column[]): RowSink {
  let batch = '';
  let rows = 0;
  return {
    write: async (row) => {
      batch += `${JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, json(row[c.name] ?? null)])))}\n`;
      if (++rows % TEXT_BATCH === 0) {
        await output.write(batch);
        batch = '';
      }
    },
    close: async () => {
      if (batch !== '') await output.write(batch);
    },
  };
}

/** A Parquet column's values: 64-bit integers as bigint, nulls kept. */
function columnValue(type: Column['type'], value: ExportRow[string]): unknown {
  if (value === null) return null;
  if (type === 'INT64') return BigInt(value as number);
  return value;
}

/**
 * hyparquet-writer's buffered file writer, writing into the output (its own writes the
 * file synchronously by name, which leaves a partial file when the disk fills).
 */
function parquetWriter(output: FileOutput): ByteWriter {
  const writer = new ByteWriter();
  const flush = () => {
    output.append(new Uint8Array(writer.buffer, 0, writer.index));
    writer.index = 0;
  };
  const grow = writer.ensure.bind(writer);
  writer.ensure = (size: number) => {
    if (writer.index > 1_000_000) flush();
    grow(size);
  };
  writer.finish = flush;
  return writer;
}

function parquetSink(output: FileOutput, columns: readonly Column[], engine: string): RowSink {
  let batch: ExportRow[] = [];
  const types = (rows: readonly ExportRow[]) =>
    columns.map((c) => ({
      name: c.name,
      type: c.type,
      data: rows.map((r) => columnValue(c.type, r[c.name] ?? null)),
    }));
  // Times are instants: UTC-adjusted (DuckDB and Arrow read TIMESTAMP WITH TIME ZONE), with
  // the legacy converted type beside it for older readers, as the Parquet format asks.
  const timestamps = columns.filter((c) => c.type === 'TIMESTAMP');
  const writer = new ParquetWriter({
    writer: parquetWriter(output),
    schema: schemaFromColumnData({
      columnData: types([]).map((c) =>
        c.type === 'TIMESTAMP' ? { name: c.name, data: c.data } : c,
      ),
      schemaOverrides: Object.fromEntries(
        timestamps.map((c) => [
          c.name,
          {
            name: c.name,
            type: 'INT64',
            logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
            converted_type: 'TIMESTAMP_MILLIS',
            repetition_type: 'OPTIONAL',
          } as const,
        ]),
      ),
    }),
    createdBy: engine,
  });
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    await writer.write({ columnData: types(rows), rowGroupSize: PARQUET_BATCH });
  };
  return {
    write: async (row) => {
      batch.push(row);
      if (batch.length >= PARQUET_BATCH) await flush();
    },
    close: async () => {
      await flush();
      await writer.finish();
    },
  };
}

/** `robowatch export`: the recorded history as files for analysis. */
export function registerExport(program: Command, context: CliContext): void {
  program
    .command('export')
    .summary('export the recorded history (CSV, JSON lines, Parquet)')
    .description(
      'Writes every recorded snapshot, check, verdict, cause or body as rows, streaming (the\n' +
        "history's size does not matter). Each row names the site's profile and the robowatch\n" +
        'version (engine) that produced it, and verdicts the AI crawler registry their crawlers\n' +
        'came from (registry_sha256, see GET /api/v1/registry); bodies are exported by hash\n' +
        'with their bytes (base64 in CSV and JSON lines).',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .requiredOption('--what <what>', EXPORTS.join(', '))
    .option('--format <format>', FORMATS.join(', '), 'csv')
    .option('--since <date>', 'only what was seen from this date (YYYY-MM-DD or ISO 8601) on')
    .option('--by <what>', `trends by ${TREND_BY.join(', ')}`, 'agent')
    .option(
      '-o, --output <file>',
      'the file to write (default: standard output; Parquet needs one)',
    )
    .addHelpText(
      'after',
      `
Examples:
  robowatch export --what verdicts --format parquet -o verdicts.parquet
  robowatch export --what causes --since 2026-01-01 --format jsonl > causes.jsonl`,
    )
    .action(async (flags: ExportFlags) => {
      if (!(EXPORTS as readonly string[]).includes(flags.what))
        throw new UsageError(`--what: "${flags.what}" is not one of ${EXPORTS.join(', ')}`);
      if (!(TREND_BY as readonly string[]).includes(flags.by))
        throw new UsageError(`--by: "${flags.by}" is not one of ${TREND_BY.join(', ')}`);
      if (!(FORMATS as readonly string[]).includes(flags.format))
        throw new UsageError(`--format: "${flags.format}" is not one of ${FORMATS.join(', ')}`);
      const what = flags.what as ExportKind;
      const format = flags.format as Format;
      if (format === 'parquet' && flags.output === undefined)
        throw new UsageError('--format parquet needs -o FILE (a Parquet file is not a stream)');
      const since = flags.since === undefined ? null : (readSince(flags.since) ?? null);
      if (flags.since !== undefined && since === null)
        throw new UsageError(`--since: "${flags.since}" is not a date (YYYY-MM-DD or ISO 8601)`);
      const config = await readConfig(context, flags.config);
      const engine = `robowatch ${context.version}`;
      // Where it goes is checked before any work: a directory, a missing one, no right to
      // write there. A file is written beside its name and takes it once whole.
      const output: Output =
        flags.output === undefined
          ? streamOutput(context.io.stdout)
          : openOutputFile(flags.output, '-o', context.cwd);
      // A page of rows is all an export holds: collect garbage from 64 MB on.
      setHeapFloor(64 * 1024 * 1024);
      await withStore(context, config, async (handle) => {
        // Each site's profile, read from its row (the whole catalog resolved for 100,000
        // sites would double the memory of an export); the trends need the catalog.
        const sites = await watchedSites(handle.db, config);
        const ctx: ExportContext = {
          profileOf: (site) => sites.get(site)?.profile ?? null,
          engine,
        };
        const columns = COLUMNS[what];
        const sink =
          format === 'parquet'
            ? parquetSink(output as FileOutput, columns, engine)
            : format === 'csv'
              ? csvSink(output, columns)
              : jsonlSink(output, columns);
        const filter = { since };
        const db = handle.db;
        const rows: AsyncIterable<ExportRow> | Iterable<ExportRow> =
          what === 'snapshots'
            ? map(snapshotRows(db, filter), (r) => snapshotRecord(r, ctx))
            : what === 'checks'
              ? map(checkRows(db, filter), (r) => checkRecord(r, ctx))
              : what === 'verdicts'
                ? map(verdictRows(db, filter), (r) => verdictRecord(r, ctx))
                : what === 'causes'
                  ? map(causeRows(db, filter), (r) => causeRecord(r, ctx))
                  : what === 'bodies'
                    ? map(bodyRows(db), (r) => ({ ...r }))
                    : what === 'audit'
                      ? map(auditEntries(db, since), auditRecord)
                      : trendRecords(
                          await trendsOf(context, config, db, flags.by as TrendBy),
                          engine,
                          config.registry.active.version.sha256,
                        );
        for await (const row of rows) await sink.write(row);
        await sink.close();
        await output.commit();
      }).catch((error: unknown) => {
        output.abandon();
        throw error;
      });
    });
}

/**
 * `--since`: a day (YYYY, YYYY-MM, YYYY-MM-DD) or an ISO 8601 time on one, or undefined when
 * it is none: 2026-02-30 is no day (Date would make it 2 March), nor year 0 (which the
 * database refuses). A time before 1996, where robots.txt history starts, is that start.
 */
export function readSince(value: string): Date | undefined {
  const at = value.indexOf('T');
  const day = readCalendarDay(at === -1 ? value : value.slice(0, at));
  if (day === undefined) return undefined;
  if (
    at !== -1 &&
    !/^\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?$/.test(value.slice(at + 1))
  )
    return undefined;
  const since = new Date(value);
  if (Number.isNaN(since.getTime())) return undefined;
  return since.getTime() < ARCHIVE_START_MS ? new Date(ARCHIVE_START_MS) : since;
}

/** The audit log, newest first, a page at a time; from `since` on. */
async function* auditEntries(db: Database, since: Date | null): AsyncIterable<AuditEntry> {
  const store = createAccountStore(db);
  let before: number | undefined;
  for (;;) {
    const page = await store.listAudit({
      limit: 1000,
      ...(before === undefined ? {} : { before }),
    });
    for (const entry of page) {
      if (since !== null && entry.at < since) return;
      yield entry;
    }
    if (page.length < 1000) return;
    before = page[page.length - 1]!.id;
  }
}

/** The trends of the watched sites. */
async function trendsOf(
  context: CliContext,
  config: Config,
  db: Database,
  by: TrendBy,
): Promise<Trend[]> {
  return viewTrends(
    { trendStart: () => trendStart(db), trendSites: () => trendSites(db) },
    [...(await watchedSites(db, config)).values()],
    config,
    { by, weighted: false, now: context.now() },
  );
}

/** Trends as rows: one per group and month (by crawler, or --by operator or purpose). */
function* trendRecords(
  trends: readonly Trend[],
  engine: string,
  registry: string,
): Iterable<ExportRow> {
  for (const t of trends)
    for (const p of t.points)
      yield {
        group: t.group,
        month: p.month,
        sites: p.sites,
        full: p.full,
        partly: p.partly,
        none: p.none,
        no_robots_txt: p.noRobotsTxt,
        engine,
        registry_sha256: registry,
      };
}

async function* map<T>(
  rows: AsyncIterable<T>,
  to: (row: T) => ExportRow,
): AsyncIterable<ExportRow> {
  for await (const row of rows) yield to(row);
}
