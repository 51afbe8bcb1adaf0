/**
 * A check's outcome as a document (its schema, `CheckDocument`, is in sites.ts): built
 * without zod, so that `robowatch check` prints its outcomes without loading the API's
 * schemas.
 */
import { boundEvents } from '../../policy/changes/events.js';
import { refusalLine } from '../../policy/refusal.js';
import { intentCauses } from '../../policy/incidents.js';
import { ALERTED_CELLS } from '../../policy/incident-alerts.js';
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
    redirect: redirectOf(outcome),
    events: boundEvents(outcome.events),
    causes: outcome.causes,
    findings: outcome.findings,
    verdicts:
      verdicts === null
        ? null
        : { watched: verdicts.length, disallowed: verdicts.filter((v) => !v.allowed).length },
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

/**
 * Where robots.txt was answered from when the site's own URL redirected (a check refused
 * for its redirect says so in its refusal): the last URL asked and the hops to it.
 */
function redirectOf(outcome: CheckOutcome): { to: string; hops: number } | null {
  const { fetch } = outcome;
  // Too many redirects is its own status: there is no last answer to say where from.
  if (outcome.kind === 'refused' || fetch.redirects.length === 0) return null;
  if (fetch.error === 'too-many-redirects') return null;
  return { to: fetch.finalUrl, hops: fetch.redirects.length };
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
  return {
    state: evaluation.state,
    violationCount: evaluation.violationCount,
    violations: evaluation.violations.slice(0, ALERTED_CELLS),
    causes: intentCauses(evaluation),
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
