/** Which IP addresses are public: private, loopback, link-local and reserved ranges are not. */
import { BlockList, isIP } from 'node:net';

// Two lists: node's BlockList also checks an IPv4 address against IPv6 rules in its mapped form
// (::ffff:a.b.c.d), so one list holding ::ffff:0:0/96 would refuse every IPv4 address.
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // unspecified, loopback and the deprecated IPv4-compatible addresses (::a.b.c.d)
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  // local-use NAT64: translates to addresses of the local network
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  // 6to4 embeds any IPv4 address, private ones included
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  // site-local (deprecated, still routed inside some networks)
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return address.startsWith('127.');
  if (family === 6) return address === '::1' || /^::ffff:127\./i.test(address);
  return false;
}

/** The IPv4 address of an IPv4-mapped IPv6 address, written either way (::ffff:1.2.3.4 or ::ffff:102:304). */
function mappedIPv4(address: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted?.[1]) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex?.[1] || !hex[2]) return null;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !NOT_PUBLIC_V4.check(address, 'ipv4');
  const mapped = mappedIPv4(address);
  if (mapped) return isPublicAddress(mapped);
  return !NOT_PUBLIC_V6.check(address, 'ipv6');
}
