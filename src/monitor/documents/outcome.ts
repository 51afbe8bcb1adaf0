/**
 * A check's outcome as a document (its schema, `CheckDocument`, is in sites.ts): built
 * without zod, so that `robowatch check` prints its outcomes without loading the API's
 * schemas.
 */
import { boundEvents } from '../../policy/changes/events.js';
import { refusalLine } from '../../policy/refusal.js';
import type { CheckOutcome } from '../check/site.js';

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
  };
}
