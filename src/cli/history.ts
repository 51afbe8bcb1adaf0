import type { Command } from 'commander';
import { siteAccess } from '../policy/verdicts.js';
import type { Profile } from '../robots/index.js';
import type { SnapshotSummary } from '../monitor/records.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { formatBytes, formatTime, visibleControls } from '../policy/wording/format.js';
import { lastChangeOf } from '../monitor/views/overview.js';
import { moreChanges } from '../policy/wording/words.js';
import { write } from './io.js';
import { alignColumns } from './table.js';
import { requireSite, withReads } from './reads.js';

/** `robowatch history ORIGIN`: a site's snapshots, newest first. */
export function registerHistory(program: Command, context: CliContext): void {
  program
    .command('history')
    .summary("list a site's robots.txt states, newest first")
    .description(
      "Lists a site's snapshots (its distinct robots.txt states), newest first: when each was first and last seen, what robots.txt answered, its size and hash, how many checks saw it, and what it changed (its most severe cause; robowatch diff ORIGIN --to ID tells them all). Beside a daemon that holds the embedded database, it asks the daemon.",
    )
    .argument('<origin>', 'the site, e.g. https://example.com')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--json', 'print one JSON object per snapshot')
    .action(async (value: string, options: { config?: string; json?: boolean }) => {
      const config = await readConfig(context, options.config);
      const { rows, profile, changes } = await withReads(context, config, async (reads) => {
        const site = await requireSite(reads, value);
        const [rows, changes] = await Promise.all([
          reads.snapshots(site.id),
          reads.changes(site.id),
        ]);
        // The crawlers it watches are named in what changed; the rest are counted.
        const agents = site.watching?.agents ?? [];
        return {
          rows,
          profile: site.watching?.profile ?? 'google',
          changes: new Map(
            changes.map((c) => [c.snapshotId, lastChangeOf({ lastChange: c }, agents)]),
          ),
        };
      });
      const out = options.json
        ? rows.map((row) => JSON.stringify(toJson(row, profile, changes.get(row.id) ?? null)))
        : formatTable(rows, profile, changes);
      await write(context.io.stdout, out.join('\n') + '\n');
    });
}

function accessOf(row: SnapshotSummary, profile: Profile): string {
  const access = siteAccess({ fetch: row, stale: row.stale }, profile);
  return row.stale ? `${access} (30+ days: last good copy)` : access;
}

/** What a snapshot changed, in a few words: its most severe cause, and how many more. */
type Change = ReturnType<typeof lastChangeOf>;

function changeText(change: Change | undefined): string {
  if (change === undefined || change === null) return '-';
  return visibleControls(`${change.headline}${moreChanges(change.more)}`);
}

function toJson(row: SnapshotSummary, profile: Profile, change: Change) {
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
    // What this snapshot changed against the one before: its most severe cause in words.
    change: change === null ? null : { headline: change.headline, causes: change.more + 1 },
  };
}

function formatTable(
  rows: readonly SnapshotSummary[],
  profile: Profile,
  changes: ReadonlyMap<number, Change>,
): string[] {
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
  header.push('WHAT CHANGED');
  const table = rows.map((row, i) => [
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
    i === rows.length - 1 && !changes.has(row.id)
      ? 'first snapshot'
      : changeText(changes.get(row.id)),
  ]);
  return alignColumns([header, ...table]);
}
