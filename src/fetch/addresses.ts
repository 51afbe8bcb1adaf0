import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Addresses a fetch must not reach unless the configuration allows private addresses:
 * loopback, private networks, carrier-grade NAT, link-local (including the cloud
 * metadata address 169.254.169.254), multicast, reserved and unspecified ranges.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address is private, loopback, link-local, metadata or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  // An IPv4 address seen through IPv6 (::ffff:a.b.c.d, and NAT64 64:ff9b::a.b.c.d) is judged as IPv4.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (embedded) return isPrivateAddress(embedded[1]!);
  if (isIPv4(address)) return blocked.check(address, 'ipv4');
  if (isIPv6(address)) return blocked.check(address, 'ipv6');
  return true; // not an IP address at all: refuse
}
