/**
 * Interpretation profiles. A profile decides how lines are read, which group an agent
 * obeys and how paths are compared.
 *
 * - `google`: Google's open-source reference parser (github.com/google/robotstxt),
 *   reproduced exactly, and Google's documentation of it (seeds 000/003).
 * - `rfc9309`: the Robots Exclusion Protocol as written in the draft that became
 *   RFC 9309 (seed 001), without Google's leniencies.
 * - `legacy`: the 1996 "v1.0" standard (seed 004): first matching record, first
 *   matching rule, prefix-only paths.
 */
export type Profile = 'google' | 'rfc9309' | 'legacy';

export const PROFILES: readonly Profile[] = ['google', 'rfc9309', 'legacy'];

export const DEFAULT_PROFILE: Profile = 'google';

export function isProfile(value: unknown): value is Profile {
  return typeof value === 'string' && (PROFILES as readonly string[]).includes(value);
}

/**
 * Google stops reading robots.txt after 500 KiB (seed 000, "File format"); so does
 * robowatch, and the draft (seed 001, "Limits") allows a limit of at least that.
 */
export const MAX_ROBOTS_BYTES = 512_000;

/**
 * The reference parser reads each line into a buffer of 2,083 × 8 bytes (a URL's
 * maximum length times eight) and keeps at most one byte less than that.
 */
export const MAX_LINE_BYTES = 2083 * 8 - 1;
