/**
 * Importing a list of sites for research: a ranked list (Tranco's `rank,domain` CSV) or
 * one origin per line (optionally `origin,name,tags,watches`, as the web UI's bulk add
 * takes), 100,000 lines in one command. Every line is checked first, with the rules a site
 * added in the API follows; a malformed or repeated line refuses the whole list, each
 * named by its line number, and nothing is written. Sites already watched are left as
 * they are (an import run twice adds nothing); removed ones come back with their history.
 */
import { parse } from 'csv-parse/sync';
import { ConfigError } from '../../config/config.js';
import { resolveSiteSettings } from '../../config/validate.js';
import { MAX_RANK } from '../../config/schema.js';
import { originFromInput } from '../../config/urls.js';
import type { Config } from '../../config/config.js';
import { oneLine } from '../../lib/errors.js';
import { clip, visibleControls } from '../../policy/wording/format.js';
import { grouped } from '../../policy/wording/words.js';

/** What importing needs from the store. */
export interface ImportStore {
  /** The origins watched now (added and not removed). */
  activeOrigins(): Promise<Set<string>>;
  /**
   * Adds the sites (or brings removed ones back) in one transaction, `onProgress` after
   * each batch; returns how many rows were written.
   */
  importSites(
    rows: readonly { origin: string; settings: Record<string, unknown> }[],
    onProgress: (written: number) => void,
  ): Promise<number>;
}

export interface ImportOptions {
  /** Tags every imported site gets (besides a line's own). */
  readonly tags: readonly string[];
  /** Watched paths of sites whose line names none; default: the top-level watch, else `/`. */
  readonly watch?: readonly string[];
  /** Crawlers, as an agent list (`@search`, `@ai`, tokens); default: the top-level agents. */
  readonly agents?: readonly string[];
  /** Check everything, write nothing. */
  readonly dryRun: boolean;
  onProgress?(written: number, total: number): void;
}

export interface ImportOutcome {
  /** Lines that name a site. */
  readonly lines: number;
  readonly added: number;
  /** Already watched (by the configuration file, or added before): left as they are. */
  readonly alreadyWatched: number;
}

/** A list that cannot be imported: every problem, by line (the first 50 said). */
export class ImportRefused extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `${grouped(problems.length)} line${problems.length === 1 ? '' : 's'} cannot be imported, nothing was: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}`,
    );
  }
}

/** A CSV line's fields, and the line it ends on. */
export interface CsvRecord {
  readonly record: string[];
  readonly info: { readonly lines: number };
}

/**
 * The records of a site list (CSV, or one origin per line): fields trimmed, blank lines
 * and `#` comments skipped, each with its line number. Throws csv-parse's error.
 */
export function csvRecords(text: string): CsvRecord[] {
  return parse(text, {
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
    comment: '#',
    info: true,
  }) as unknown as CsvRecord[];
}

const words = (value: string | undefined) => (value ?? '').split(/[\s;]+/).filter((w) => w !== '');

/** A line of a ranked list: "rank,domain", the rank a whole number. */
const isRankedLine = (record: readonly string[]) =>
  /^\d+$/.test(record[0] ?? '') && record[1] !== undefined;

/** Text of a line quoted in a problem: its first 60 characters, control characters escaped. */
const clipped = (text: string) => visibleControls(clip(text, 60));

/** The list's lines as site settings, or the problems of each line that is not one. */
export function readSiteList(
  text: string,
  config: Pick<Config, 'siteDefaults' | 'notify' | 'presets' | 'registry'>,
  options: Pick<ImportOptions, 'tags' | 'watch' | 'agents'>,
): {
  rows: { line: number; origin: string; settings: Record<string, unknown> }[];
  problems: string[];
} {
  let records: CsvRecord[];
  try {
    records = csvRecords(text);
  } catch (error) {
    throw new ImportRefused([`the list is not CSV or one origin per line: ${oneLine(error)}`]);
  }
  const problems: string[] = [];
  const rows: { line: number; origin: string; settings: Record<string, unknown> }[] = [];
  const seen = new Map<string, number>();
  const watch = options.watch ?? (config.siteDefaults.watchPaths === undefined ? ['/'] : undefined);
  const header = /^(origin|rank|domain|url)$/i.test(records[0]?.record[0] ?? '');
  // A ranked list is one whose first site's line is "rank,domain": then every line is, and
  // a rank that is no whole number ("-1", "1.5") is the line's fault, not an origin ("1.5"
  // would be read as the address 1.0.0.5).
  const firstSite = records[header ? 1 : 0]?.record;
  const ranked = firstSite !== undefined && isRankedLine(firstSite);
  for (const [i, { record, info }] of records.entries()) {
    if (i === 0 && header) continue;
    const first = record[0] ?? '';
    const line = info.lines;
    if (ranked && !isRankedLine(record)) {
      problems.push(
        record.length < 2
          ? `line ${line}: a ranked list's line is "rank,domain", not "${clipped(first)}"`
          : `line ${line}: rank: must be a whole number from 1 to ${MAX_RANK}, not "${clipped(first)}"`,
      );
      continue;
    }
    const [url = '', name = '', tags, watches] = ranked ? [record[1]] : record;
    let origin: string;
    try {
      origin = originFromInput(url);
    } catch (error) {
      problems.push(
        `line ${line}: ${error instanceof ConfigError ? error.message : oneLine(error)}`,
      );
      continue;
    }
    const earlier = seen.get(origin);
    if (earlier !== undefined) {
      problems.push(`line ${line}: ${origin} is listed twice (line ${earlier} too)`);
      continue;
    }
    seen.set(origin, line);
    const settings: Record<string, unknown> = {};
    if (name !== '') settings['name'] = name;
    const allTags = [...new Set([...options.tags, ...words(tags)])];
    if (allTags.length > 0) settings['tags'] = allTags;
    const lineWatch = words(watches);
    if (lineWatch.length > 0) settings['watch'] = lineWatch;
    else if (watch !== undefined) settings['watch'] = [...watch];
    if (options.agents !== undefined) settings['agents'] = [...options.agents];
    if (ranked) settings['rank'] = Number(first);
    try {
      // The rules a site added in the API follows; the settings as they would be stored.
      rows.push({
        line,
        origin,
        settings: resolveSiteSettings(config, origin, settings).settings,
      });
    } catch (error) {
      problems.push(
        `line ${line}: ${error instanceof ConfigError ? error.message : oneLine(error)}`,
      );
    }
  }
  return { rows, problems };
}

/** Imports a list of sites: all of it, or (with any problem) none of it. */
export async function importSites(
  store: ImportStore,
  config: Pick<Config, 'siteDefaults' | 'notify' | 'presets' | 'registry' | 'sites'>,
  text: string,
  options: ImportOptions,
): Promise<ImportOutcome> {
  const { rows, problems } = readSiteList(text, config, options);
  if (problems.length > 0) throw new ImportRefused(problems);
  const watched = await store.activeOrigins();
  for (const site of config.sites) watched.add(site.origin);
  const fresh = rows.filter((r) => !watched.has(r.origin));
  const outcome = {
    lines: rows.length,
    added: fresh.length,
    alreadyWatched: rows.length - fresh.length,
  };
  if (options.dryRun || fresh.length === 0) return outcome;
  await store.importSites(
    fresh.map(({ origin, settings }) => ({ origin, settings })),
    (written) => options.onProgress?.(written, fresh.length),
  );
  return outcome;
}
