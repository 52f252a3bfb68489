/**
 * What kind of address an IP is, for the egress guard: the public internet,
 * or one of the ranges a tool must not reach unless an operator lists it
 * (loopback, link-local, private networks, cloud metadata endpoints).
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address
 * they carry, so `::ffff:127.0.0.1` is loopback, not public.
 * @module
 */
import { BlockList, isIP } from 'node:net';

/** Address kinds, from most to least dangerous to reach. */
export const ADDRESS_KINDS = ['metadata', 'loopback', 'link-local', 'private', 'unspecified', 'reserved', 'public'] as const;
export type AddressKind = (typeof ADDRESS_KINDS)[number];

/**
 * Cloud instance-metadata endpoints: AWS/GCP/Azure/OpenStack
 * (169.254.169.254), AWS ECS task metadata (169.254.170.2), Alibaba
 * (100.100.100.200), AWS IPv6 (fd00:ec2::254).
 */
export const METADATA_ADDRESSES: readonly string[] = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'];

/** Host names that resolve to a metadata endpoint inside a cloud. */
export const METADATA_HOSTS: readonly string[] = ['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'];

type Range = [network: string, prefix: number, kind: Exclude<AddressKind, 'public' | 'metadata'>];

const V4_RANGES: Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT: another operator's private network
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'reserved'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RANGES: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'private'], // deprecated site-local
  ['ff00::', 8, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['100::', 64, 'reserved'],
  ['2001::', 32, 'reserved'], // Teredo hides the real IPv4 address
  ['::', 96, 'reserved'], // IPv4-compatible, deprecated
  // IPv4 behind a translator, where the IPv4 address cannot be read back for sure: SIIT's IPv4-translated
  // addresses, and the local-use NAT64 prefix (RFC 8215), whose layout the network's operator picks
  ['::ffff:0:0:0', 96, 'reserved'],
  ['64:ff9b:1::', 48, 'reserved'],
];

const lists = new Map<AddressKind, BlockList>();
for (const [network, prefix, kind] of [...V4_RANGES, ...V6_RANGES]) {
  let list = lists.get(kind);
  if (!list) lists.set(kind, (list = new BlockList()));
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
}

/** Strip the brackets a URL puts around an IPv6 host. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The 16 bytes of an IPv6 address (which `isIP` already accepted). */
function v6Bytes(address: string): number[] {
  let text = address.split('%')[0] as string; // zone id
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -(dotted[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | undefined {
  const b = v6Bytes(address);
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.');
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return undefined;
}

/**
 * The kind of an IP address, or undefined when `address` is not an IP.
 * @example addressKind('10.1.2.3') // 'private'
 * @example addressKind('::ffff:169.254.169.254') // 'metadata'
 */
export function addressKind(address: string): AddressKind | undefined {
  const ip = unbracket(address);
  const family = isIP(ip);
  if (family === 0) return undefined;
  if (family === 6) {
    const v4 = embeddedIPv4(ip);
    if (v4 !== undefined) return addressKind(v4);
  }
  if (METADATA_ADDRESSES.some((m) => sameAddress(m, ip))) return 'metadata';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const kind of ADDRESS_KINDS) if (lists.get(kind)?.check(ip, type)) return kind;
  return 'public';
}

/** True when two IP texts name the same address (`::1` and `0:0::1`). */
export function sameAddress(a: string, b: string): boolean {
  const fa = isIP(a);
  if (fa === 0 || fa !== isIP(b)) return false;
  const list = new BlockList();
  list.addAddress(a, fa === 4 ? 'ipv4' : 'ipv6');
  return list.check(b, fa === 4 ? 'ipv4' : 'ipv6');
}
