/**
 * The words of status, access and file-condition causes: what crawlers do now that the
 * answer changed. Pure.
 */
import type { Profile } from '../../robots/index.js';
import { classifyFetch } from '../access.js';
import type { FileCause, StatusCause } from '../changes/cause-model.js';
import type { FetchStatus } from '../changes/events.js';
import type { FileCondition } from '../file-condition.js';
import type { RedirectSummary } from '../fetch-result.js';
import { count, formatDuration } from './words.js';

/** Who reads robots.txt the way a profile does, as a subject. */
export function readers(profile: Profile): string {
  switch (profile) {
    case 'google':
      return 'Google';
    case 'rfc9309':
      return 'Crawlers following RFC 9309';
    case 'legacy':
      return 'Crawlers following the 1996 standard';
  }
}

const NETWORK: Record<string, string> = {
  dns: 'its host name does not resolve (DNS)',
  refused: 'the connection is refused',
  reset: 'the connection is reset',
  // No answer, or one that did not end in time (a body trickled out): either way no file.
  timeout: 'no complete answer within the time limit',
  tls: 'the HTTPS handshake fails',
  blocked: 'its address is private, and robowatch may not fetch it',
  'invalid-response': 'the answer is not valid HTTP',
  network: 'a network error',
};

/** "answers 503", "redirects more than 5 times", "cannot be fetched: the connection is reset". */
export function answers(status: FetchStatus): string {
  if (status.error === 'too-many-redirects') return 'redirects more than 5 times';
  if (status.error !== undefined)
    return `cannot be fetched: ${NETWORK[status.error] ?? status.error}`;
  return `answers ${status.status ?? '?'}`;
}

/** NETWORK in the past, for a spell that is over. */
const NETWORK_PAST: Record<string, string> = {
  ...NETWORK,
  dns: 'its host name did not resolve (DNS)',
  refused: 'the connection was refused',
  reset: 'the connection was reset',
  tls: 'the HTTPS handshake failed',
  'invalid-response': 'the answer was not valid HTTP',
};

/**
 * The same in the past, for a spell that is over or summed up: what robots.txt did
 * ("answered 503", "redirected more than 5 times", "could not be fetched") and, for a
 * network failure, why ("the connection was reset"), said after the spell's times.
 */
export function answered(status: FetchStatus): {
  readonly did: string;
  readonly why: string | null;
} {
  if (status.error === 'too-many-redirects')
    return { did: 'redirected more than 5 times', why: null };
  if (status.error !== undefined)
    return { did: 'could not be fetched', why: NETWORK_PAST[status.error] ?? status.error };
  return { did: `answered ${status.status ?? '?'}`, why: null };
}

/**
 * Where an answer came from when robots.txt redirected, after its status: " from
 * https://www.example.com/robots.txt (redirected)"; empty when the site answered itself.
 * Crawlers follow up to five redirects and read the file they end on as the site's.
 */
export function fromRedirect(redirect: RedirectSummary | null): string {
  if (redirect === null) return '';
  return ` from ${redirect.to} (${redirect.hops === 1 ? 'redirected' : `${redirect.hops} redirects`})`;
}

/** "503", "DNS failure", "redirect loop": a status in a word or two. */
export function statusWord(status: FetchStatus): string {
  if (status.error === 'too-many-redirects') return 'redirect loop';
  if (status.error === 'dns') return 'DNS failure';
  if (status.error !== undefined) return `${status.error} error`;
  return String(status.status ?? '?');
}

/** What a site whose robots.txt is in this state means for crawlers, in a sentence. */
export function crawlEffect(status: FetchStatus, profile: Profile, disallowRules: number): string {
  const classification = classifyFetch(
    { status: status.status ?? null, error: status.error ?? null },
    profile,
  );
  if (status.access === 'ok') return 'Its rules apply.';
  if (status.access === 'unavailable') {
    const like = status.error === 'too-many-redirects' ? 'as with a 404, every' : 'Every';
    const rules =
      disallowRules === 0
        ? ''
        : `; the file's ${count(disallowRules, 'Disallow rule')} no longer ${disallowRules === 1 ? 'applies' : 'apply'}`;
    return `${like === 'Every' ? '' : `${readers(profile)} treats a redirect loop like a 404: `}${like} URL is crawlable${rules}.`;
  }
  if (classification === 'defer')
    return `${readers(profile)} keep using the last file they read until robots.txt answers again.`;
  if (profile === 'google')
    return 'Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again (after 30 days it uses its last good copy).';
  return `${readers(profile)} treat the whole site as disallowed until robots.txt answers again.`;
}

