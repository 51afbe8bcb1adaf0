import type { Command } from 'commander';
import { createTwoFilesPatch } from 'diff';
import { UsageError } from '../lib/errors.js';
import { compareSnapshots } from '../monitor/compare-snapshots.js';
import { getSnapshot, listSnapshots } from '../store/history.js';
import type { SnapshotSummary } from '../monitor/records.js';
import { loadBody, loadVerdicts } from '../store/snapshots.js';
import type { CliContext } from './context.js';
import { originOf, readConfig, withStore } from './context.js';
import { formatEvent, formatTime } from '../policy/format.js';
import { requireSite } from './history.js';
import { write } from './io.js';

interface DiffOptions {
  config?: string;
  from?: string;
  to?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** `robowatch diff ORIGIN`: what differs between two snapshots of a site. */
export function registerDiff(program: Command, context: CliContext): void {
  program
    .command('diff')
    .summary('show what changed between two snapshots of a site')
    .description(
      'Verdict changes, rule changes and the text diff; by default between the last two snapshots.',
    )
    .argument('<origin>', 'the site, e.g. https://example.com')
    .option('--from <id>', 'the older snapshot (default: the one before --to)')
    .option('--to <id>', 'the newer snapshot (default: the latest)')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .action(async (value: string, options: DiffOptions) => {
      const config = await readConfig(context, options.config);
      const configured = config.sites.find((s) => s.origin === originOf(value));
      await withStore(context, config, async ({ db }) => {
        const site = await requireSite(db, value);
        const snapshot = async (
          id: string | undefined,
          flag: string,
        ): Promise<SnapshotSummary | undefined> => {
          if (id === undefined) return undefined;
          if (!/^\d+$/.test(id))
            throw new UsageError(`${flag} must be a snapshot id (a number), not "${id}"`);
          const found = await getSnapshot(db, site.id, Number(id));
          if (found === undefined)
            throw new UsageError(`${flag} ${id} is not a snapshot of ${site.origin}`);
          return found;
        };
        const latest = await listSnapshots(db, site.id, 2);
        const to = (await snapshot(options.to, '--to')) ?? latest[0];
        const from =
          (await snapshot(options.from, '--from')) ??
          (to?.previousId === null || to === undefined
            ? undefined
            : await getSnapshot(db, site.id, to.previousId));
        if (to === undefined || from === undefined) {
          throw new UsageError(`${site.origin} has fewer than two snapshots: nothing to compare`);
        }
        const comparison = await compareSnapshots(
          {
            getSnapshot: (id) => getSnapshot(db, site.id, id),
            loadVerdicts: (id) => loadVerdicts(db, id),
            loadBody: (sha) => loadBody(db, sha),
          },
          configured ?? { origin: site.origin, profile: 'google' },
          from,
          to,
        );
        const label = (s: SnapshotSummary) =>
          `snapshot ${s.id} (${formatTime(s.firstSeen)}, ${s.status ?? s.error ?? '-'})`;
        const lines = [`${site.origin}: ${label(from)} -> ${label(to)}`, ''];
        if (comparison.events.length === 0)
          lines.push('No verdict, rule, sitemap or status changes.');
        for (const event of comparison.events) lines.push(...formatEvent(event));
        const text = (body: Uint8Array | null) => (body === null ? '' : decoder.decode(body));
        const patch = createTwoFilesPatch(
          `robots.txt (snapshot ${from.id})`,
          `robots.txt (snapshot ${to.id})`,
          text(comparison.fromBody),
          text(comparison.toBody),
          undefined,
          undefined,
          { context: 3 },
        );
        lines.push('', patch.split('\n').slice(1).join('\n').trimEnd());
        await write(context.io.stdout, lines.join('\n') + '\n');
      });
    });
}
