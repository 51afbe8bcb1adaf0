/**
 * A check's outcome as a document (its schema, `CheckDocument`, is in sites.ts): built
 * without zod, so that `robowatch check` prints its outcomes without loading the API's
 * schemas.
 */
import { boundEvents } from '../../policy/changes/events.js';
import { refusalLine } from '../../policy/refusal.js';
import { redirectOf } from '../../policy/fetch-result.js';
import { intentCauses, intentLead } from '../../policy/incidents.js';
import { alertedCells } from '../../policy/incident-alerts.js';
import type { CheckOutcome } from '../check/site.js';
import type { Judged } from '../check/judge.js';

export function outcomeDocument(outcome: CheckOutcome) {
  const verdicts = outcome.verdicts;
  const refusal = outcome.causes.find((c) => c.type === 'refused');
  return {
    site: outcome.site,
    siteId: outcome.siteId,
    kind: outcome.kind,
    snapshotId: outcome.snapshotId,
    previousId: outcome.previousId,
    status: outcome.status,
    transient: outcome.transient,
    // A check refused for its redirect says so in its refusal.
    redirect: outcome.kind === 'refused' ? null : redirectOf(outcome.fetch),
    events: boundEvents(outcome.events),
    causes: outcome.causes,
    findings: outcome.findings,
    verdicts:
      verdicts === null
        ? null
        : {
            watched: verdicts.counts.reduce((n, c) => n + c.watched, 0),
            disallowed: verdicts.counts.reduce((n, c) => n + c.disallowed, 0),
          },
    refused:
      outcome.refused === undefined || refusal === undefined
        ? null
        : {
            message: refusalLine(refusal),
            since: outcome.refused.since.toISOString(),
            began: outcome.refused.began,
          },
    intent: judgedDocument(outcome.judged),
  };
}

/** What a check's incident step is called: `changed` is still open, and no worse. */
const STEPS = {
  open: 'opened',
  reopen: 'reopened',
  resolve: 'resolved',
} as const;

/**
 * The site judged against its intent, when the check judged it (a new state, or a change
 * of intent): its state, the first cells that differ and why, and what it did to the
 * site's incident.
 */
function judgedDocument(judged: Judged | undefined) {
  if (judged === undefined) return null;
  const { evaluation, recorded } = judged;
  const causes = intentCauses(evaluation);
  return {
    state: evaluation.state,
    violationCount: evaluation.violationCount,
    violations: alertedCells(evaluation.violations),
    causes,
    // The judgement in a phrase, said from every cell (the list stops at 50).
    lead: intentLead(
      evaluation.state,
      evaluation.violations,
      evaluation.violationCount,
      causes[0],
      evaluation.grid,
    ),
    incident:
      recorded.step === 'none'
        ? null
        : {
            id: recorded.incidentId,
            step:
              recorded.step === 'update'
                ? recorded.worse
                  ? ('worse' as const)
                  : ('changed' as const)
                : STEPS[recorded.step],
          },
  };
}