/** "answered 200", "could not be fetched (DNS failure)", "redirected in a loop". */
function wasStatus(status: FetchStatus): string {
  if (status.error === 'too-many-redirects') return 'redirected in a loop before';
  if (status.error !== undefined) return `could not be fetched before (${statusWord(status)})`;
  return `answered ${status.status ?? '?'} before`;
}

export function statusTexts(cause: StatusCause, at: Date): { title: string; consequence: string } {
  const { before, after } = cause;
  if (!cause.effectChanged) {
    const same =
      after.access === 'unavailable'
        ? 'every URL stays crawlable'
        : after.access === 'unreachable'
          ? 'the whole site stays disallowed'
          : 'its rules still apply';
    return {
      title: `robots.txt ${answers(after)} instead of ${statusWord(before)}`,
      consequence: `Same effect for crawlers: ${same}.`,
    };
  }
  if (after.access === 'ok') {
    const title =
      cause.incidentSince === null
        ? `robots.txt ${answers(after)} (it ${wasStatus(before)})`
        : `robots.txt ${answers(after)} again after ${formatDuration(at.getTime() - Date.parse(cause.incidentSince))} of ${statusWord(before)}`;
    const consequence =
      cause.file !== null && cause.file !== 'robots' && cause.file !== 'cut'
        ? `But what it serves is ${CONDITION[cause.file]}, not robots.txt (see below).`
        : cause.incidentSince === null
          ? 'Its rules apply.'
          : 'Its rules apply again.';
    return { title, consequence };
  }
  return {
    title: `robots.txt ${answers(after)} (it ${wasStatus(before)})`,
    consequence: crawlEffect(after, cause.profile, cause.disallowRules),
  };
}

export const CONDITION: Record<FileCondition, string> = {
  robots: 'a robots.txt file',
  cut: 'larger than 500 KiB',
  html: 'an HTML page',
  utf16: 'UTF-16 text',
  binary: 'binary data (not text)',
};

export function fileTexts(cause: FileCause, at: Date): { title: string; consequence: string } {
  const { before, after } = cause;
  const lost =
    cause.disallowRules === 0
      ? ''
      : `; the previous file's ${count(cause.disallowRules, 'Disallow rule')} no longer ${cause.disallowRules === 1 ? 'applies' : 'apply'}`;
  if (after === 'html' || after === 'utf16' || after === 'binary') {
    const why =
      after === 'html'
        ? 'Crawlers find no rules in an HTML page'
        : after === 'utf16'
          ? 'Crawlers read robots.txt as UTF-8 and find no rules in UTF-16 text'
          : 'Crawlers find no rules in binary data';
    return {
      title: `robots.txt is ${before === null ? '' : 'now '}${CONDITION[after]} (served with 200)`,
      consequence: `${why}, so every URL is crawlable, as with a 404${lost}.`,
    };
  }
  if (after === 'cut') {
    const cut = cause.cut;
    const lines =
      cut === null
        ? 'the rest of the file'
        : `${cut.complete ? '' : 'at least '}${count(cut.droppedLineBreaks, 'line')} (${count(cut.droppedBytes, 'byte')})`;
    return {
      title: `robots.txt is ${before === null ? '' : 'now '}larger than 500 KiB`,
      consequence: `Google reads only the first 500 KiB: ${lines} past the limit ${cut?.droppedLineBreaks === 1 ? 'is' : 'are'} ignored, and any rules there do not apply.`,
    };
  }
  const lasted =
    cause.since === null ? '' : ` for ${formatDuration(at.getTime() - Date.parse(cause.since))}`;
  if (before === 'cut')
    return {
      title: 'robots.txt is under 500 KiB again',
      consequence: 'Google reads all of it again.',
    };
  return {
    title: `robots.txt is a robots.txt file again (it was ${before === null ? 'not' : CONDITION[before]}${lasted})`,
    consequence: `Its ${count(cause.rules, 'rule')} ${cause.rules === 1 ? 'applies' : 'apply'} again.`,
  };
}
