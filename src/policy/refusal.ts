/**
 * A check robowatch refused to make: its address guard does not fetch private or
 * reserved addresses unless the configuration allows them. What that means for a site
 * is nothing: it is said as robowatch not knowing, never as crawlers being blocked. Pure.
 */
import type { RefusedCause } from './changes/cause-model.js';
import type { FetchResult } from './fetch-result.js';

/** The cause an alert says for a refused fetch (`error: 'blocked'`). */
export function refusedCause(
  result: Pick<FetchResult, 'url' | 'finalUrl' | 'errorDetail' | 'redirects'>,
): RefusedCause {
  return {
    type: 'refused',
    url: result.finalUrl,
    redirected: result.redirects.length > 0,
    reason: result.errorDetail ?? 'a private or reserved address',
    pairs: [],
  };
}

/** A refusal in one line, for logs, the command line and the site's page. */
export function refusalLine(cause: Pick<RefusedCause, 'url' | 'redirected' | 'reason'>): string {
  return cause.redirected
    ? `robowatch could not check this site: its robots.txt redirects to a private address (${cause.reason}); fetch.allowPrivateAddresses allows it`
    : `robowatch could not check this site: it resolves to a private address (${cause.reason}); fetch.allowPrivateAddresses allows it`;
}
