/**
 * Judgements against a site's intent as a check writes them, for tests that open and
 * resolve incidents through the store without fetching anything.
 */
import type { NewJudgement } from '../../src/monitor/records.js';
import type { IntentEvaluation } from '../../src/policy/intent.js';

/** When the first judgement is made; `judgement`'s minutes count from here. */
export const JUDGED_AT = new Date('2026-05-01T00:00:00Z');

/** Googlebot kept out of /pricing, which it is meant to crawl (line 2). */
export const blocked: IntentEvaluation = {
  state: 'not-as-intended',
  violations: [
    {
      url: 'https://s.example/pricing',
      agent: 'Googlebot',
      expected: 'allowed',
      cause: { type: 'rule', directive: 'disallow', pattern: '/pricing', line: 2 },
    },
  ],
  violationCount: 1,
  judged: 3,
  reason: null,
};

/** Every watched page × crawler pair as intended. */
export const fine: IntentEvaluation = {
  state: 'as-intended',
  violations: [],
  violationCount: 0,
  judged: 3,
  reason: null,
};

/** Site `siteId` judged `evaluation`, `minutes` after JUDGED_AT, with a one-hour flap window. */
export const judgement = (
  siteId: number,
  evaluation: IntentEvaluation,
  minutes = 0,
): NewJudgement => ({
  siteId,
  snapshotId: null,
  key: `k${siteId}`,
  evaluation,
  at: new Date(JUDGED_AT.getTime() + minutes * 60_000),
  flapWindowMs: 3_600_000,
});
