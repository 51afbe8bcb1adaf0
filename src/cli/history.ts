import type { Command } from 'commander';
import { siteAccess } from '../policy/verdicts.js';
import type { Profile } from '../robots/index.js';
import type { SnapshotSummary } from '../monitor/records.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { formatBytes, formatTime } from '../policy/wording/format.js';
import { write } from './io.js';
import { requireSite, withReads } from './reads.js';

/** `robowatch history ORIGIN`: a site's snapshots, newest first. */
export function registerHistory(program: Command, context: CliContext): void {
  program
    .command('history')
    .summary("list a site's robots.txt states, newest first")
    .argument('<origin>', 'the site, e.g. https://example.com')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--json', 'print one JSON object per snapshot')
    .action(async (value: string, options: { config?: string; json?: boolean }) => {
      const config = await readConfig(context, options.config);
      const { rows, profile } = await withReads(context, config, async (reads) => {
        const site = await requireSite(reads, value);
        return {
          rows: await reads.snapshots(site.id),
          profile: config.sites.find((s) => s.origin === site.origin)?.profile ?? 'google',
        };
      });
      const out = options.json
        ? rows.map((row) => JSON.stringify(toJson(row, profile)))
        : formatTable(rows, profile);
      await write(context.io.stdout, out.join('\n') + '\n');
    });
}

function accessOf(row: SnapshotSummary, profile: Profile): string {
  const access = siteAccess({ fetch: row, stale: row.stale }, profile);
  return row.stale ? `${access} (30+ days: last good copy)` : access;
}

function toJson(row: SnapshotSummary, profile: Profile) {
  return {
    id: row.id,
    firstSeen: row.firstSeen.toISOString(),
    lastSeen: row.lastSeen.toISOString(),
    access: siteAccess({ fetch: row, stale: row.stale }, profile),
    status: row.status,
    error: row.error,
    size: row.size,
    truncated: row.truncated,
    sha256: row.sha256,
    checks: row.checks,
    stale: row.stale,
    redirects: row.redirects.length,
    source: row.source,
  };
}

function formatTable(rows: readonly SnapshotSummary[], profile: Profile): string[] {
  const header = [
    'ID',
    'FIRST SEEN',
    'LAST SEEN',
    'ACCESS',
    'STATUS',
    'SIZE',
    'TRUNCATED',
    'SHA-256',
    'CHECKS',
  ];
  // Captures by the Internet Archive (robowatch backfill) say so in a column of their own.
  const archived = rows.some((row) => row.source === 'archive');
  if (archived) header.push('SOURCE');
  const table = rows.map((row) => [
    String(row.id),
    formatTime(row.firstSeen),
    formatTime(row.lastSeen),
    accessOf(row, profile),
    row.status === null
      ? (row.error ?? '-')
      : String(row.status) + (row.error ? ` ${row.error}` : ''),
    formatBytes(row.size),
    row.truncated ? 'yes' : 'no',
    row.sha256 === null ? '-' : row.sha256.slice(0, 12),
    String(row.checks),
    ...(archived ? [row.source === 'archive' ? 'Internet Archive' : 'robowatch'] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  return [header, ...table].map((cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}
