/**
 * A site judged against its intent after a check (or after its watches, crawlers or
 * intent changed): the state it is in, recorded with the incident it opens, changes or
 * resolves.
 */
import { hash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { fetchStatusOf } from '../../policy/changes/events.js';
import { DEFAULT_FLAP_WINDOW_MS } from '../../policy/incidents.js';
import { evaluateIntent } from '../../policy/intent.js';
import type { IntentEvaluation } from '../../policy/intent.js';
import type { FileCondition } from '../../policy/file-condition.js';
import type { WatchVerdict } from '../../policy/verdicts.js';
import type { FetchOutcome } from '../../policy/access.js';
import type { ChangeCause } from '../../policy/changes/cause-model.js';
import { causeHeadline } from '../../policy/wording/explain.js';
import type { JudgementRecorded } from '../records.js';
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

/** Judges one state of a site (its verdicts, fetch and file) and records the judgement. */
export async function judge(
  deps: Pick<CheckDeps, 'store' | 'now' | 'flapWindowMs'>,
  site: SiteConfig,
  siteId: number,
  state: {
    readonly snapshotId: number;
    readonly fetch: FetchOutcome;
    readonly stale: boolean;
    readonly fileCondition: FileCondition | null;
    readonly verdicts: readonly WatchVerdict[];
  },
  at: Date,
  /** What changed in robots.txt at this check (none when only the settings changed). */
  causes: readonly ChangeCause[] = [],
): Promise<Judged> {
  const evaluation = evaluateIntent(site.intent.rules, state.verdicts, {
    status: fetchStatusOf(state.fetch, site.profile, state.stale),
    fileCondition: state.fileCondition,
    refused: null,
  });
  const recorded = await deps.store.recordJudgement({
    siteId,
    snapshotId: state.snapshotId,
    key: judgedKey(site, state.snapshotId),
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
