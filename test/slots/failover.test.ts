import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsBuffer } from '../../shared/observability/metrics';
import {
  type AcquireResult,
  createHostSlots,
  FALLBACK_GRID_SLACK_MS,
  SHARED_STORE_RETRY_MS,
  type SlotEvent,
} from '../../shared/slots';
import { logSlotEvent, SLOT_EVENT_CODES } from '../../shared/slots/event-log';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import { granted, KEY_PREFIX, liveLeases } from '../support/slot-instances';
import { FakeClock, settle } from './fake-clock';

const MAX_INSTANCES = 3;

// RATE-7 with a real redis-server that is killed mid-test and brought back; the 60 s until Redis is
// asked again pass on a fake clock. Real Redis calls still take real (milliseconds of) time. Since
// issue 13, a process stays quiet after the switch until its first retry of Redis failed too (a
// partial outage must not pace it alone next to instances still on Redis: partial-outage.test.ts).
describe('RATE-7: fallback to in-process pacing while the shared store is unavailable', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => peer.stop());

  it('stays quiet until Redis failed twice 60 s apart, then paces alone at interval × INGESTOR_MAX_INSTANCES, keeps the in-flight limit, uses Redis again after 60 s; every switch logged and counted', async () => {
    const clock = new FakeClock();
    const events: SlotEvent['type'][] = [];
    const codes: unknown[] = [];
    const metricLines: string[] = [];
    const buffer = new MetricsBuffer({ write: (line) => metricLines.push(line) });
    const slots = createHostSlots({
      redis: createTestRedisClient(peer.adapter),
      maxInstances: MAX_INSTANCES,
      clock,
      keyPrefix: KEY_PREFIX,
      storeTimeoutMs: 1_000,
      onEvent: (event) => {
        events.push(event.type);
        logSlotEvent(event, { log: (_message, fields) => codes.push(fields.code), metrics: buffer });
      },
    });
    const acquire = (host: string) => clock.run(slots.acquire(host, { intervalMs: 1_000 }));
    const storeEvents = () => events.filter((type) => type !== 'slot-forfeited');
    await slots.warmUp();

    // Shared mode: a send to b.test, then a lease in flight to a.test when Redis dies. Alone, the
    // process keeps its phase on a host only from a slot this recent (fallback-phase.ts).
    const before = granted(await acquire('b.test'));
    await before.release();
    const inFlight = granted(await acquire('a.test'));
    expect(inFlight.mode).toBe('shared');
    expect(await liveLeases(peer.redis, 'a.test')).toBe(1);

    await peer.redisServer.stop();
    const failedAt = clock.now();
    // Quiet after the switch: a caller that cannot wait until Redis is asked again is refused.
    const hurried = await clock.run(slots.acquire('b.test', { intervalMs: 1_000, maxWaitMs: 5_000 }));
    expect(hurried).toMatchObject({ granted: false, retryAtMs: failedAt + SHARED_STORE_RETRY_MS });
    expect(clock.now()).toBe(failedAt);
    const first = granted(await acquire('b.test'));
    const second = granted(await acquire('b.test'));
    await Promise.all([first.release(), second.release()]);

    // Redis is asked again after 60 s and fails again; then the process sends alone on its grid from
    // its last slot on the host under Redis — with 3 instances a step of 5 slots (interval + the
    // common slack), FALLBACK_PHASE_MIN_SLOTS + MAX_IN_FLIGHT_PER_HOST + 1, more than RATE-7's 3 s.
    const retriedAt = failedAt + SHARED_STORE_RETRY_MS;
    const stepMs = (1_000 + FALLBACK_GRID_SLACK_MS) * 5;
    expect(first).toMatchObject({ mode: 'local', intervalMs: 1_000 * MAX_INSTANCES });
    expect((first.sendAtMs - before.sendAtMs) % stepMs).toBe(0);
    expect(first.sendAtMs).toBeGreaterThanOrEqual(retriedAt);
    expect(first.sendAtMs - retriedAt).toBeLessThan(stepMs);
    expect(second.sendAtMs - first.sendAtMs).toBe(stepMs);
    expect(storeEvents()).toEqual(['shared-store-failed', 'shared-store-failed']);
    expect(codes).toEqual([SLOT_EVENT_CODES.fallbackEntered, SLOT_EVENT_CODES.fallbackRetryFailed]);

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

    // Redis is back, but the process asks again only 60 s after the failed retry.
    await peer.restartRedis();
    await waitForAdapter(peer);
    const requestsBefore = peer.adapter.requestCount();
    const stillLocal = granted(await acquire('b.test'));
    await stillLocal.release();
    expect(stillLocal.mode).toBe('local');
    expect(peer.adapter.requestCount()).toBe(requestsBefore);

    // A send made alone just before the retry (the last grid slot before it)…
    await clock.advance(retriedAt + 60_000 - stepMs - clock.now());
    const alone = granted(await acquire('b.test'));
    await alone.release();
    expect(retriedAt + 60_000 - alone.sendAtMs).toBeLessThanOrEqual(stepMs);
    await clock.advance(Math.max(0, retriedAt + 60_000 - clock.now()));
    const back = granted(await acquire('b.test'));
    await back.release();

    expect(alone.mode).toBe('local');
    expect(back.mode).toBe('shared');
    expect(storeEvents().at(-1)).toBe('shared-store-restored');
    // …still bounds the shared pace, though the restarted Redis never saw it.
    expect(back.sendAtMs - alone.sendAtMs).toBeGreaterThanOrEqual(1_000);
    expect(slots.mode).toBe('shared');
    expect(codes.at(-1)).toBe(SLOT_EVENT_CODES.fallbackLeft);
    buffer.flush();
    const switches = metricLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(switches.map((line) => [line.Switch, line.SlotStoreFallback])).toEqual([
      ['entered', 1],
      ['retry-failed', 1],
      ['left', 1],
    ]);
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
