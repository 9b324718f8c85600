import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  embeddedIpv4,
  isLoopbackAddress,
  isPublicAddress,
  parseIpv6,
} from '../../shared/net';

// RED-2 (1): only public unicast addresses may be connected to. The table names the reason a
// refused address is refused, so a regression shows which range broke.
describe('RED-2: address classification', () => {
  describe.each([
    // IPv4 — special-purpose ranges
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.53.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'], // cloud metadata service
    ['169.254.0.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['192.88.99.1', 'reserved'],
    ['192.168.178.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv4 — public neighbours of the ranges above
    ['1.1.1.1', 'public'],
    ['8.8.8.8', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['144.76.153.200', 'public'],
    ['198.20.0.0', 'public'],
    ['223.255.255.255', 'public'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['100::1', 'not-global-unicast'], // discard-only
    ['4000::1', 'not-global-unicast'],
    ['2a00:1450:4001:82a::200e', 'public'],
    ['2606:4700:4700::1111', 'public'],
    // IPv6 forms that embed IPv4: judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::10.0.0.1', 'private'], // IPv4-compatible (deprecated)
    ['::8.8.8.8', 'reserved'],
    ['64:ff9b::10.0.0.1', 'private'], // NAT64
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:a00:1::1', 'private'], // 6to4 of 10.0.0.1
    ['2002:c0a8:101::1', 'private'], // 6to4 of 192.168.1.1
    ['2002:808:808::1', 'public'],
    ['2001:0:a00:1::', 'private'], // Teredo server 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'documentation'], // RFC 4380 example: client 192.0.2.45
    ['2001:0:808:808:0:0:f7f7:f7f7', 'public'], // Teredo server 8.8.8.8, client 8.8.8.8
    // Not addresses
    ['example.com', 'invalid'],
    ['', 'invalid'],
    ['010.0.0.1', 'invalid'],
  ] as const)('%s', (address, expected) => {
    it(`is ${expected}`, () => {
      expect(classifyAddress(address)).toBe(expected);
      expect(isPublicAddress(address)).toBe(expected === 'public');
    });
  });

  it('accepts bracketed IPv6 as URLs write it', () => {
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('[::ffff:a9fe:a9fe]')).toBe('link-local');
  });

  it('local mode reaches loopback only: 127/8, ::1 and mapped loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect(['10.0.0.1', '0.0.0.0', '::', '169.254.169.254'].some(isLoopbackAddress)).toBe(false);
  });

  it('parses IPv6 text forms into groups', () => {
    expect(parseIpv6('::ffff:10.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]);
    expect(parseIpv6('2001:db8::1')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('1.2.3.4')).toBeUndefined();
  });

  it('finds the IPv4 addresses inside mapped, NAT64, 6to4 and Teredo addresses', () => {
    expect(embeddedIpv4('::ffff:1.2.3.4')).toEqual(['1.2.3.4']);
    expect(embeddedIpv4('64:ff9b::102:304')).toEqual(['1.2.3.4']);
    expect(embeddedIpv4('2002:102:304::')).toEqual(['1.2.3.4']);
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(embeddedIpv4('2a00::1')).toEqual([]);
  });
});
