/**
 * Where a site stands, as crawlers see it, for badges and summaries: its access under its
 * profile, except that a 200 whose body is not robots.txt (an HTML page) is not "ok" but
 * lets everything be crawled, and a file past 500 KiB is read only in part. Pure.
 */
import type { Profile } from '../robots/index.js';
import type { FetchOutcome } from './access.js';
import { siteAccess } from './verdicts.js';
import type { FileCondition } from './file-condition.js';
import type { SiteState } from './intent.js';
import { count } from './wording/words.js';

export type SiteCondition =
  | 'ok'
  | 'unavailable'
  | 'unreachable'
  | 'not-robots'
  | 'cut'
  /** Not checked yet. */
  | 'none'
  /** robowatch refuses to check it: its host is on a private or reserved address. */
  | 'refused';

/** A short label for a badge, and the sentence behind it. */
export const CONDITION_TEXT: Record<SiteCondition, { label: string; meaning: string }> = {
  ok: { label: 'ok', meaning: 'robots.txt is served, and its rules apply.' },
  unavailable: {
    label: 'all allowed',
    meaning: 'robots.txt is not there (a 4xx): every URL is crawlable.',
  },
  unreachable: {
    label: 'unreachable',
    meaning: 'robots.txt cannot be read (a 5xx or no answer): Google crawls nothing.',
  },
  'not-robots': {
    label: 'not robots.txt',
    meaning:
      'What is served is not robots.txt (an HTML page, UTF-16, binary data): crawlers find no rules in it, so every URL is crawlable.',
  },
  cut: {
    label: 'over 500 KiB',
    meaning: 'robots.txt is larger than 500 KiB: Google ignores the rest of it.',
  },
  none: { label: 'not checked', meaning: 'Not checked yet.' },
  refused: {
    label: 'cannot check',
    meaning:
      'robowatch cannot check it: its host resolves to a private or reserved address, which robowatch does not fetch (fetch.allowPrivateAddresses allows it). What crawlers may do now is not known.',
  },
};

/** A site's condition from its current state; `none` before its first check. */
export function siteCondition(
  current:
    | (FetchOutcome & {
        readonly stale: boolean;
        readonly fileCondition: FileCondition | null;
      })
    | null,
  profile: Profile,
): SiteCondition {
  if (current === null) return 'none';
  const access = siteAccess({ fetch: current, stale: current.stale }, profile);
  if (access !== 'ok') return access;
  const condition = current.fileCondition;
  if (condition === 'html' || condition === 'utf16' || condition === 'binary') return 'not-robots';
  return condition === 'cut' ? 'cut' : 'ok';
}

/** A site against its owner's intent as the overview judged it last; null: not yet. */
export interface IntentStanding {
  readonly state: SiteState;
  readonly violationCount: number;
  readonly reason: string | null;
  /** What crawlers do that its owner does not intend ("/pricing is blocked for Googlebot"). */
  readonly lead?: string | null;
}

/** Where a site stands against the intent, the most urgent first, in a word or three. */
export const STANDINGS = [
  'not judged',
  'not as intended',
  'not checked yet',
  'as intended',
] as const;
export type Standing = (typeof STANDINGS)[number];

export function standingOf(intent: Pick<IntentStanding, 'state'> | null): Standing {
  if (intent === null) return 'not checked yet';
  if (intent.state === 'as-intended') return 'as intended';
  return intent.state === 'cannot-check' ? 'not judged' : 'not as intended';
}

/** The standing in a word or three (a badge, a column), and the sentence behind it. */
export function intentText(intent: IntentStanding | null): { label: string; meaning: string } {
  const label = standingOf(intent);
  if (intent === null) return { label, meaning: 'Not checked yet.' };
  if (intent.state === 'as-intended')
    return {
      label,
      meaning: 'Every watched page is open or closed to crawlers as its owner intends.',
    };
  if (intent.state === 'cannot-check')
    // robots.txt as a whole decides (down, not robots.txt, cut), or robowatch may not fetch it.
    return {
      label,
      meaning: intent.reason ?? 'robowatch cannot tell what crawlers may fetch now.',
    };
  return {
    // As the incident pages and alerts count them (differingPairs), not as the matrix's cells.
    label: `${label}: ${count(intent.violationCount, 'page × crawler pair')}`,
    meaning:
      intent.lead === undefined || intent.lead === null
        ? 'A crawler is kept from a page meant to be crawled, or let into one meant to be kept out.'
        : `Against its owner’s intent, ${intent.lead}.`,
  };
}
