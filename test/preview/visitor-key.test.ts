import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalPreviewLimits,
  createRedisPreviewLimits,
  PREVIEW_VISITOR_LIMIT,
  type PreviewLimits,
  visitorOf,
} from '../../shared/preview';
import { type RedisPeer, startRedisPeer } from '../support/redis';

/**
 * PRV-2: at most 20 requests per visitor address and minute — where an IPv6 visitor is its /64 (one
 * subscriber can pick any address inside it) and an IPv4-mapped IPv6 address is the IPv4 address.
 * The shared limits run against a real redis-server behind the Upstash REST adapter.
 */
describe('PRV-2: who counts as one visitor', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::ffff:c633:6407', '198.51.100.7'],
    ['2001:db8:a:b::1', '2001:db8:a:b::/64'],
    ['2001:0db8:000a:000b:ffff:ffff:ffff:ffff', '2001:db8:a:b::/64'],
    ['2001:DB8:A:B:1:2:3:4', '2001:db8:a:b::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (address, visitor) => {
    expect(visitorOf(address)).toBe(visitor);
  });

  it('anything that is no IP address is taken as it is', () => {
    expect(visitorOf('unknown')).toBe('unknown');
  });
});

describe('PRV-2: the per-visitor limit across an IPv6 /64 and IPv4-mapped addresses', () => {
  let redis: RedisPeer;
  beforeAll(async () => {
    redis = await startRedisPeer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const kinds: [string, () => PreviewLimits][] = [
    ['shared (Redis)', () => createRedisPreviewLimits(redis.redis, { keyPrefix: `t${Math.random()}:` })],
    ['process-local', () => createLocalPreviewLimits()],
  ];

  it.each(kinds)('%s: rotating addresses inside one /64 does not pass the 20 a minute', async (_k, make) => {
    const limits = make();
    const verdicts: boolean[] = [];
    for (let i = 1; i <= PREVIEW_VISITOR_LIMIT; i += 1) {
      verdicts.push((await limits.visitor(`2001:db8:a:b:${i.toString(16)}::1`)).allowed);
    }
    expect(verdicts).toEqual(Array(PREVIEW_VISITOR_LIMIT).fill(true));
    const rotated = await limits.visitor('2001:db8:a:b:ffff:ffff:ffff:ffff');
    expect(rotated.allowed).toBe(false);
    expect(rotated.retryAfterS).toBeGreaterThanOrEqual(1);
    // the neighbouring /64 is another visitor
    expect((await limits.visitor('2001:db8:a:c::1')).allowed).toBe(true);
  });

  it.each(kinds)(
    '%s: an IPv4 visitor counts the same through an IPv4-mapped IPv6 address',
    async (_k, make) => {
      const limits = make();
      for (let i = 0; i < PREVIEW_VISITOR_LIMIT / 2; i += 1) {
        expect((await limits.visitor('203.0.113.5')).allowed).toBe(true);
        expect((await limits.visitor('::ffff:203.0.113.5')).allowed).toBe(true);
      }
      expect((await limits.visitor('::ffff:203.0.113.5')).allowed).toBe(false);
      expect((await limits.visitor('203.0.113.6')).allowed).toBe(true);
    },
  );
});
