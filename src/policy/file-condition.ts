/**
 * Whether a robots.txt body is a robots.txt file at all, as crawlers will read it: an
 * HTML page, UTF-16 text or binary data gives them no rules (the same effect as a 404),
 * and a file past 500 KiB is read only up to the limit. Pure.
 */
import { MAX_ROBOTS_BYTES, sniffContent } from '../robots/index.js';

/**
 * `robots`: a robots.txt file; `cut`: one past Google's 500 KiB limit, read up to it;
 * `html`, `utf16`, `binary`: not robots.txt at all.
 */
export type FileCondition = 'robots' | 'cut' | 'html' | 'utf16' | 'binary';

/** The condition of a body, `truncated` when the fetcher cut it at the limit. */
export function fileCondition(body: Uint8Array, truncated: boolean): FileCondition {
  const sniffed = sniffContent(body);
  if (sniffed !== null) return sniffed;
  return truncated || body.length > MAX_ROBOTS_BYTES ? 'cut' : 'robots';
}

/** Whether crawlers find rules in a file of this condition. */
export function isRobotsFile(condition: FileCondition): boolean {
  return condition === 'robots' || condition === 'cut';
}
