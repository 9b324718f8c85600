import { BlockList, isIP } from 'node:net';

/**
 * Address classification for the SSRF guard (RED-2 (1)): the fetcher may only connect to public
 * unicast addresses. Everything special-purpose in the IANA registries is refused — loopback,
 * private, link-local (incl. the cloud metadata address 169.254.169.254), CGNAT, multicast,
 * broadcast, reserved, benchmarking and documentation ranges. IPv6 is handled as an allow-list
 * (only global unicast 2000::/3 can be public) so that future or exotic ranges fail closed; IPv6
 * forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are judged by that IPv4 address.
 */

export type AddressClass =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'benchmarking'
  | 'documentation'
  | 'unique-local'
  | 'not-global-unicast';

/** IPv4 special-purpose ranges (RFC 6890 and successors), first match wins: order specific → wide. */
export const IPV4_NON_PUBLIC_RANGES: ReadonlyArray<readonly [network: string, prefix: number, AddressClass]> =
  [
    ['0.0.0.0', 32, 'unspecified'],
    ['0.0.0.0', 8, 'reserved'], // "this network"
    ['10.0.0.0', 8, 'private'],
    ['100.64.0.0', 10, 'cgnat'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local'], // includes the metadata service 169.254.169.254
    ['172.16.0.0', 12, 'private'],
    ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
    ['192.0.2.0', 24, 'documentation'], // TEST-NET-1
    ['192.88.99.0', 24, 'reserved'], // deprecated 6to4 relay anycast
    ['192.168.0.0', 16, 'private'],
    ['198.18.0.0', 15, 'benchmarking'],
    ['198.51.100.0', 24, 'documentation'], // TEST-NET-2
    ['203.0.113.0', 24, 'documentation'], // TEST-NET-3
    ['224.0.0.0', 4, 'multicast'],
    ['255.255.255.255', 32, 'broadcast'],
    ['240.0.0.0', 4, 'reserved'],
  ];

/** IPv6 ranges that are refused even though they lie inside global unicast 2000::/3. */
export const IPV6_NON_PUBLIC_RANGES: ReadonlyArray<readonly [network: string, prefix: number, AddressClass]> =
  [
    ['2001:db8::', 32, 'documentation'],
    ['3fff::', 20, 'documentation'], // RFC 9637
    ['2001:2::', 48, 'benchmarking'],
    ['2001::', 23, 'reserved'], // IETF protocol assignments (ORCHID, AMT, …); Teredo is judged before
  ];

/** IPv6 ranges outside 2000::/3 with a name, for readable refusals. All of them are refused. */
const IPV6_NAMED_OUTSIDE_GLOBAL: ReadonlyArray<readonly [network: string, prefix: number, AddressClass]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
];

function blockListOf(
  ranges: ReadonlyArray<readonly [string, number, AddressClass]>,
  family: 'ipv4' | 'ipv6',
): Array<[BlockList, AddressClass]> {
  return ranges.map(([network, prefix, cls]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return [list, cls];
  });
}

const V4_RULES = blockListOf(IPV4_NON_PUBLIC_RANGES, 'ipv4');
const V6_RULES = blockListOf(IPV6_NON_PUBLIC_RANGES, 'ipv6');
const V6_NAMED_RULES = blockListOf(IPV6_NAMED_OUTSIDE_GLOBAL, 'ipv6');
const V6_GLOBAL_UNICAST = new BlockList();
V6_GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** Parses an IPv6 text form (with `::` and an optional trailing dotted quad) into 8 16-bit groups. */
export function parseIpv6(text: string): number[] | undefined {
  let address = stripZone(text);
  if (isIP(address) !== 6) return undefined;
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    // Rewrite a trailing dotted quad ("::ffff:10.0.0.1") as two hex groups ("::ffff:a00:1").
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    address = `${address.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const toGroups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const doubleColon = address.indexOf('::');
  let groups: number[];
  if (doubleColon === -1) {
    groups = toGroups(address);
  } else {
    const left = toGroups(address.slice(0, doubleColon));
    const right = toGroups(address.slice(doubleColon + 2));
    groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

function stripZone(address: string): string {
  const percent = address.indexOf('%');
  return percent === -1 ? address : address.slice(0, percent);
}

function v4FromGroups(high: number, low: number): string {
  return `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`;
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that tunnel or
 * translate to IPv4: IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96 (deprecated), NAT64
 * 64:ff9b::/96, 6to4 2002::/16. Teredo (2001::/32) embeds two: the server and the client
 * (the latter inverted, RFC 4380 §4).
 */
export function embeddedIpv4(address: string): string[] {
  const g = parseIpv6(address);
  if (!g) return [];
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) {
    // ::ffff:a.b.c.d (mapped) or ::a.b.c.d (compatible); "::" and "::1" themselves are named elsewhere.
    if (g5 === 0 && g6 === 0 && g7 <= 1) return [];
    return [v4FromGroups(g6, g7)];
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return [v4FromGroups(g6, g7)];
  }
  if (g0 === 0x2002) return [v4FromGroups(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) {
    return [v4FromGroups(g2, g3), v4FromGroups(g6 ^ 0xffff, g7 ^ 0xffff)];
  }
  return [];
}

function classifyIpv4(address: string): AddressClass {
  for (const [list, cls] of V4_RULES) {
    if (list.check(address, 'ipv4')) return cls;
  }
  return 'public';
}

function classifyIpv6(address: string): AddressClass {
  const plain = stripZone(address);
  for (const [list, cls] of V6_NAMED_RULES) {
    if (list.check(plain, 'ipv6')) return cls;
  }
  const embedded = embeddedIpv4(plain);
  if (embedded.length > 0) {
    // A translated or tunnelled address reaches whatever the embedded IPv4 address reaches.
    for (const v4 of embedded) {
      const cls = classifyIpv4(v4);
      if (cls !== 'public') return cls;
    }
    const g = parseIpv6(plain);
    // Mapped, NAT64 (well-known prefix), 6to4 and Teredo with public ends are public; the
    // deprecated IPv4-compatible form is not routed any more.
    if (g && g[0] === 0 && g[5] === 0) return 'reserved';
    return 'public';
  }
  if (!V6_GLOBAL_UNICAST.check(plain, 'ipv6')) return 'not-global-unicast';
  for (const [list, cls] of V6_RULES) {
    if (list.check(plain, 'ipv6')) return cls;
  }
  return 'public';
}

/** Classifies an IP address (text form; IPv6 without brackets, a zone id is ignored). */
export function classifyAddress(address: string): AddressClass {
  const plain = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  switch (isIP(stripZone(plain))) {
    case 4:
      return classifyIpv4(plain);
    case 6:
      return classifyIpv6(plain);
    default:
      return 'invalid';
  }
}

/** RED-2 (1): true only for addresses a polite fetcher may connect to on the public internet. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms: what local mode (`--allow-loopback`) may reach. */
export function isLoopbackAddress(address: string): boolean {
  return classifyAddress(address) === 'loopback';
}
