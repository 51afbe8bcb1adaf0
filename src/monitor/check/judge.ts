/**
 * A site judged against its intent after a check (or after its watches, crawlers or
 * intent changed): the state it is in, recorded with the incident it opens, changes or
 * resolves.
 */
import { hash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { fetchStatusOf } from '../../policy/changes/events.js';
import {
  DEFAULT_FLAP_WINDOW_MS,
  incidentSiteState,
  incidentStep,
  intentCauses,
  intentReport,
  stateSince,
} from '../../policy/incidents.js';
import type { IncidentStep } from '../../policy/incidents.js';
import { hearsOfIncidents } from '../../policy/incident-alerts.js';
import { evaluateIntent } from '../../policy/intent.js';
import type { IntentEvaluation } from '../../policy/intent.js';
import type { FileCondition } from '../../policy/file-condition.js';
import type { WatchVerdict } from '../../policy/verdicts.js';
import type { FetchOutcome } from '../../policy/access.js';
import type { ChangeCause } from '../../policy/changes/cause-model.js';
import { causeHeadline } from '../../policy/wording/explain.js';
import type { JudgementBasis, JudgementRecorded, StateJudgement } from '../records.js';
import type { CheckDeps } from '../ports.js';
import { verdictsKey } from './record-state.js';

/** What one judgement found and did. */
export interface Judged {
  readonly evaluation: IntentEvaluation;
  readonly recorded: JudgementRecorded;
}

const intentKeys = new WeakMap<SiteConfig, string>();
/** The sites sharing the top-level intent share its rules: written out once. */
const rulesJson = new WeakMap<SiteConfig['intent']['rules'], string>();

/** Identifies what a judgement depends on besides the file: watches, crawlers, intent. */
export function intentKey(site: SiteConfig): string {
  let key = intentKeys.get(site);
  if (key === undefined) {
    let rules = rulesJson.get(site.intent.rules);
    if (rules === undefined) {
      rules = JSON.stringify(site.intent.rules);
      rulesJson.set(site.intent.rules, rules);
    }
    key = hash('sha1', verdictsKey(site) + rules, 'hex');
    intentKeys.set(site, key);
  }
  return key;
}

/**
 * What a state's judgement is recorded under: what it depends on besides the file, and
 * the state itself. A check that finds another (a process died between recording a new
 * state and judging it) judges the state again, and its incident's alert is not lost.
 */
export function judgedKey(site: SiteConfig, snapshotId: number): string {
  return `${intentKey(site)}:${snapshotId}`;
}

/** A state of a site as it is judged: its verdicts, fetch and file. */
interface JudgedState {
  readonly fetch: FetchOutcome;
  readonly stale: boolean;
  readonly fileCondition: FileCondition | null;
  readonly verdicts: readonly WatchVerdict[];
}

/** A state of a site against its intent. */
export function evaluateState(site: SiteConfig, state: JudgedState): IntentEvaluation {
  return evaluateIntent(site.intent.rules, state.verdicts, {
    status: fetchStatusOf(state.fetch, site.profile, state.stale),
    fileCondition: state.fileCondition,
    refused: null,
  });
}

/**
 * A new state's judgement decided from what was read with the state before it, to be
 * written in the state's own statement: when its transition makes no alert (nobody hears
 * of the incident that opens or gets worse, none resolves or reopens). Null: the state is
 * judged after it is recorded (`judge`), as when `basis` was not read.
 */
export function judgementWithState(
  deps: Pick<CheckDeps, 'flapWindowMs'>,
  site: SiteConfig,
  basis: JudgementBasis | null,
  evaluation: IntentEvaluation,
  at: Date,
): { readonly write: StateJudgement; readonly step: IncidentStep } | null {
  if (basis === null) return null;
  const step = incidentStep(
    basis.latest,
    evaluation,
    at,
    deps.flapWindowMs ?? DEFAULT_FLAP_WINDOW_MS,
  );
  const heard = hearsOfIncidents(site.alerts);
  if (step.kind === 'resolve' || step.kind === 'reopen') return null;
  if (heard && (step.kind === 'open' || (step.kind === 'update' && step.worse))) return null;
  const writes = step.kind !== 'none';
  const write: StateJudgement = {
    version: basis.version,
    state: evaluation.state,
    since: stateSince(basis, evaluation, at),
    keyPrefix: intentKey(site),
    report: intentReport(evaluation),
    at,
    step: step.kind === 'update' ? { kind: 'update', id: step.id } : { kind: step.kind },
    siteState: writes ? incidentSiteState(evaluation) : null,
    causes: writes ? intentCauses(evaluation) : null,
  };
  return { write, step };
}

/** What a judgement written with its state did, as `judge` reports it. */
export function judgedWithState(
  evaluation: IntentEvaluation,
  step: IncidentStep,
  openedIncidentId: number | null,
): Judged {
  const recorded: JudgementRecorded =
    step.kind === 'open'
      ? { step: 'open', incidentId: openedIncidentId, worse: true }
      : step.kind === 'update'
        ? { step: 'update', incidentId: step.id, worse: step.worse }
        : { step: 'none', incidentId: null, worse: false };
  return { evaluation, recorded };
}

/** Records the judgement of one state of a site: its evaluation (evaluateState). */
export async function judge(
  deps: Pick<CheckDeps, 'store' | 'now' | 'flapWindowMs'>,
  site: SiteConfig,
  siteId: number,
  snapshotId: number,
  evaluation: IntentEvaluation,
  at: Date,
  /** What changed in robots.txt at this check (none when only the settings changed). */
  causes: readonly ChangeCause[] = [],
): Promise<Judged> {
  const recorded = await deps.store.recordJudgement({
    siteId,
    snapshotId,
    key: judgedKey(site, snapshotId),
    evaluation,
    at,
    flapWindowMs: deps.flapWindowMs ?? DEFAULT_FLAP_WINDOW_MS,
    alerts: alertsOf(site, causes, at),
  });
  return { evaluation, recorded };
}

/** Who hears of the site's incidents, and the changes of the check in a few words. */
function alertsOf(site: SiteConfig, causes: readonly ChangeCause[], at: Date) {
  const agents = site.agents.map((a) => a.token);
  return {
    site: { origin: site.origin, name: site.name },
    targets: site.alerts,
    changes: causes.slice(0, CHANGES_SAID).map((c) => causeHeadline(c, { agents, at })),
  };
}

/** Changes of a check an incident alert names (the rest are on the site's page). */
const CHANGES_SAID = 5;

/** A site robowatch refused to check: it cannot be judged (and is judged again once checked). */
export async function judgeRefused(
  deps: Pick<CheckDeps, 'store' | 'flapWindowMs'>,
  site: SiteConfig,
  siteId: number,
  reason: string,
  at: Date,
): Promise<Judged> {
  const evaluation = evaluateIntent([], [], {
    status: { access: 'ok' },
    fileCondition: null,
    refused: reason,
  });
  const recorded = await deps.store.recordJudgement({
    siteId,
    snapshotId: null,
    key: null,
    evaluation,
    at,
    flapWindowMs: deps.flapWindowMs ?? DEFAULT_FLAP_WINDOW_MS,
    alerts: alertsOf(site, [], at),
  });
  return { evaluation, recorded };
}
