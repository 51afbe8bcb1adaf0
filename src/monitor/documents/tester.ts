/**
 * The tester as documents: the proposed file with the URLs and crawlers to evaluate, and
 * what it decides beside the live file, with its effect on the site's whole URL set.
 */
import { z } from 'zod';
import type { TesterIntent } from '../../policy/tester-intent.js';
import { LintFindingDocument, list, VerdictDocument } from './common.js';
import { ViolationDocument } from './intent.js';

/** The body of POST /api/v1/test. */
export const TestRequest = z.strictObject({
  robotstxt: z
    .string({ error: 'must be the robots.txt to test, as a string' })
    .max(2_000_000, 'is over 2,000,000 characters'),
  agents: z.array(
    z.union([z.string(), z.strictObject({ token: z.string(), profile: z.string().optional() })]),
    { error: 'must be a list of tokens or {token, profile}' },
  ),
  urls: z.array(z.string(), { error: 'must be a list of URLs' }),
  site: z.number({ error: 'must be a site id' }).int().positive().optional(),
});

const Count = z.number().int();

/** The file judged against the chosen site's intent, as a deploy of it would be. */
const TesterIntentDocument = z
  .object({
    state: z.enum(['as-intended', 'not-as-intended', 'cannot-check']).meta({
      description:
        'what deploying the file would make of the site; cannot-check: crawlers would not read it as robots.txt (reason says why)',
    }),
    judged: Count.meta({ description: 'rows an intent entry matched' }),
    violationCount: Count.meta({ description: 'rows that would differ from the intent' }),
    already: Count.meta({
      description: 'of those, how many differ from the intent with the live file too',
    }),
    reason: z.string().nullable().meta({ description: 'why it could not be judged' }),
    lead: z.string().nullable().meta({
      description:
        'what crawlers would do once the file is deployed, of every row that would differ ("/pricing and /cart would be blocked for Googlebot (4 page × crawler pairs differ from the intent)"); null when none would',
    }),
    violations: list(
      ViolationDocument.extend({
        live: z.boolean().meta({ description: 'the live file has this row differ too' }),
      }),
    ).meta({ description: 'the rows that would differ (at most 200)' }),
  })
  .meta({ id: 'TesterIntent' });

export function testerIntentDocument(intent: TesterIntent): z.input<typeof TesterIntentDocument> {
  const { evaluation } = intent;
  return {
    state: evaluation.state,
    judged: evaluation.judged,
    violationCount: evaluation.violationCount,
    already: intent.already,
    reason: evaluation.reason,
    lead: intent.lead,
    violations: intent.violations,
  };
}

export const TestResultDocument = z
  .object({
    rows: list(
      z.object({
        url: z.string(),
        agent: z.string(),
        proposed: VerdictDocument,
        live: VerdictDocument.nullable(),
        changed: z.boolean().meta({ description: 'the proposed file would flip this verdict' }),
        preferences: z
          .object({
            preferences: z.record(z.string(), z.string()).nullable(),
            preferenceLines: z.record(z.string(), Count),
          })
          .optional()
          .meta({
            description:
              'the usage preferences the file states for the row; absent without Content-Usage or Content-Signal lines',
          }),
      }),
    ),
    findings: list(LintFindingDocument),
    live: z.boolean().meta({ description: 'whether the site has a live file compared with' }),
    intent: TesterIntentDocument.nullable().meta({
      description: "the file judged against the site's intent; null without a site",
    }),
    site: z
      .object({
        urls: Count,
        effects: list(
          z.object({
            agents: list(z.string()),
            disallowed: Count,
            newlyDisallowed: Count,
            newlyAllowed: Count,
            prefixes: list(z.object({ prefix: z.string(), urls: Count })),
            rules: list(
              z.object({
                line: Count,
                directive: z.enum(['allow', 'disallow']),
                pattern: z.string(),
                urls: Count,
              }),
            ),
            samples: list(z.string()),
          }),
        ),
      })
      .nullable()
      .meta({ description: "the file's effect on every URL of the site's sitemaps, or null" }),
  })
  .meta({ id: 'TestResult' });
