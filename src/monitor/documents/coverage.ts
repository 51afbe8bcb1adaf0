/**
 * Coverage as documents: a snapshot's coverage of the site's URL set (its sitemaps), per
 * crawler; and how each crawler's share moved between two snapshots.
 */
import { z } from 'zod';
import { submittedBlocked } from '../../policy/coverage-change.js';
import type { StoredCoverage, StoredUrlSet } from '../records.js';
import { Id, list, Timestamp } from './common.js';

const Directive = z.enum(['allow', 'disallow']);

/** A snapshot's coverage of the site's URL set. */
export const CoverageDocument = z
  .object({
    snapshot: Id,
    urls: z.number().int(),
    computedAt: Timestamp,
    findings: list(z.string()).meta({ description: 'what a search console would flag' }),
    urlSet: z.object({
      id: Id,
      firstSeenAt: Timestamp,
      lastSeenAt: Timestamp,
      added: z.number().int(),
      removed: z.number().int(),
      otherOrigins: z.number().int(),
      overCap: z.number().int(),
      problems: list(z.string()),
      sitemaps: list(
        z.object({
          url: z.string(),
          status: z.number().int().nullable(),
          format: z.string().nullable(),
          entries: z.number().int(),
          notModified: z.boolean(),
          problems: list(z.string()),
        }),
      ),
    }),
    agents: z.record(
      z.string(),
      z.object({
        allowed: z.number().int(),
        disallowed: z.number().int(),
        access: z.enum(['unreachable', 'unavailable']).nullable(),
        rules: list(
          z.object({
            line: z.number().int(),
            directive: Directive,
            pattern: z.string(),
            urls: z.number().int(),
            samples: list(z.string()),
          }),
        ),
        prefixes: list(
          z.object({ prefix: z.string(), disallowed: z.number().int(), urls: z.number().int() }),
        ),
        samples: list(z.string()),
      }),
    ),
  })
  .meta({ id: 'Coverage' });

/** A crawler's share of the URL set on one side of a comparison. */
const CoverageSide = z.object({
  urls: z.number().int(),
  allowed: z.number().int(),
  disallowed: z.number().int(),
});

/** How each crawler's share of the URL set moved between two snapshots. */
export const CoverageChangeDocument = z
  .object({
    from: z.object({ snapshot: Id, urls: z.number().int(), urlSet: Id }).nullable(),
    to: z.object({ snapshot: Id, urls: z.number().int(), urlSet: Id }).nullable(),
    sameUrlSet: z.boolean(),
    agents: list(
      z.object({
        agent: z.string(),
        before: CoverageSide.catchall(z.any()).nullable(),
        after: CoverageSide.catchall(z.any()).nullable(),
      }),
    ),
  })
  .meta({ id: 'CoverageShift' });

/**
 * A snapshot's coverage, as the API, the pages and `robowatch coverage --json` give it
 * (instants as dates: `CoverageDocument` is the same after JSON).
 */
export function coverageDocument(stored: StoredCoverage, urlSet: Omit<StoredUrlSet, 'paths'>) {
  const { coverage } = stored;
  return {
    snapshot: stored.snapshotId,
    urls: coverage.urls,
    computedAt: stored.computedAt,
    findings: [submittedBlocked(coverage)].filter((f) => f !== null),
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

export type CoverageDocumentValue = ReturnType<typeof coverageDocument>;
export type CoverageDocument = z.infer<typeof CoverageDocument>;
export type CoverageChangeDocument = z.infer<typeof CoverageChangeDocument>;
