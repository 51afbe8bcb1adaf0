import type { Profile } from '../robots/index.js';
import type { FetchErrorKind } from './fetch-result.js';

/**
 * What a fetch result means for crawling, under a profile (DESIGN.md: "access"):
 * `ok` the rules of the body apply; `unavailable` nothing is disallowed; `unreachable`
 * everything is.
 */
export type Access = 'ok' | 'unavailable' | 'unreachable';

/** How a profile reads one fetch outcome; `defer` means "keep the previous state" (1996). */
export type Classification = Access | 'defer';

/** The access-relevant part of a fetch result. */
export interface FetchOutcome {
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
}

/**
 * Classifies a fetch outcome under a profile.
 *
 * - google (seed 000, "Handling HTTP errors"): 2xx ok; more than five redirects is a 404;
 *   4xx but 429 unavailable; 429, 5xx and every network failure unreachable.
 * - rfc9309 (seed 001, "Access results"): 2xx ok; more than five redirects unavailable;
 *   400–499 (429 included) unavailable; 5xx and network failures unreachable; any other
 *   status unreachable ("For other undefined status codes…").
 * - legacy (seed 004, "Response codes"): 2xx ok; 401 and 403 "completely restricted"
 *   (unreachable: everything disallowed); other 4xx unavailable; 503, other 5xx and
 *   network failures defer to the previous state.
 */
export function classifyFetch(outcome: FetchOutcome, profile: Profile): Classification {
  const { status, error } = outcome;
  if (error === 'too-many-redirects') return 'unavailable';
  if (error !== null || status === null) return profile === 'legacy' ? 'defer' : 'unreachable';
  if (status >= 200 && status <= 299) return 'ok';
  if (status >= 400 && status <= 499) {
    if (profile === 'google' && status === 429) return 'unreachable';
    if (profile === 'legacy' && (status === 401 || status === 403)) return 'unreachable';
    return 'unavailable';
  }
  if (profile === 'legacy' && status >= 500 && status <= 599) return 'defer';
  return 'unreachable';
}

/** Google: after 30 days of continuous unreachability, the last good copy applies. */
export const STALE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;
