/**
 * A site's archived history, made from its Internet Archive captures (robowatch backfill)
 * the way live checks make its live history: consecutive captures that saw the same state
 * are one snapshot (the captures count as its checks), each new state gets its verdicts
 * and its causes against the state before, and Google's 30-day rule applies between
 * captures as between checks. Pure: the captures come in with their bodies, the states go
 * out to be stored.
 */
import { createHash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import { STALE_AFTER_MS } from '../../policy/access.js';
import type { CauseSide, LastGood } from '../../policy/changes/cause-model.js';
import { causesOfChange } from '../../policy/changes/causes.js';
import { fileCondition as fileConditionOf } from '../../policy/file-condition.js';
import type { BodyCut, FetchResult } from '../../policy/fetch-result.js';
import { computeVerdicts, ParseCache, siteAccess } from '../../policy/verdicts.js';
import type { ArchivedCapture, ArchivedState } from '../records-archive.js';

/** A cut whose dropped part the archive does not say (it keeps the capture whole). */
const ARCHIVE_CUT: BodyCut = { droppedBytes: 0, droppedLineBreaks: 0, complete: false };

/** The capture as a fetch of the site would have answered. */
function fetchOf(capture: ArchivedCapture): FetchResult {
  return {
    url: capture.originalUrl,
    finalUrl: capture.finalUrl,
    status: capture.status,
    error: capture.error,
    errorDetail: capture.errorDetail,
    redirects: capture.redirects,
    body: capture.body,
    cut: capture.body !== null && capture.truncated ? ARCHIVE_CUT : null,
    durationMs: 0,
  };
}

const ok = (status: number | null) => status !== null && status >= 200 && status <= 299;

/** The site's archived states from its captures, oldest first (they must come in time order). */
export function archiveChain(
  site: Pick<SiteConfig, 'profile' | 'watches' | 'agents'>,
  captures: readonly ArchivedCapture[],
): ArchivedState[] {
  const cache = new ParseCache();
  const states: ArchivedState[] = [];
  const keys: string[] = [];
  const sides: CauseSide[] = [];
  let unreachableSince: Date | null = null;
  // The last state that answered 2xx, and the last whose 2xx was a robots.txt file.
  let lastOk: number | null = null;
  let lastFile: number | null = null;
  for (const capture of captures) {
    const fetch = fetchOf(capture);
    const unreachable = siteAccess({ fetch, stale: false }, site.profile) === 'unreachable';
    unreachableSince = unreachable ? (unreachableSince ?? capture.capturedAt) : null;
    const stale =
      unreachableSince !== null &&
      capture.capturedAt.getTime() - unreachableSince.getTime() >= STALE_AFTER_MS;
    const sha256 =
      capture.body === null ? null : createHash('sha256').update(capture.body).digest('hex');
    const key = `${capture.status ?? ''}|${capture.error ?? ''}|${sha256 ?? ''}|${stale}`;
    const previous = states[states.length - 1];
    if (previous !== undefined && keys[keys.length - 1] === key) {
      previous.lastSeenAt = capture.capturedAt;
      previous.captures++;
      continue;
    }
    const before = sides[sides.length - 1];
    const lastGood: LastGood | null =
      fetch.body !== null
        ? { body: fetch.body, truncated: fetch.cut !== null, cut: fetch.cut }
        : (before?.lastGood ?? null);
    const verdicts = computeVerdicts(
      { fetch, body: fetch.body, lastGoodBody: lastGood?.body ?? null, stale },
      site.watches,
      site.agents,
      cache,
    );
    const after: CauseSide = { fetch, stale, lastGood, verdicts };
    const causes =
      before === undefined
        ? []
        : causesOfChange({
            profile: site.profile,
            agents: site.agents,
            before,
            after,
            since: incidentBefore(states, lastOk, lastFile),
          });
    const fileCondition =
      capture.body === null ? null : fileConditionOf(capture.body, fetch.cut !== null);
    const index = states.length;
    states.push({
      firstSeenAt: capture.capturedAt,
      lastSeenAt: capture.capturedAt,
      captures: 1,
      originalUrl: capture.originalUrl,
      status: capture.status,
      error: capture.error,
      errorDetail: capture.errorDetail,
      redirects: capture.redirects,
      finalUrl: capture.finalUrl,
      body: sha256 === null ? null : { sha256, bytes: capture.body! },
      cut: fetch.cut,
      stale,
      lastGood: sha256 !== null ? index : (previous?.lastGood ?? null),
      fileCondition,
      verdicts,
      causes,
    });
    keys.push(key);
    sides.push(after);
    if (ok(capture.status)) {
      lastOk = index;
      if (fileCondition === 'robots' || fileCondition === 'cut') lastFile = index;
    }
  }
  return states;
}

/**
 * When the trouble the last state is part of began (as store/sites.ts's incidentStartOf
 * answers for live states): the first state after the last 2xx, and the first 2xx after
 * the last 2xx that was a robots.txt file; null when there is no such state.
 */
function incidentBefore(
  states: readonly ArchivedState[],
  lastOk: number | null,
  lastFile: number | null,
): { access: Date | null; file: Date | null } {
  const last = states.length - 1;
  const access = lastOk === null || lastOk === last ? null : states[lastOk + 1]!.firstSeenAt;
  let file: Date | null = null;
  if (lastFile !== null)
    for (let i = lastFile + 1; i <= last; i++)
      if (ok(states[i]!.status)) {
        file = states[i]!.firstSeenAt;
        break;
      }
  return { access, file };
}
