import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import { groupAlike } from '../policy/coverage.js';
import { formatTime, visibleControls } from '../policy/wording/format.js';
import type { CoverageAnswer } from '../monitor/reads.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';
import { requireOrigin, requireSite, siteRefOf, withReads } from './reads.js';
import { grouped } from '../policy/wording/words.js';
import { crawlerSet } from '../policy/wording/explain-pairs.js';

/** `robowatch coverage ORIGIN`: the site's URL set evaluated for each crawler. */
export function registerCoverage(program: Command, context: CliContext): void {
  program
    .command('coverage')
    .summary("how much of a site's sitemaps each crawler may fetch, and which rules decide")
    .description(
      `Shows how a site's robots.txt treats every URL of its sitemaps: for each watched
crawler, the URLs allowed and disallowed, the lines that decide them with how many
URLs each decides, the path prefixes most blocked, and what was wrong with the
sitemaps. Computed after each check of a site whose sitemaps are on (sitemaps: auto
or a list, in the configuration).`,
    )
    .argument('<origin>', 'the site, e.g. https://example.com')
    .option('--snapshot <id>', 'a snapshot of the site (default: its current one)')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--json', 'print the coverage as one JSON object (as GET /api/v1/sites/ID/coverage)')
    .action(
      async (value: string, options: { config?: string; json?: boolean; snapshot?: string }) => {
        const config = await readConfig(context, options.config);
        requireOrigin(value); // a malformed origin is refused before the database is opened
        const snapshot = options.snapshot === undefined ? undefined : snapshotId(options.snapshot);
        const { origin, document } = await withReads(context, config, async (reads) => {
          const known = await requireSite(reads, value);
          const answer = await reads.coverage(siteRefOf(known, config), snapshot);
          if ('missing' in answer) throw new UsageError(answer.missing);
          return { origin: known.origin, document: answer };
        });
        await write(
          context.io.stdout,
          options.json ? JSON.stringify(document) + '\n' : formatCoverage(origin, document),
        );
      },
    );
}

function snapshotId(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(id) || id < 1)
    throw new UsageError(
      `--snapshot must be a snapshot id (a positive whole number), not "${value}"`,
    );
  return id;
}

const count = (n: number) => grouped(n);
const share = (n: number, of: number) =>
  of === 0 ? '' : ` (${((100 * n) / of).toFixed(n === of || n === 0 ? 0 : 1)}%)`;

/** The coverage in words: one block per crawler, the sitemaps' problems last. */
export function formatCoverage(origin: string, doc: CoverageAnswer): string {
  const set = doc.urlSet;
  const lines: string[] = [
    `${origin}: snapshot ${doc.snapshot}, ${count(doc.urls)} URL${doc.urls === 1 ? '' : 's'} from ${set.sitemaps.length} sitemap${set.sitemaps.length === 1 ? '' : 's'} (read ${formatTime(new Date(set.lastSeenAt))}; this set since ${formatTime(new Date(set.firstSeenAt))}: ${count(set.added)} added, ${count(set.removed)} removed)`,
  ];
  if (set.otherOrigins > 0)
    lines.push(
      `${count(set.otherOrigins)} URL${set.otherOrigins === 1 ? '' : 's'} of other sites in the sitemaps ${set.otherOrigins === 1 ? 'is' : 'are'} not counted.`,
    );
  // Crawlers that read the same rules have the same coverage: said once for them all.
  const groups = doc.urls === 0 ? [] : groupAlike(Object.entries(doc.agents));
  const watched = Object.keys(doc.agents);
  for (const { agents, value: a } of groups) {
    lines.push('');
    lines.push(
      `${crawlerSet(agents, watched)}: ${count(a.allowed)} allowed, ${count(a.disallowed)} disallowed${share(a.disallowed, doc.urls)}`,
    );
    if (a.access === 'unreachable')
      lines.push('  robots.txt cannot be read: every URL is disallowed (Google crawls nothing)');
    else if (a.access === 'unavailable') lines.push('  no robots.txt: every URL is allowed');
    for (const rule of a.rules.filter((r) => r.directive === 'disallow').slice(0, 5))
      lines.push(
        `  line ${rule.line} \`Disallow: ${rule.pattern}\` blocks ${count(rule.urls)} URL${rule.urls === 1 ? '' : 's'}, e.g. ${rule.samples[0] ?? ''}`,
      );
    if (a.prefixes.length > 0)
      lines.push(
        `  mostly ${a.prefixes
          .slice(0, 3)
          .map((p) => `${p.prefix} (${count(p.disallowed)} of ${count(p.urls)})`)
          .join(', ')}`,
      );
  }
  if (doc.findings.length > 0) lines.push('', ...doc.findings);
  const problems = [
    ...set.problems,
    ...set.sitemaps.flatMap((s) => s.problems.map((p) => `${s.url}: ${p}`)),
  ];
  if (problems.length > 0) {
    lines.push('', 'Sitemap problems:');
    for (const problem of problems) lines.push(`  ${problem}`);
  }
  // Sitemaps' problems quote what the site served: shown, never obeyed by the terminal.
  return lines.map(visibleControls).join('\n') + '\n';
}
