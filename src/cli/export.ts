import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { stringify } from 'csv-stringify';
import { fileWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { UsageError } from '../lib/errors.js';
import { setHeapFloor } from '../lib/heap-governor.js';
import {
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
import { TREND_BY, viewTrends } from '../monitor/view-trends.js';
import type { TrendBy } from '../monitor/view-trends.js';
import type { Trend } from '../policy/trends.js';
import type { CliContext } from './context.js';
import { watchedSites } from './watched-sites.js';
import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import { readConfig, withStore } from './context.js';

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

/** Waits for a stream to take more when it says it is full. */
async function drained(out: Writable, ok: boolean): Promise<void> {
  if (!ok) await new Promise<void>((resolve) => out.once('drain', resolve));
}

function csvSink(out: Writable, columns: readonly Column[], owned: boolean): RowSink {
  const csv = stringify({ header: true, columns: columns.map((c) => c.name) });
  // The file is ended here, once the last row is through; standard output never is.
  csv.pipe(out, { end: false });
  return {
    write: (row) => drained(csv, csv.write(columns.map((c) => text(row[c.name] ?? null)))),
    close: async () => {
      csv.end();
      await finished(csv);
      if (owned) {
        out.end();
        await finished(out);
      }
    },
  };
}

function jsonlSink(out: Writable, columns: readonly Column[], owned: boolean): RowSink {
  return {
    write: (row) =>
      drained(
        out,
        out.write(
          `${JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, json(row[c.name] ?? null)])))}\n`,
        ),
      ),
    close: async () => {
      if (owned) {
        out.end();
        await finished(out);
      }
    },
  };
}

/** A Parquet column's values: 64-bit integers as bigint, nulls kept. */
function columnValue(type: Column['type'], value: ExportRow[string]): unknown {
  if (value === null) return null;
  if (type === 'INT64') return BigInt(value as number);
  return value;
}

function parquetSink(file: string, columns: readonly Column[], engine: string): RowSink {
  let batch: ExportRow[] = [];
  const types = (rows: readonly ExportRow[]) =>
    columns.map((c) => ({
      name: c.name,
      type: c.type,
      data: rows.map((r) => columnValue(c.type, r[c.name] ?? null)),
    }));
  const writer = new ParquetWriter({
    writer: fileWriter(file),
    schema: schemaFromColumnData({ columnData: types([]) }),
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
      const since = flags.since === undefined ? null : new Date(flags.since);
      if (since !== null && Number.isNaN(since.getTime()))
        throw new UsageError(`--since: "${flags.since}" is not a date (YYYY-MM-DD or ISO 8601)`);
      const config = await readConfig(context, flags.config);
      const engine = `robowatch ${context.version}`;
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
        // A Parquet file is written by its own writer; the text formats stream.
        const out = (): Writable =>
          flags.output === undefined ? context.io.stdout : createWriteStream(flags.output);
        const sink =
          format === 'parquet'
            ? parquetSink(flags.output!, columns, engine)
            : format === 'csv'
              ? csvSink(out(), columns, flags.output !== undefined)
              : jsonlSink(out(), columns, flags.output !== undefined);
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
                    : trendRecords(
                        await trendsOf(context, config, db, flags.by as TrendBy),
                        engine,
                        config.registry.active.version.sha256,
                      );
        for await (const row of rows) await sink.write(row);
        await sink.close();
      });
    });
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
