/**
 * A snapshot's coverage as the API, the command line and the pages show it: per crawler,
 * allowed and disallowed URLs of the site's URL set, the deciding rules with how many
 * URLs each decides, the prefixes most affected, samples; and the URL set it was computed
 * over (when it was read, what changed, what was wrong with its sitemaps).
 */
import type { Directive } from '../robots/index.js';
import type { StoredCoverage, StoredUrlSet } from './records.js';

export interface CoverageDocument {
  readonly snapshot: number;
  readonly urls: number;
  readonly computedAt: Date;
  readonly urlSet: {
    readonly id: number;
    readonly firstSeenAt: Date;
    readonly lastSeenAt: Date;
    readonly added: number;
    readonly removed: number;
    readonly otherOrigins: number;
    readonly overCap: number;
    readonly problems: readonly string[];
    readonly sitemaps: readonly {
      readonly url: string;
      readonly status: number | null;
      readonly format: string | null;
      readonly entries: number;
      readonly notModified: boolean;
      readonly problems: readonly string[];
    }[];
  };
  readonly agents: Readonly<
    Record<
      string,
      {
        readonly allowed: number;
        readonly disallowed: number;
        readonly access: 'unreachable' | 'unavailable' | null;
        readonly rules: readonly {
          readonly line: number;
          readonly directive: Directive;
          readonly pattern: string;
          readonly urls: number;
          readonly samples: readonly string[];
        }[];
        readonly prefixes: readonly {
          readonly prefix: string;
          readonly disallowed: number;
          readonly urls: number;
        }[];
        readonly samples: readonly string[];
      }
    >
  >;
}

export function coverageDocument(
  stored: StoredCoverage,
  urlSet: Omit<StoredUrlSet, 'paths'>,
): CoverageDocument {
  const { coverage } = stored;
  return {
    snapshot: stored.snapshotId,
    urls: coverage.urls,
    computedAt: stored.computedAt,
    urlSet: {
      id: urlSet.id,
      firstSeenAt: urlSet.firstSeenAt,
      lastSeenAt: urlSet.lastSeenAt,
      added: urlSet.added,
      removed: urlSet.removed,
      otherOrigins: urlSet.report.otherOrigins,
      overCap: urlSet.report.overCap,
      problems: urlSet.report.problems,
      sitemaps: urlSet.report.files.map((f) => ({
        url: f.url,
        status: f.status,
        format: f.format,
        entries: f.entries,
        notModified: f.notModified,
        problems: f.problems,
      })),
    },
    agents: Object.fromEntries(
      coverage.agents.map((a) => [
        a.agent,
        {
          allowed: a.allowed,
          disallowed: a.disallowed,
          access: a.access,
          rules: a.rules,
          prefixes: a.prefixes,
          samples: a.samples,
        },
      ]),
    ),
  };
}

/** The coverage of a snapshot, or undefined when none was computed (sitemaps off, or not yet). */
export async function viewCoverage(
  store: {
    loadCoverage(snapshotId: number): Promise<StoredCoverage | undefined>;
    loadUrlSetById(id: number): Promise<Omit<StoredUrlSet, 'paths'> | undefined>;
  },
  snapshotId: number,
): Promise<CoverageDocument | undefined> {
  const stored = await store.loadCoverage(snapshotId);
  if (stored === undefined) return undefined;
  const urlSet = await store.loadUrlSetById(stored.urlSetId);
  return urlSet === undefined ? undefined : coverageDocument(stored, urlSet);
}
