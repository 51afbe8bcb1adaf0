/**
 * Traffic stays on loopback: in the tests' processes (Vitest's workers, and the commands
 * and daemons they start, through NODE_OPTIONS), a name other than localhost resolves to
 * nothing at once, as it would here anyway, without a query leaving the machine for the
 * resolver. Sites named https://shop.example or *.example.invalid in a test's
 * configuration were looked up on every check (448 queries in a run of the suite). Addresses
 * (127.0.0.1, ::1) are never looked up.
 */
import dns from 'node:dns';
import { isIP } from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import process from 'node:process';

const GUARDED = Symbol.for('robowatch.loopbackDns');

if (dns.lookup[GUARDED] !== true) {
  const original = dns.lookup;
  const loopback = (hostname) =>
    typeof hostname !== 'string' ||
    isIP(hostname) !== 0 ||
    hostname.toLowerCase() === 'localhost' ||
    hostname.toLowerCase() === 'localhost.';
  const notFound = (hostname) =>
    Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: 'ENOTFOUND',
      errno: -3008,
      syscall: 'getaddrinfo',
      hostname,
    });
  const lookup = function (hostname, options, callback) {
    if (loopback(hostname)) return original.call(this, hostname, options, callback);
    const done = typeof options === 'function' ? options : callback;
    process.nextTick(done, notFound(hostname));
    return {};
  };
  lookup[GUARDED] = true;
  const promised = dns.promises.lookup;
  dns.lookup = lookup;
  dns.promises.lookup = (hostname, options) =>
    loopback(hostname) ? promised(hostname, options) : Promise.reject(notFound(hostname));
  syncBuiltinESMExports();
}
