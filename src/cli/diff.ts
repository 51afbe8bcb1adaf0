import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import { diffDocument } from '../monitor/documents/index.js';
import type { DiffView } from '../monitor/views/diff.js';
import type { SiteRef } from '../monitor/views/site.js';
import {
  coverageShiftNote,
  coverageShiftRows,
  coverageSideText,
} from '../monitor/views/coverage.js';
import type { CoverageShift } from '../monitor/views/coverage.js';
import { formatTime, visibleControls } from '../policy/wording/format.js';
import type { SnapshotSummary } from '../monitor/records.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';
import { causeLines } from './print-causes.js';
import { requireSite, siteRefOf, withReads } from './reads.js';
import { grouped } from '../policy/wording/words.js';
import { crawlerSet } from '../policy/wording/explain-pairs.js';

interface DiffOptions {
  config?: string;
  from?: string;
  to?: string;
  json?: boolean;
  all?: boolean;
}

/** Lines of the text diff printed unless --all. */
const PATCH_LINES = 200;

/** A snapshot id from a flag, or a usage error that names the flag. */
function snapshotId(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(value))
    throw new UsageError(`${flag} must be a snapshot id (a number), not "${value}"`);
  return Number(value);
}

/** `robowatch diff ORIGIN`: what differs between two snapshots of a site, and why. */
export function registerDiff(program: Command, context: CliContext): void {
  program
    .command('diff')
    .summary('show what changed between two snapshots of a site, and why')
    .description(
      'The causes of the change (what crawlers do now, and which watched pages it changed),\n' +
        'then the text diff; by default between the last two snapshots.',
    )
    .argument('<origin>', 'the site, e.g. https://example.com')
    .option('--from <id>', 'the older snapshot (default: the one before --to)')
    .option('--to <id>', 'the newer snapshot (default: the latest)')
    .option('--json', 'print the snapshots, change events, causes and text diff as JSON')
    .option('--all', 'print every change and the whole text diff')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (value: string, options: DiffOptions) => {
      const config = await readConfig(context, options.config);
      const ids = {
        from: snapshotId(options.from, '--from'),
        to: snapshotId(options.to, '--to'),
      };
      const { view, site, agents } = await withReads(context, config, async (reads) => {
        const known = await requireSite(reads, value);
        const site = siteRefOf(known, config);
        const view = await reads.diff(site, {
          ...(ids.from === undefined ? {} : { from: ids.from }),
          ...(ids.to === undefined ? {} : { to: ids.to }),
        });
        if ('missing' in view) throw new UsageError(`${site.origin}: ${view.missing}`);
        return { view, site, agents: known.watching?.agents ?? [] };
      });
      const text = options.json
        ? JSON.stringify(diffDocument(view, site)) + '\n'
        : printDiff(view, site, agents, options.all === true);
      await write(context.io.stdout, text);
    });
}

/** The sitemap URLs each crawler may fetch on either side (nothing when sitemaps are not read). */
function coverageLines(shift: CoverageShift | undefined): string[] {
  if (shift === undefined) return [];
  const note = coverageShiftNote(shift);
  const rows = coverageShiftRows(shift);
  const watched = rows.flatMap((row) => row.agents);
  return [
    '',
    'Sitemap URLs each crawler may fetch (older -> newer):',
    ...rows.map(
      (row) =>
        `  ${crawlerSet(row.agents, watched)}: ${coverageSideText(row.before)} -> ${coverageSideText(row.after)}: ${row.change}`,
    ),
    ...(note === null ? [] : [`  ${note}`]),
  ];
}

function label(s: SnapshotSummary): string {
  return `snapshot ${s.id} (${formatTime(s.firstSeen)}, ${s.status ?? s.error ?? '-'})`;
}

/**
 * The diff as a person reads it: causes, then the file's text diff (bounded unless `all`).
 * The causes are told as of the newer snapshot ("answers 200 again after 3 h of 503"), as
 * the check that saw it told them, whenever the diff is read.
 */
export function printDiff(
  view: DiffView,
  site: SiteRef,
  agents: readonly string[],
  all: boolean,
): string {
  const lines = [`${site.origin}: ${label(view.from)} -> ${label(view.to)}`, ''];
  if (view.causes.length === 0) lines.push('No verdict, rule, sitemap or status changes.');
  else {
    lines.push(`What changed (${view.causes.length}):`);
    lines.push(
      ...causeLines(
        view.causes,
        { agents, at: view.to.firstSeen },
        { all, indent: '  ', more: '--all lists them' },
      ),
    );
  }
  lines.push(...coverageLines(view.coverage));
  if (view.patch.length > 0) {
    const patch = all ? view.patch : view.patch.slice(0, PATCH_LINES);
    lines.push(
      '',
      `--- robots.txt (snapshot ${view.from.id})`,
      `+++ robots.txt (snapshot ${view.to.id})`,
      ...patch.map((l) => visibleControls(l.text)),
    );
    const more = view.patch.length - patch.length;
    if (more > 0) lines.push(`… ${grouped(more)} more lines of the diff (--all prints them)`);
  } else lines.push('', 'The two files are the same.');
  return lines.join('\n') + '\n';
}
