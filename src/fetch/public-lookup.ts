/**
 * The SSRF guard's lookup: a host name is resolved, and only the addresses the guard
 * allows are handed to the connection, so that it is only ever opened to one of them (no
 * second lookup a rebinding DNS server could answer otherwise). Used by the robots.txt
 * fetcher and by the webhook deliveries the configuration file does not list.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { allowedAddresses } from './addresses.js';

export class BlockedAddressError extends Error {
  readonly code = 'ROBOWATCH_BLOCKED_ADDRESS';
}

/** The error for a refused address; an address from DNS is not repeated (it may be internal). */
export function blockedError(hostname: string, literal?: string): BlockedAddressError {
  return new BlockedAddressError(
    literal !== undefined && bare(hostname) === literal
      ? `${literal} is a private or reserved address`
      : `${hostname} resolves only to private or reserved addresses`,
  );
}

/**
 * A lookup that drops the addresses the guard refuses, so that the connection is only
 * ever opened to an allowed one; with none left it fails, naming no address.
 */
export function publicOnly(
  lookup: LookupFunction,
  allowed: (address: string) => boolean,
): LookupFunction {
  return ((hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
    lookup(hostname, { ...lookupOptions, all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const list = (Array.isArray(found) ? found : [{ address: found, family: 0 }]).filter((a) =>
        allowed(a.address),
      );
      if (list.length === 0) return callback(blockedError(hostname), '', 0);
      if (lookupOptions.all) return (callback as unknown as AllCallback)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }) as LookupFunction;
}
type LookupOptions = Parameters<typeof dnsLookup>[1] & { all?: boolean };
type LookupCallback = (error: Error | null, address: string, family: number) => void;
type AllCallback = (error: Error | null, addresses: LookupAddress[]) => void;

/** The system's lookup, keeping only public addresses (and loopback ones, with 'loopback'). */
export function guardedLookup(allowPrivate: false | 'loopback'): LookupFunction {
  return publicOnly(dnsLookup, allowedAddresses(allowPrivate));
}

/** A URL's hostname as a socket takes it: an IPv6 address without its brackets. */
export function bare(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

/**
 * Why a URL may not be reached: its host is a private address written out (a loopback one
 * is allowed with 'loopback'); else undefined.
 */
export function privateLiteral(
  url: URL,
  allowPrivate: false | 'loopback' = false,
): string | undefined {
  const host = bare(url.hostname);
  return isIP(host) !== 0 && !allowedAddresses(allowPrivate)(host)
    ? blockedError(url.hostname, host).message
    : undefined;
}
