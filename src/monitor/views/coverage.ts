/**
 * A snapshot's coverage as the API, the command line and the pages show it: per crawler,
 * allowed and disallowed URLs of the site's URL set, the deciding rules with how many
 * URLs each decides, the prefixes most affected, samples; and the URL set it was computed
 * over (when it was read, what changed, what was wrong with its sitemaps).
 */
import { coverageDocument } from '../documents/coverage.js';
import type { CoverageDocumentValue } from '../documents/coverage.js';
import type { StoredCoverage, StoredUrlSet } from '../records.js';
import { grouped } from '../../policy/wording/words.js';

/** The coverage of a snapshot, or undefined when none was computed (sitemaps off, or not yet). */
export async function viewCoverage(
  store: {
    loadCoverage(snapshotId: number): Promise<StoredCoverage | undefined>;
    loadUrlSetById(id: number): Promise<Omit<StoredUrlSet, 'paths'> | undefined>;
  },
  snapshotId: number,
): Promise<CoverageDocumentValue | undefined> {
  const stored = await store.loadCoverage(snapshotId);
  if (stored === undefined) return undefined;
  const urlSet = await store.loadUrlSetById(stored.urlSetId);
  return urlSet === undefined ? undefined : coverageDocument(stored, urlSet);
}

/** One crawler's share of the URL set on either side of a comparison (null: not computed). */
export interface CoverageSide {
  readonly urls: number;
  readonly allowed: number;
  readonly disallowed: number;
}

/** Two snapshots' coverage side by side, per crawler (the pages' "before/after"). */
export interface CoverageShift {
  readonly from: {
    readonly snapshot: number;
    readonly urls: number;
    readonly urlSet: number;
  } | null;
  readonly to: { readonly snapshot: number; readonly urls: number; readonly urlSet: number } | null;
  /** Both were computed over the same URL set: the difference is the file's alone. */
  readonly sameUrlSet: boolean;
  readonly agents: readonly {
    readonly agent: string;
    readonly before: CoverageSide | null;
    readonly after: CoverageSide | null;
  }[];
}

/** The site does not read its sitemaps (now): its pages show no coverage. */
export function sitemapsOff(site: {
  readonly config?: { readonly sitemaps: unknown } | undefined;
}): boolean {
  return site.config?.sitemaps === 'off';
}

/**
 * The coverage of two snapshots of a site side by side, from what was computed when each
 * was checked (nothing is evaluated here); undefined when neither has any (sitemaps off)
 * or neither's sitemaps listed a URL of the site.
 */
export async function viewCoverageShift(
  store: { loadCoverage(snapshotId: number): Promise<StoredCoverage | undefined> },
  fromId: number | null,
  toId: number,
): Promise<CoverageShift | undefined> {
  const [from, to] = await Promise.all([
    fromId === null ? Promise.resolve(undefined) : store.loadCoverage(fromId),
    store.loadCoverage(toId),
  ]);
  // Sitemaps that listed no URL of the site on either side: "0 of 0 → 0 of 0" says nothing.
  if ((from?.coverage.urls ?? 0) === 0 && (to?.coverage.urls ?? 0) === 0) return undefined;
  const side = (stored: StoredCoverage | undefined, agent: string): CoverageSide | null => {
    const found = stored?.coverage.agents.find((a) => a.agent === agent);
    return found === undefined
      ? null
      : { urls: stored!.coverage.urls, allowed: found.allowed, disallowed: found.disallowed };
  };
  const agents = [
    ...new Set(
      [...(to?.coverage.agents ?? []), ...(from?.coverage.agents ?? [])].map((a) => a.agent),
    ),
  ];
  const head = (stored: StoredCoverage | undefined) =>
    stored === undefined
      ? null
      : { snapshot: stored.snapshotId, urls: stored.coverage.urls, urlSet: stored.urlSetId };
  return {
    from: head(from),
    to: head(to),
    sameUrlSet: from !== undefined && to !== undefined && from.urlSetId === to.urlSetId,
    agents: agents.map((agent) => ({ agent, before: side(from, agent), after: side(to, agent) })),
  };
}

const count = (n: number) => grouped(n);
const share = (side: CoverageSide) =>
  side.urls === 0
    ? ''
    : ` (${((100 * side.allowed) / side.urls).toFixed(side.allowed === side.urls || side.allowed === 0 ? 0 : 1)}%)`;

/** A side as a person reads it: "84,905 of 100,000 (84.9%)". */
export function coverageSideText(side: CoverageSide | null): string {
  return side === null
    ? 'not computed'
    : `${count(side.allowed)} of ${count(side.urls)}${share(side)}`;
}

/**
 * The rows of a before/after coverage table: crawlers with the same figures on both sides
 * together, those that lose the most first, each with what changed in words.
 */
export function coverageShiftRows(shift: CoverageShift): {
  readonly agents: readonly string[];
  readonly before: CoverageSide | null;
  readonly after: CoverageSide | null;
  readonly change: string;
  /** Fewer URLs allowed than before. */
  readonly worse: boolean;
}[] {
  const groups = new Map<
    string,
    { agents: string[]; before: CoverageSide | null; after: CoverageSide | null }
  >();
  for (const { agent, before, after } of shift.agents) {
    const key = JSON.stringify([before, after]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { agents: [agent], before, after });
    else group.agents.push(agent);
  }
  return [...groups.values()]
    .map(({ agents, before, after }) => {
      const delta = before === null || after === null ? 0 : after.allowed - before.allowed;
      const change =
        before === null
          ? 'not computed for the older snapshot'
          : after === null
            ? 'not computed for the newer snapshot'
            : delta === 0
              ? 'no change'
              : delta < 0
                ? `${count(-delta)} fewer URLs allowed`
                : `${count(delta)} more URLs allowed`;
      return { agents, before, after, change, worse: delta < 0, delta };
    })
    .sort((a, b) => a.delta - b.delta)
    .map(({ delta: _delta, ...row }) => row);
}

/** Why the two sides may differ beyond the file: the URL set itself changed. */
export function coverageShiftNote(shift: CoverageShift): string | null {
  if (shift.from === null || shift.to === null || shift.sameUrlSet) return null;
  return `The sitemaps changed between the two snapshots too (${count(shift.from.urls)} → ${count(shift.to.urls)} URLs): part of the difference is the URL set, not robots.txt.`;
}
