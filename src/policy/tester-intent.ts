/**
 * A file in the tester judged against the site's intent: what deploying it would do to
 * the site's state, and which of the cells that would differ the live file gets wrong
 * already. Pure; from the tester's rows, so the file is not evaluated twice.
 */
import { MAX_ROBOTS_BYTES } from '../robots/index.js';
import type { Profile } from '../robots/index.js';
import { fetchStatusOf } from './changes/events.js';
import { fileCondition } from './file-condition.js';
import { draftLead } from './incidents.js';
import { evaluateIntent } from './intent.js';
import type { IntentEvaluation, IntentRule, LiveMarkedViolation, Violation } from './intent.js';
import type { TesterRow } from './tester.js';

export interface TesterIntent {
  readonly evaluation: IntentEvaluation;
  /** Of the cells that would differ, how many differ with the live file too. */
  readonly already: number;
  /** The cells that would differ (at most MAX_VIOLATIONS), each marked if the live file has it differ too. */
  readonly violations: readonly LiveMarkedViolation[];
  /**
   * What crawlers would do once it is deployed, of every cell that would differ, as the
   * gate says it ("/pricing and /cart would be blocked for Googlebot (4 page × crawler
   * pairs differ from the intent)"); null when none would.
   */
  readonly lead: string | null;
}

export function testerIntent(
  rules: readonly IntentRule[],
  profile: Profile,
  body: Uint8Array,
  rows: readonly TesterRow[],
): TesterIntent {
  const served = { status: 200, error: null } as const;
  const proposed = rows.map((r) => r.proposed);
  const every: Violation[] = [];
  const evaluation = evaluateIntent(
    rules,
    proposed,
    {
      status: fetchStatusOf(served, profile, false),
      fileCondition: fileCondition(
        body.subarray(0, MAX_ROBOTS_BYTES),
        body.length > MAX_ROBOTS_BYTES,
      ),
      refused: null,
    },
    every,
  );
  // Over every cell: the listed violations stop at MAX_VIOLATIONS.
  const live = new Map(rows.map((r) => [`${r.url}\n${r.agent}`, r.live?.allowed]));
  const liveToo = (v: Violation) =>
    live.get(`${v.url}\n${v.agent}`) === (v.expected === 'disallowed');
  const already = every.filter(liveToo).length;
  const violations = evaluation.violations.map((v) => ({ ...v, live: liveToo(v) }));
  const lead = every.length === 0 ? null : draftLead(every, 'page × crawler pair');
  return { evaluation, already, violations, lead };
}
