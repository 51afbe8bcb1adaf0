/**
 * Adding many sites at once: a pasted or uploaded list, one origin per line or CSV with
 * origin, name, tags and watches. Each line is added (or refused, with its line number
 * and the one-line error the API would give); the daemon checks the new sites at once.
 */
import { csvRecords } from '../monitor/sites/import.js';
import type { CsvRecord } from '../monitor/sites/import.js';
import { oneLine } from '../lib/errors.js';
import { SiteChangeRefused } from '../monitor/sites/entries.js';
import type { SiteCatalog } from '../monitor/sites/catalog.js';
import { grouped } from '../policy/wording/words.js';

/** The most lines one list may hold (a larger list is refused whole). */
export const MAX_BULK_LINES = 1000;

export interface BulkLine {
  /** Its line number in the list (1-based). */
  readonly line: number;
  readonly origin: string;
  readonly outcome: 'added' | 'refused';
  /** The site's id when added; why not when refused. */
  readonly id?: number;
  readonly message?: string;
}

/** A list that cannot be read at all: said in one line. */
export class BulkListRefused extends Error {}

/**
 * The list's sites as the API takes them, by line: `origin[,name[,tags[,watches]]]`,
 * tags and watches separated by spaces or semicolons; blank lines, lines starting with
 * "#" and a header line (`origin,…`) are skipped.
 */
export function parseSiteList(text: string): { line: number; settings: Record<string, unknown> }[] {
  let records: CsvRecord[];
  try {
    records = csvRecords(text);
  } catch (error) {
    throw new BulkListRefused(`the list is not one origin per line or CSV: ${oneLine(error)}`);
  }
  const rows = records.filter(
    ({ record }, i) => !(i === 0 && record[0]?.toLowerCase() === 'origin'),
  );
  if (rows.length > MAX_BULK_LINES)
    throw new BulkListRefused(
      `the list has ${grouped(rows.length)} sites; add at most ${grouped(MAX_BULK_LINES)} at a time`,
    );
  const words = (value: string | undefined) =>
    (value ?? '').split(/[\s;]+/).filter((w) => w !== '');
  return rows.map(({ record, info }) => {
    const [url = '', name = '', tags, watches] = record;
    const settings: Record<string, unknown> = { url };
    if (name !== '') settings['name'] = name;
    if (words(tags).length > 0) settings['tags'] = words(tags);
    if (words(watches).length > 0) settings['watch'] = words(watches);
    return { line: info.lines, settings };
  });
}

/** The watched paths a line without its own gets: the configuration's, else the home page. */
export function bulkWatchPaths(catalog: SiteCatalog): readonly string[] {
  return catalog.config.siteDefaults.watchPaths ?? ['/'];
}

/** Adds each site of the list, in order; one line's refusal does not stop the others. */
export async function addSiteList(
  catalog: SiteCatalog,
  text: string,
  limit: readonly string[] = [],
): Promise<BulkLine[]> {
  const results: BulkLine[] = [];
  // A line without watched URLs takes the configuration's; without any, the home page.
  const fallback = catalog.config.siteDefaults.watchPaths === undefined ? ['/'] : undefined;
  for (const { line, settings } of parseSiteList(text)) {
    const origin = String(settings['url']);
    try {
      const entry = await catalog.add(
        fallback === undefined || 'watch' in settings ? settings : { ...settings, watch: fallback },
        limit,
      );
      results.push({ line, origin: entry.site.origin, outcome: 'added', id: entry.id });
    } catch (error) {
      if (!(error instanceof SiteChangeRefused)) throw error;
      results.push({ line, origin, outcome: 'refused', message: error.message });
    }
  }
  return results;
}
