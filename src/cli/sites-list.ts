import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import type { SiteRowAnswer } from '../monitor/reads.js';
import { TRIAGE_STATES, isTriageState } from '../monitor/views/overview.js';
import { CONDITION_TEXT, STANDINGS, intentText, standingOf } from '../policy/site-condition.js';
import type { SiteCondition, Standing } from '../policy/site-condition.js';
import { formatTime, siteLabel, visibleControls } from '../policy/wording/format.js';
import { count, grouped } from '../policy/wording/words.js';
import type { CliContext } from './context.js';
import { readConfig } from './context.js';
import { write } from './io.js';
import { withReads } from './reads.js';
import { alignColumns } from './table.js';

/**
 * `robowatch sites list`: every watched site and where it stands against its owner's
 * intent, as the overview page shows them.
 */
export function registerSitesList(sites: Command, context: CliContext): void {
  sites
    .command('list')
    .summary('list the watched sites: where each stands against its owner’s intent')
    .description(
      'Lists every watched site (the file’s and those added in the web UI or API), the most urgent first (then in the order they were added; paused ones last), as the overview page shows them: whether it is as its owner intends, what its robots.txt answered, when it was last checked, and what crawlers cannot do that its owner intends (or why it cannot be judged, or its last change); then how many stand where. Beside a daemon that holds the embedded database, it asks the daemon.',
    )
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--tag <tag>', 'only the sites with this tag')
    .option('--state <state>', `only the sites in this state: ${TRIAGE_STATES.join(', ')}`)
    .option('--json', 'print one JSON object per site, as the API gives it')
    .action(async (options: { config?: string; tag?: string; state?: string; json?: boolean }) => {
      const { state, tag } = options;
      if (state !== undefined && !isTriageState(state))
        throw new UsageError(
          `--state must be one of ${TRIAGE_STATES.join(', ')}, not "${visibleControls(state)}"`,
        );
      const config = await readConfig(context, options.config);
      const listed = await withReads(context, config, (reads) =>
        reads.sites({
          ...(tag === undefined ? {} : { tag }),
          ...(state === undefined ? {} : { state }),
        }),
      );
      const out = options.json
        ? listed.sites.map((site) => JSON.stringify(site))
        : listed.sites.length === 0 && listed.unchecked.length === 0
          ? [`no watched site${state === undefined && tag === undefined ? '' : ' matches'}`]
          : [
              ...(listed.sites.length === 0 ? [] : formatTable(listed.sites)),
              ...(listed.unchecked.length === 0
                ? []
                : [
                    `not checked yet: ${listed.unchecked.map(visibleControls).join(', ')} (run robowatch check, or start the daemon)`,
                  ]),
              standings(listed.sites, listed.unchecked.length),
            ];
      await write(context.io.stdout, out.join('\n') + '\n');
    });
}

/** The most urgent first (paused ones last), then in the order they were added. */
function urgentFirst(sites: readonly SiteRowAnswer[]): SiteRowAnswer[] {
  const rank = (site: SiteRowAnswer) =>
    (site.paused ? STANDINGS.length : 0) + STANDINGS.indexOf(standingOf(site.intent));
  return [...sites].sort((a, b) => rank(a) - rank(b) || a.id - b.id);
}

function formatTable(sites: readonly SiteRowAnswer[]): string[] {
  return alignColumns([
    ['ID', 'SITE', 'INTENT', 'ROBOTS.TXT', 'CHECKED', 'WHAT'],
    ...urgentFirst(sites).map((site) => [
      String(site.id),
      visibleControls(siteLabel(site.origin, site.name)),
      intentText(site.intent).label,
      robotsTxt(site),
      (site.lastCheckedAt === null ? '-' : formatTime(new Date(site.lastCheckedAt))) +
        (site.paused ? ', paused' : ''),
      visibleControls(what(site)),
    ]),
  ]);
}

/** What robots.txt answered, in a word or two, with its status. */
function robotsTxt(site: SiteRowAnswer): string {
  const label = CONDITION_TEXT[site.condition as SiteCondition]?.label ?? site.condition;
  return site.status === null ? label : `${label} (${site.status})`;
}

/**
 * What crawlers do that the owner does not intend (as the site's alerts lead); why it
 * cannot be judged; else its last change.
 */
function what(site: SiteRowAnswer): string {
  if (site.intent?.state === 'not-as-intended' && site.intent.lead !== null)
    return site.intent.lead;
  if (site.intent?.state === 'cannot-check' && site.intent.reason !== null)
    return site.intent.reason;
  if (site.refused !== null) return site.refused.reason;
  return site.lastChange === null ? '-' : `last change: ${site.lastChange.summary}`;
}

/** How many sites stand where, in one line. */
function standings(sites: readonly SiteRowAnswer[], unchecked: number): string {
  const by = new Map<Standing, number>([['not checked yet', unchecked]]);
  for (const site of sites) {
    const where = standingOf(site.intent);
    by.set(where, (by.get(where) ?? 0) + 1);
  }
  const parts = STANDINGS.filter((l) => (by.get(l) ?? 0) > 0).map(
    (l) => `${grouped(by.get(l)!)} ${l}`,
  );
  return `${count(sites.length + unchecked, 'site')}: ${parts.join(', ')}`;
}
