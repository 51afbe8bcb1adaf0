/**
 * The (watched URL × crawler) pairs of a cause, said the way people say them: crawler
 * lists collapsed ("all 22 crawlers that read the `*` group", "every crawler but
 * GPTBot"), URLs that changed for the same crawlers on one line. Pure.
 */
import type { GroupLabel, PairChange } from '../changes/cause-model.js';

/** What a crawler list is said against: every watched crawler, and who reads the group. */
export interface CrawlerContext {
  /** The watched crawlers, in configuration order. */
  readonly agents: readonly string[];
  /** The crawlers that read the group a rule is in, and that group. */
  readonly readers?: { readonly agents: readonly string[]; readonly group: GroupLabel };
}

/** "Googlebot", "Googlebot and GPTBot", "Googlebot, Bingbot and GPTBot". */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** "the `*` group", "the Googlebot group", "the group for Googlebot, Googlebot-News". */
export function groupName(group: GroupLabel): string {
  const [first, ...rest] = group.agents;
  if (first === undefined) return `the group at line ${group.line}`;
  if (rest.length === 0) return first === '*' ? 'the `*` group' : `the ${first} group`;
  return `the group for ${listNames(group.agents)}`;
}

/**
 * A set of crawlers in a few words: up to three by name; else all the readers of a
 * group, every watched crawler, every one but a few, or a count with the first names.
 */
export function describeCrawlers(set: readonly string[], context: CrawlerContext): string {
  const names = context.agents.filter((a) => set.includes(a));
  for (const a of set) if (!names.includes(a)) names.push(a);
  const n = names.length;
  if (n <= 3) return listNames(names);
  const readers = context.readers;
  if (
    readers !== undefined &&
    n === readers.agents.length &&
    readers.agents.every((a) => set.includes(a))
  )
    return `all ${n} crawlers that read ${groupName(readers.group)}`;
  const all = context.agents;
  if (n === all.length && all.every((a) => set.includes(a))) return `all ${n} watched crawlers`;
  const missing = all.filter((a) => !set.includes(a));
  // Without the watched crawlers (an export reads causes alone), no "but": they are counted.
  if (missing.length > 0 && missing.length <= 3) return `every crawler but ${listNames(missing)}`;
  if (n === 4) return listNames(names);
  return `${n} crawlers (${names.slice(0, 3).join(', ')}, …)`;
}

/**
 * A set of crawlers, every one of them known to the reader: "All 45 watched crawlers",
 * "Every crawler but GPTBot and CCBot", else each by name. For lists and tables where the
 * reader must be able to tell exactly which crawlers, among `all` (the watched ones).
 */
export function crawlerSet(set: readonly string[], all: readonly string[]): string {
  const watched = set.every((a) => all.includes(a));
  const missing = all.filter((a) => !set.includes(a));
  if (set.length > 3 && watched && missing.length === 0)
    return `All ${set.length} watched crawlers`;
  if (set.length > 3 && watched && missing.length <= 3)
    return `Every crawler but ${listNames(missing)}`;
  return set.join(', ');
}

/** The path and query of a watched URL: what a reader recognises. */
export function shortUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}

/** One line of collapsed pairs: URLs that changed the same way for the same crawlers. */
export interface PairLine {
  /** The verdict now. */
  readonly allowed: boolean;
  /** False: the verdict did not flip now; it differs from the file before an outage. */
  readonly flipped: boolean;
  readonly urls: readonly string[];
  readonly agents: readonly string[];
}

/**
 * Pairs collapsed into lines: for each way they changed (now disallowed, now allowed),
 * the URLs grouped by the exact set of crawlers they changed for; newly disallowed
 * first, then the lines with the most pairs.
 */
export function collapsePairs(pairs: readonly PairChange[]): PairLine[] {
  const lines: PairLine[] = [];
  for (const allowed of [false, true]) {
    for (const flipped of [true, false]) {
      const same = pairs.filter((p) => p.allowed === allowed && p.flipped === flipped);
      const group = groupByCrawlers(same)
        .map((g) => ({ allowed, flipped, ...g }))
        .sort((a, b) => b.urls.length * b.agents.length - a.urls.length * a.agents.length);
      for (const line of group) lines.push(line);
    }
  }
  return lines;
}

/**
 * (URL, crawler) pairs as groups of URLs that share the exact same set of crawlers, in
 * the order the URLs first appear.
 */
export function groupByCrawlers(
  pairs: Iterable<{ readonly url: string; readonly agent: string }>,
): { urls: string[]; agents: string[] }[] {
  const byUrl = new Map<string, string[]>();
  for (const p of pairs) {
    let agents = byUrl.get(p.url);
    if (agents === undefined) byUrl.set(p.url, (agents = []));
    if (!agents.includes(p.agent)) agents.push(p.agent);
  }
  const bySet = new Map<string, { urls: string[]; agents: string[] }>();
  for (const [url, agents] of byUrl) {
    const key = [...agents].sort().join('\n');
    const found = bySet.get(key);
    if (found) found.urls.push(url);
    else bySet.set(key, { urls: [url], agents });
  }
  return [...bySet.values()];
}

/** At most this many URLs are named on one line. */
const URLS_PER_LINE = 4;

/** "/a, /b and 3 more watched pages". */
export function describeUrls(urls: readonly string[], limit = URLS_PER_LINE): string {
  const shown = urls.slice(0, limit).map(shortUrl);
  const more = urls.length - shown.length;
  if (more === 0) return listNames(shown);
  return `${shown.join(', ')} and ${more} more watched page${more === 1 ? '' : 's'}`;
}

/** A collapsed line in words: "now disallowed for all 22 crawlers that read …: /a, /b". */
export function pairLineText(line: PairLine, context: CrawlerContext): string {
  const who = describeCrawlers(line.agents, context);
  const urls = describeUrls(line.urls);
  if (!line.flipped)
    return `${line.allowed ? 'allowed' : 'disallowed'} for ${who} (as during the outage; the file before it said otherwise): ${urls}`;
  return `now ${line.allowed ? 'allowed' : 'disallowed'} for ${who}: ${urls}`;
}

/**
 * A cause's pairs as at most `limit` lines of text, and how many pairs are on the lines
 * left out (for "and N more: see …").
 */
export function pairLines(
  pairs: readonly PairChange[],
  context: CrawlerContext,
  limit: number,
): { readonly lines: readonly string[]; readonly more: number } {
  const collapsed = collapsePairs(pairs);
  return {
    lines: collapsed.slice(0, limit).map((l) => pairLineText(l, context)),
    more: collapsed.slice(limit).reduce((n, l) => n + l.urls.length * l.agents.length, 0),
  };
}
