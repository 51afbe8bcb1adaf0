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
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: its IPv4 ends are obfuscated; no public site needs it
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries, in whichever way it is written: mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96, which Node prints
 * in hex: 64:ff9b::a9fe:a9fe is 169.254.169.254) and 6to4 (2002:AABB:CCDD::).
 */
function embeddedIPv4(bytes: Uint8Array): string | null {
  const zero = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const v4 = (at: number) => Array.from(bytes.subarray(at, at + 4)).join('.');
  const word = (i: number) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!;
  if (zero(0, 10) && word(5) === 0xffff) return v4(12);
  if (zero(0, 8) && word(4) === 0xffff && word(5) === 0) return v4(12);
  if (word(0) === 0x64 && word(1) === 0xff9b && zero(4, 12)) return v4(12);
  if (word(0) === 0x2002) return v4(2);
  return null;
}

/** The 16 bytes of an IPv6 address (zone index dropped), or null if it is not one. */
function ipv6Bytes(address: string): Uint8Array | null {
  const text = address.replace(/%.*$/, '');
  if (!isIPv6(text)) return null;
  let words: number[];
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(parseInt(piece, 16));
    }
    return out;
  };
  const first = parse(head);
  if (tail === undefined) words = first;
  else {
    const last = parse(tail);
    words = [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
  }
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

/** This machine's IPv4 loopback addresses (IPv6 has one: ::1). */
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');

/**
 * Whether an IP address is this machine's: 127.0.0.0/8, ::1, or 127.x.y.z mapped into IPv6
 * (::ffff:127.0.0.1, as a dual-stack socket reports it). Not 6to4 or NAT64 forms of 127.x:
 * those are routed elsewhere.
 */
export function isLoopbackAddress(address: string): boolean {
  if (isIPv4(address)) return loopback.check(address, 'ipv4');
  const bytes = ipv6Bytes(address);
  if (bytes === null) return false;
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return bytes[12] === 127;
  return bytes.subarray(0, 15).every((b) => b === 0) && bytes[15] === 1;
}

/**
 * The addresses a fetch may reach under fetch.allowPrivateAddresses: public ones (false),
 * public ones and this machine's loopback ('loopback', the demo's and tests' setting: never
 * a private network or the cloud metadata address), or any (true).
 */
export function allowedAddresses(allowPrivate: boolean | 'loopback'): (address: string) => boolean {
  if (allowPrivate === true) return () => true;
  if (allowPrivate === 'loopback')
    return (address) => !isPrivateAddress(address) || isLoopbackAddress(address);
  return (address) => !isPrivateAddress(address);
}

/** Whether an IP address is private, loopback, link-local, metadata or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  if (isIPv4(address)) return blocked.check(address, 'ipv4');
  const bytes = ipv6Bytes(address);
  if (bytes === null) return true; // not an IP address at all: refuse
  // An IPv4 address seen through IPv6 is judged as IPv4.
  const v4 = embeddedIPv4(bytes);
  if (v4 !== null) return isPrivateAddress(v4);
  const canonical = Array.from({ length: 8 }, (_, i) =>
    ((bytes[i * 2]! << 8) | bytes[i * 2 + 1]!).toString(16),
  ).join(':');
  return blocked.check(canonical, 'ipv6');
}
