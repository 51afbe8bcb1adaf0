/**
 * `robowatch export`, its commands run in the test's process (a full disk and a closed
 * standard output by the built binary): a loopback site checked twice (a rule added
 * in between), then its snapshots, checks, verdicts, causes and bodies exported as CSV,
 * JSON lines and Parquet, read back (Parquet with hyparquet) and compared row by row.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROBOWATCH, runCommand, runInProcess } from '../support/cli.js';
import { FixtureServer } from '../support/fixture-server.js';

const server = new FixtureServer();
const V1 = 'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n';
const V2 =
  'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n\nUser-agent: GPTBot\nDisallow: /\n';
let dir: string;
let config: string;
const robowatch = (...args: string[]) => runInProcess(args, { env: { DATABASE_URL: '' } });
const exportOf = async (...args: string[]) => {
  const result = await robowatch('export', '--config', config, ...args);
  expect([result.code, result.stderr]).toEqual([0, '']);
  return result.stdout;
};

beforeAll(async () => {
  await server.start();
  dir = mkdtempSync(join(tmpdir(), 'robowatch-export-'));
  config = join(dir, 'robowatch.yaml');
  writeFileSync(
    config,
    `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
sites:
  - url: ${server.origin}
    watch: [/, /pricing, /private/x]
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`,
  );
  server.serve('/robots.txt', 200, V1);
  expect((await robowatch('check', '--config', config)).code).toBe(0);
  server.serve('/robots.txt', 200, V2);
  expect((await robowatch('check', '--config', config)).code).toBe(0);
}, 60_000);
afterAll(() => server.stop());

describe('robowatch export', () => {
  it('writes snapshots and checks as CSV, each row naming its profile and engine', async () => {
    const snapshots = parse<Record<string, string>>(await exportOf('--what', 'snapshots'), {
      columns: true,
    });
    expect(snapshots.map((s) => [s['snapshot_id'], s['previous_id'], s['status']])).toEqual([
      ['1', '', '200'],
      ['2', '1', '200'],
    ]);
    expect(snapshots[1]).toMatchObject({
      site: server.origin,
      profile: 'google',
      truncated: 'false',
      file_condition: 'robots',
    });
    expect(snapshots[1]!['engine']).toMatch(/^robowatch \d+\.\d+\.\d+/);
    const checks = parse<Record<string, string>>(await exportOf('--what', 'checks'), {
      columns: true,
    });
    expect(checks.map((c) => c['snapshot_id'])).toEqual(['1', '2']);
    expect(new Date(checks[0]!['checked_at']!).getTime()).not.toBeNaN();
  });

  it('writes verdicts as Parquet that reads back as the JSON lines do, row by row', async () => {
    const file = join(dir, 'verdicts.parquet');
    await exportOf('--what', 'verdicts', '--format', 'parquet', '-o', file);
    const bytes = readFileSync(file);
    const table = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    });
    const lines = (await exportOf('--what', 'verdicts', '--format', 'jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // 2 snapshots × 3 URLs × 2 crawlers.
    expect(lines).toHaveLength(12);
    expect(table).toHaveLength(12);
    table.forEach((row, i) => {
      const line = lines[i]!;
      expect({
        ...row,
        snapshot_id: Number(row['snapshot_id']),
        first_seen: (row['first_seen'] as Date).toISOString(),
      }).toEqual(line);
    });
    const pricing = lines.filter(
      (l) => l['url'] === `${server.origin}/pricing` && l['agent'] === 'Googlebot',
    );
    expect(pricing.map((l) => [l['snapshot_id'], l['allowed'], l['cause'], l['rule']])).toEqual([
      [1, true, 'no-rule', null],
      [2, false, 'rule', 'Disallow: /pricing'],
    ]);
    expect(pricing[1]).toMatchObject({ rule_line: 3, profile: 'google', registry_sha256: null });
  });

  it('writes Parquet times as UTC instants that DuckDB reads as the JSON lines say', async () => {
    const file = join(dir, 'snapshots.parquet');
    await exportOf('--what', 'snapshots', '--format', 'parquet', '-o', file);
    const lines = (await exportOf('--what', 'snapshots', '--format', 'jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { snapshot_id: number; first_seen: string; last_seen: string });
    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    try {
      // An independent reader (DuckDB's own Parquet reader) in another time zone than UTC.
      await connection.run("SET TimeZone = 'America/New_York'");
      const schema = await connection.runAndReadAll(
        `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}')) WHERE column_name IN ('first_seen', 'last_seen')`,
      );
      expect(schema.getRows()).toEqual([
        ['first_seen', 'TIMESTAMP WITH TIME ZONE'],
        ['last_seen', 'TIMESTAMP WITH TIME ZONE'],
      ]);
      const rows = await connection.runAndReadAll(
        `SELECT snapshot_id, epoch_ms(first_seen), epoch_ms(last_seen) FROM read_parquet('${file}') ORDER BY snapshot_id`,
      );
      expect(rows.getRows().map((r) => r.map(Number))).toEqual(
        lines.map((l) => [l.snapshot_id, Date.parse(l.first_seen), Date.parse(l.last_seen)]),
      );
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
  });

  it('writes causes in words and bodies by hash with their bytes', async () => {
    const causes = (await exportOf('--what', 'causes', '--format', 'jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(causes).toEqual([
      expect.objectContaining({
        snapshot_id: 2,
        previous_id: 1,
        type: 'rule',
        title: '`Disallow: /pricing` added to the `*` group (line 3)',
        flipped_pairs: 1,
      }),
    ]);
    const bodies = parse<Record<string, string>>(await exportOf('--what', 'bodies'), {
      columns: true,
    });
    expect(bodies.map((b) => Buffer.from(b['content']!, 'base64').toString('utf8')).sort()).toEqual(
      [V1, V2].sort(),
    );
  });

  it('gives the trends of each crawler, month by month, as text and JSON', async () => {
    const json = JSON.parse((await robowatch('trends', '--config', config, '--json')).stdout) as {
      group: string;
      label: string;
      points: { month: string; sites: number; full: number }[];
    }[];
    // The months run to now: the last is this one (read from the answer, in case a month
    // ended since the checks).
    const month = json[0]!.points.at(-1)!.month;
    expect(month).toMatch(/^\d{4}-\d{2}$/);
    // The state at the month's end: Googlebot may not fetch /pricing (1 of 3 URLs), GPTBot nothing.
    expect(json.map((t) => [t.group, t.label, t.points.at(-1)])).toEqual([
      ['googlebot', 'Googlebot', { month, sites: 1, full: 0, partly: 1, none: 0, noRobotsTxt: 0 }],
      ['gptbot', 'GPTBot', { month, sites: 1, full: 1, partly: 0, none: 0, noRobotsTxt: 0 }],
    ]);
    const text = await robowatch('trends', '--config', config);
    expect([text.code, text.stderr]).toEqual([0, '']);
    expect(text.stdout).toBe(
      [
        'Googlebot',
        `  ${month}        1 site   blocked   0.0%  partly 100.0%  not   0.0%  no robots.txt   0.0%`,
        'GPTBot',
        `  ${month}        1 site   blocked 100.0%  partly   0.0%  not   0.0%  no robots.txt   0.0%`,
        '',
      ].join('\n'),
    );
    const byPurpose = JSON.parse(
      (await robowatch('trends', '--config', config, '--json', '--by', 'purpose')).stdout,
    ) as { group: string; label: string }[];
    expect(byPurpose.map((t) => [t.group, t.label])).toEqual([['@ai-training', 'AI training']]);
    // The same as a file: a row per crawler and month, read back from Parquet.
    const file = join(dir, 'trends.parquet');
    await exportOf('--what', 'trends', '--format', 'parquet', '-o', file);
    const bytes = readFileSync(file);
    const rows = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    });
    expect(
      rows
        .filter((r) => r['month'] === month)
        .map((r): unknown[] => [r['group'], r['full'], r['partly']]),
    ).toEqual([
      ['googlebot', 0, 1],
      ['gptbot', 1, 0],
    ]);
    const bad = await robowatch('trends', '--config', config, '--by', 'country');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'robowatch: --by: "country" is not one of agent, operator, purpose\n',
    ]);
  });

  it('refuses what it cannot do in one line', async () => {
    const bad = await robowatch('export', '--config', config, '--what', 'everything');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'robowatch: --what: "everything" is not one of snapshots, checks, verdicts, causes, bodies, trends, audit\n',
    ]);
    const parquet = await robowatch(
      'export',
      '--config',
      config,
      '--what',
      'checks',
      '--format',
      'parquet',
    );
    expect([parquet.code, parquet.stderr]).toEqual([
      2,
      'robowatch: --format parquet needs -o FILE (a Parquet file is not a stream)\n',
    ]);
    // Not a day: words, a day no month has, a year before year 1 (which the database refuses).
    for (const value of ['soon', '2026-02-30', '2025-02-29', '0000-01-01', '-000001-01-01']) {
      const since = await robowatch(
        'export',
        '--config',
        config,
        '--what',
        'checks',
        '--since',
        value,
      );
      expect([since.code, since.stderr]).toEqual([
        2,
        `robowatch: --since: "${value}" is not a date (YYYY-MM-DD or ISO 8601)\n`,
      ]);
    }
  });

  /**
   * Runs a shell script in a mount namespace of its own (unshare), where it may mount
   * small file systems; `$ROBOWATCH` runs the built CLI with the test's configuration.
   */
  const inNamespace = (script: string) =>
    runCommand('unshare', [process.getuid?.() === 0 ? '-m' : '-rm', 'sh', '-c', script], {
      env: {
        DATABASE_URL: '',
        ROBOWATCH: `${process.execPath} ${ROBOWATCH} export --config ${config}`,
      },
    });

  it.each(['csv', 'jsonl', 'parquet'])(
    'says in one line that a full disk took a %s export, leaving no partial file and the old one whole',
    async (format) => {
      const disk = mkdtempSync(join(tmpdir(), 'robowatch-full-'));
      const result = await inNamespace(`
mount -t tmpfs -o size=64k tmpfs ${disk} || exit 99
echo 'the export of last week' > ${disk}/out
head -c 1000000 /dev/zero > ${disk}/filler 2>/dev/null
$ROBOWATCH --what verdicts --format ${format} -o ${disk}/out
echo "exit $?" >&2
ls -A ${disk}
cat ${disk}/out`);
      expect(result.stderr).toBe(
        `robowatch: cannot write "${disk}/out": no space left on the device; nothing was written\nexit 1\n`,
      );
      expect(result.stdout).toBe('filler\nout\nthe export of last week\n');
    },
  );

  it.each(['csv', 'jsonl', 'parquet'])(
    'says in one line that a %s export could not be written to /dev/full',
    async (format) => {
      const full = await robowatch(
        'export',
        '--config',
        config,
        '--what',
        'checks',
        '--format',
        format,
        '-o',
        '/dev/full',
      );
      expect([full.code, full.stderr]).toEqual([
        1,
        'robowatch: cannot write "/dev/full": no space left on the device\n',
      ]);
    },
  );

  it('refuses in one line, before any work, to write where a file cannot be written', async () => {
    // Checked before the export starts, whatever the format.
    const base = mkdtempSync(join(tmpdir(), 'robowatch-nowhere-'));
    const run = (...args: string[]) =>
      robowatch('export', '--config', config, '--what', 'checks', '--format', 'parquet', ...args);
    const missing = await run('-o', join(base, 'no', 'such', 'out'));
    expect([missing.code, missing.stderr]).toEqual([
      2,
      `robowatch: -o: the directory "${join(base, 'no', 'such')}" does not exist\n`,
    ]);
    const directory = await run('-o', base);
    expect([directory.code, directory.stderr]).toEqual([
      2,
      `robowatch: -o: "${base}" is a directory; name a file in it\n`,
    ]);
    const readOnly = await inNamespace(`
mount -t tmpfs -o ro,size=64k tmpfs ${base} || exit 99
$ROBOWATCH --what checks --format csv -o ${base}/out
echo "exit $?" >&2`);
    expect(readOnly.stderr).toBe(
      `robowatch: -o: cannot write "${base}/out": the file system is read-only\nexit 2\n`,
    );
    expect(readdirSync(base)).toEqual([]);
  });

  it('says in one line that standard output could not be written', async () => {
    const result = await inNamespace(`$ROBOWATCH --what verdicts > /dev/full
echo "exit $?" >&2`);
    expect(result.stderr).toBe(
      'robowatch: cannot write standard output: no space left on the device\nexit 1\n',
    );
  });
});
