/** Which addresses the SSRF guard refuses, however an IPv4 address hides in IPv6. */
import { describe, expect, it } from 'vitest';
import { allowedAddresses, isPrivateAddress } from '../../../src/fetch/addresses.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '169.254.169.254',
    '::1',
    '::',
    'fe80::1%eth0',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1', // the same, as Node prints it
    '::ffff:0:a00:1', // IPv4-translated 10.0.0.1
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254, as Node prints it
    '64:ff9b::169.254.169.254',
    '64:ff9b:1::808:808', // local-use NAT64
    '2002:7f00:1::', // 6to4 of 127.0.0.1
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '::127.0.0.1', // IPv4-compatible (deprecated)
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2002:808:808::1', // 6to4 of 8.8.8.8
  ])('lets %s through', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe("allowedAddresses: fetch.allowPrivateAddresses' three settings", () => {
  const loopbackOnly = allowedAddresses('loopback');

  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '8.8.8.8'])(
    "'loopback' lets %s through: this machine's addresses and public ones",
    (address) => {
      expect(loopbackOnly(address)).toBe(true);
    },
  );

  it.each([
    '10.1.2.3',
    '169.254.169.254', // the cloud metadata address
    '192.168.1.1',
    'fd00::1',
    'fe80::1',
    '::',
    '0.0.0.0',
    '64:ff9b::7f00:1', // NAT64 of 127.0.0.1: routed through a gateway, not this machine
    '2002:7f00:1::', // 6to4 of 127.0.0.1: likewise
    '::127.0.0.1', // IPv4-compatible (deprecated)
    '::2',
    'not an address',
  ])("'loopback' refuses %s: a private network is still out of reach", (address) => {
    expect(loopbackOnly(address)).toBe(false);
  });

  it('false refuses loopback and private addresses, true lets every one through', () => {
    const addresses = ['127.0.0.1', '::1', '10.1.2.3', '169.254.169.254'];
    expect(addresses.map(allowedAddresses(false))).toEqual([false, false, false, false]);
    expect(addresses.map(allowedAddresses(true))).toEqual([true, true, true, true]);
    expect(['8.8.8.8'].map(allowedAddresses(false))).toEqual([true]);
  });
});
