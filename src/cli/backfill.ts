import type { Command } from 'commander';
import { FatalError, UsageError } from '../lib/errors.js';
import { ArchiveError } from '../fetch/archive.js';
import { BACKFILL_EVERY, backfillSite, readBackfillOptions } from '../monitor/archive/backfill.js';
import type { BackfillOptions, BackfillOutcome } from '../monitor/archive/backfill.js';
import { daemonSites, withStoreOrDaemon } from './daemon-client.js';
import type { CliContext } from './context.js';
import { firstOf, originsOf, readConfig } from './context.js';
import { wireCatalog } from '../compose.js';
import { wireBackfill } from '../compose-backfill.js';
import { write } from './io.js';

interface BackfillFlags {
  config?: string;
  all?: boolean;
  since?: string;
  until?: string;
  every?: string;
  json?: boolean;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/** Sites backfilled at the same time (their requests still spaced as one). */
const SITES_AT_ONCE = 4;

/** `robowatch backfill`: sites' robots.txt history before robowatch watched them. */
export function registerBackfill(program: Command, context: CliContext): void {
  program
    .command('backfill')
    .summary("load sites' robots.txt history from the Internet Archive")
    .description(
      "Reads the Internet Archive's captures of each site's robots.txt (archive.url, at most\n" +
        'archive.requestsPerMinute requests a minute) from before robowatch first checked it,\n' +
        "and adds them to the site's history as archived snapshots: verdicts and causes, never\n" +
        'alerts. Each capture is stored as it is read: a run stopped midway goes on where it\n' +
        'stopped, and a second run reads nothing it has. Beside a running daemon holding the\n' +
        'embedded database, the daemon is asked to do it (progress on the site pages).',
    )
    .argument('[origins...]', 'the sites to backfill (https://example.com, or example.com)')
    .option('--all', 'every watched site')
    .option('--since <day>', 'from this day (YYYY-MM-DD; default: all the archive has)')
    .option('--until <day>', "up to this day, included (default: the site's first check)")
    .option('--every <period>', `${BACKFILL_EVERY.join(', ')}`, 'change')
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml)',
    )
    .option('--json', 'print one JSON line per site')
    .action(async (origins: string[], flags: BackfillFlags) => {
      if (origins.length === 0 && flags.all !== true)
        throw new UsageError('name the sites to backfill, or --all for every watched site');
      if (origins.length > 0 && flags.all === true)
        throw new UsageError('either name sites or --all, not both');
      let options: BackfillOptions;
      try {
        options = readBackfillOptions(flags);
      } catch (error) {
        throw new UsageError(`--${(error as Error).message}`);
      }
      // Each as written, or without a scheme https then http (the one watched).
      const wanted = origins.map((o) => {
        const candidates = originsOf(o);
        if (candidates.length === 0)
          throw new UsageError(`"${o}" is not a site (https://example.com)`);
        return candidates;
      });
      const config = await readConfig(context, flags.config);
      const progress = context.io.stderr as NodeJS.WritableStream & { isTTY?: boolean };
      const print = (outcome: BackfillOutcome) =>
        write(
          context.io.stdout,
          flags.json
            ? `${JSON.stringify({ ...outcome, until: outcome.until.toISOString() })}\n`
            : `${outcome.site}: ${outcome.listed} capture${outcome.listed === 1 ? '' : 's'} before ${day(outcome.until)}, ` +
                `${outcome.fetched} read now, ${outcome.known} read before` +
                (outcome.skipped > 0 ? `, ${outcome.skipped} left out` : '') +
                `; ${outcome.snapshots} archived state${outcome.snapshots === 1 ? '' : 's'} in its history\n`,
        );
      const unknown = (origin: string) =>
        new UsageError(
          `${origin} is not a watched site (not in ${config.file}, nor added in the web UI or API)`,
        );
      await withStoreOrDaemon(
        context,
        config,
        async (handle) => {
          const catalog = wireCatalog(context, config, handle.db);
          await catalog.load(flags.all === true ? {} : { origins: new Set(wanted.flat()) });
          const entries = catalog.entries();
          const sites =
            flags.all === true
              ? entries
              : wanted.map((candidates) => {
                  const entry = firstOf(candidates, (o) =>
                    entries.find((e) => e.site.origin === o),
                  );
                  if (entry === undefined) throw unknown(candidates[0]!);
                  return entry;
                });
          const deps = wireBackfill(
            context,
            config,
            handle.db,
            context.createFetcher(config),
            (site, done, listed) => {
              if (progress.isTTY === true)
                progress.write(`\r${site}: ${done} of ${listed}+ captures read`);
            },
          );
          // A few sites at once: the archive's spacing is shared (one client), so this only
          // overlaps reading with storing; the first refusal stops taking more sites.
          let failure = null as Error | null;
          const queue = [...sites];
          const worker = async () => {
            for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
              if (failure !== null) return;
              try {
                const outcome = await backfillSite(deps, entry.site, entry.id, options);
                if (progress.isTTY === true) progress.write('\r\x1b[K');
                await print(outcome);
              } catch (error) {
                if (!(error instanceof ArchiveError)) throw error;
                // The archive refused or failed: what was read is kept; the rest waits.
                failure ??= error;
              }
            }
          };
          await Promise.all(Array.from({ length: Math.min(SITES_AT_ONCE, sites.length) }, worker));
          if (failure !== null) throw new FatalError(`${failure.message} (what was read is kept)`);
        },
        async (daemon) => {
          const all = await daemonSites(daemon);
          const sites =
            flags.all === true
              ? all
              : wanted.map((candidates) => {
                  const site = firstOf(candidates, (o) => all.find((s) => s.origin === o));
                  if (site === undefined) throw unknown(candidates[0]!);
                  return site;
                });
          for (const site of sites)
            await daemon.post(`/api/v1/sites/${site.id}/backfill`, {
              ...(flags.since === undefined ? {} : { since: flags.since }),
              ...(flags.until === undefined ? {} : { until: flags.until }),
              every: flags.every ?? 'change',
            });
          await write(
            context.io.stdout,
            `The running daemon loads the history of ${sites.length} site${sites.length === 1 ? '' : 's'} from the Internet Archive; each site's page shows how far it is.\n`,
          );
        },
      );
    });
}
