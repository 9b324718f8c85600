import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AcquireResult, createHostSlots, PACE_MARGIN_MS as M, type SlotEvent } from '../../shared/slots';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import { FakeClock, settle } from './fake-clock';
import { granted, KEY_PREFIX, liveLeases } from './redis-helpers';

const MAX_INSTANCES = 3;

// RATE-7 with a real redis-server that is killed mid-test and brought back; the 60 s until Redis is
// asked again pass on a fake clock. Real Redis calls still take real (milliseconds of) time.
describe('RATE-7: fallback to in-process pacing while the shared store is unavailable', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => peer.stop());

  it('paces alone at interval × INGESTOR_MAX_INSTANCES, keeps the in-flight limit, and uses Redis again after 60 s', async () => {
    const clock = new FakeClock();
    const events: SlotEvent['type'][] = [];
    const slots = createHostSlots({
      redis: createTestRedisClient(peer.adapter),
      maxInstances: MAX_INSTANCES,
      clock,
      keyPrefix: KEY_PREFIX,
      storeTimeoutMs: 1_000,
      onEvent: (event) => events.push(event.type),
    });
    const acquire = (host: string) => clock.run(slots.acquire(host, { intervalMs: 1_000 }));
    const storeEvents = () => events.filter((type) => type !== 'slot-forfeited');
    await slots.warmUp();

    // Shared mode: a lease in flight when Redis dies.
    const inFlight = granted(await acquire('a.test'));
    expect(inFlight.mode).toBe('shared');
    expect(await liveLeases(peer.redis, 'a.test')).toBe(1);

    await peer.redisServer.stop();
    const failedAt = clock.now();
    const first = granted(await acquire('b.test'));
    const second = granted(await acquire('b.test'));
    await Promise.all([first.release(), second.release()]);

    // The first fallback send waits one fallback interval: other instances may just have sent.
    expect(first).toMatchObject({ mode: 'local', intervalMs: 1_000 * MAX_INSTANCES });
    expect(first.sendAtMs - failedAt).toBe(3_000 + M);
    expect(second.sendAtMs - first.sendAtMs).toBe(3_000 + M);
    expect(storeEvents()).toEqual(['shared-store-failed']);

    // The request that started under Redis still holds one of the host's two places in-process.
    const a2 = granted(await acquire('a.test'));
    let a3: AcquireResult | undefined;
    const pending = slots.acquire('a.test', { intervalMs: 1_000 }).then((r) => {
      a3 = r;
      return r;
    });
    await clock.advance(10_000);
    expect(a2.mode).toBe('local');
    expect(a3).toBeUndefined();
    await inFlight.release(); // Redis is down: the release fails quietly, the place frees in-process
    granted(await clock.run(pending));
    expect(storeEvents()).toContain('release-failed');

    // Redis is back, but the process asks again only 60 s after the failure.
    await peer.restartRedis();
    await waitForAdapter(peer);
    const requestsBefore = peer.adapter.requestCount();
    const stillLocal = granted(await acquire('c.test'));
    expect(stillLocal.mode).toBe('local');
    expect(peer.adapter.requestCount()).toBe(requestsBefore);

    // A send made alone half a second before the retry…
    await clock.advance(failedAt + 59_500 - clock.now());
    const alone = granted(await acquire('e.test'));
    await alone.release();
    await clock.advance(failedAt + 60_000 - clock.now());
    const back = granted(await acquire('e.test'));
    await back.release();

    expect(alone.mode).toBe('local');
    expect(back.mode).toBe('shared');
    expect(storeEvents().at(-1)).toBe('shared-store-restored');
    // …still bounds the shared pace, though the restarted Redis never saw it.
    expect(back.sendAtMs - alone.sendAtMs).toBeGreaterThanOrEqual(1_000);
    expect(slots.mode).toBe('shared');
  });
});

async function waitForAdapter(peer: RedisPeer): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (
      await peer.redis.ping().then(
        () => true,
        () => false,
      )
    )
      return;
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('adapter did not reconnect to redis');
}
