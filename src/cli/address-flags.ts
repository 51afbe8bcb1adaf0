import type { FetchConfig } from '../config/config.js';

/** The flags of `eval --robots URL` and `gate` that widen the fetcher's address guard. */
export interface AddressFlags {
  allowPrivateAddresses?: boolean;
  allowLoopback?: boolean;
}

export const ALLOW_LOOPBACK_HELP =
  "fetch from this machine's loopback addresses only (a site served locally), never from a private network or the cloud metadata address";

/**
 * What a fetch may reach under these flags: `--allow-private-addresses` any address,
 * `--allow-loopback` public ones and this machine's. Never narrower than the
 * configuration's own `fetch.allowPrivateAddresses`.
 */
export function addressesAllowed(
  flags: AddressFlags,
  configured: FetchConfig['allowPrivateAddresses'] = false,
): FetchConfig['allowPrivateAddresses'] {
  if (flags.allowPrivateAddresses === true || configured === true) return true;
  if (flags.allowLoopback === true || configured === 'loopback') return 'loopback';
  return false;
}
