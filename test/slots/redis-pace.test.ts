import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AcquireResult, MIN_INTERVAL_MS, PACE_MARGIN_MS, type PacedHostSlots } from '../../shared/slots';
import { RedisSlotStore } from '../../shared/slots/redis-store';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import { granted, KEY_PREFIX, liveLeases, sleep, warmInstance } from '../support/slot-instances';

// The shared store with real time and a real redis-server. The 1 s floor of RATE-1 stays in force here
// (there is no test-only override), so these few tests wait one or two real seconds each.
describe('shared host slots: pace and in-flight places across instances', () => {
  let peer: RedisPeer;
  let a: PacedHostSlots;
  let b: PacedHostSlots;
  let c: PacedHostSlots;

  beforeAll(async () => {
    peer = await startRedisPeer();
    [a, b, c] = await Promise.all([warmInstance(peer), warmInstance(peer), warmInstance(peer)]);
  });
  afterAll(async () => peer.stop());

  it('RATE-1: three requests from two instances to one host leave at least 1 s apart', async () => {
    const sentAt: number[] = [];

    await Promise.all(
      [a, b, a].map(async (slots) => {
        const lease = granted(await slots.acquire('https://rate1.test/', { intervalMs: 1_000 }));
        sentAt.push(performance.now());
        await lease.release();
      }),
    );

    // 5 ms: the same tolerance as the bench, for the gap between a grant and this line running.
    const sorted = sentAt.sort((x, y) => x - y);
    expect(sorted[1]! - sorted[0]!).toBeGreaterThanOrEqual(995);
    expect(sorted[2]! - sorted[1]!).toBeGreaterThanOrEqual(995);
  });

  it('RATE-1: the script keeps the 1 s floor even for a client that asks for less', async () => {
    const store = new RedisSlotStore(peer.redis, { keyPrefix: KEY_PREFIX });
    const request = (leaseId: string) => ({
      host: 'floor.test',
      intervalMs: 100,
      leaseId,
      requesterId: leaseId,
      leaseTtlMs: 5_000,
      notBeforeDelayMs: 0,
      sendAllowanceMs: PACE_MARGIN_MS,
    });

    const first = await store.reserve(request('l1'));
    const firstSendAt = Number(await peer.redis.get(`${KEY_PREFIX}{floor.test}:next`));
    const second = await store.reserve(request('l2'));
    const secondSendAt = Number(await peer.redis.get(`${KEY_PREFIX}{floor.test}:next`));

    expect(first).toMatchObject({ kind: 'granted', sendInMs: 0, intervalMs: MIN_INTERVAL_MS });
    expect(second.kind).toBe('granted');
    expect(secondSendAt - firstSendAt).toBe(MIN_INTERVAL_MS + PACE_MARGIN_MS);
  });

  it('RATE-4: at most two in flight per host across two instances; a third waits for a release', async () => {
    const busyBefore = b.stats().busyAnswers;
    const a1 = granted(await a.acquire('rate4.test', { intervalMs: 1_000 }));
    const b1 = granted(await b.acquire('rate4.test', { intervalMs: 1_000 }));

    let third: AcquireResult | undefined;
    const pending = b.acquire('rate4.test', { intervalMs: 1_000 }).then((r) => {
      third = r;
      return r;
    });
    await sleep(300);
    const whileFull = { third, live: await liveLeases(peer.redis, 'rate4.test') };
    const probe = await c.acquire('rate4.test', { intervalMs: 1_000, maxWaitMs: 0 });
    await a1.release();
    const lease = granted(await pending);
    const liveAfter = await liveLeases(peer.redis, 'rate4.test');

    expect(whileFull).toEqual({ third: undefined, live: 2 });
    expect(probe.granted).toBe(false);
    expect(b.stats().busyAnswers).toBeGreaterThan(busyBefore);
    expect(lease.sendAtMs - b1.sendAtMs).toBeGreaterThanOrEqual(1_000);
    expect(liveAfter).toBe(2);
    await Promise.all([b1.release(), lease.release()]);
    expect(await liveLeases(peer.redis, 'rate4.test')).toBe(0);
  });

  it('RATE-4: places go first come, first served — a holder that frees its place and asks again queues behind a waiting third party', async () => {
    const host = 'fifo.test';
    const a1 = granted(await a.acquire(host, { intervalMs: 1_000 }));
    const b1 = b.acquire(host, { intervalMs: 1_000 }); // holds the second place, sends in ~1 s
    await sleep(50);
    const third = c.acquire(host, { intervalMs: 1_000 }); // both places taken: joins the line
    await sleep(150);
    const waitingWhileFull = await peer.redis.zcard(`${KEY_PREFIX}{${host}}:waiting`);
    // A sequential fetcher: frees its place and reserves again a moment later.
    await a1.release();
    const a2 = a.acquire(host, { intervalMs: 1_000 });
    const thirdLease = granted(await third);
    const b1Lease = granted(await b1);
    await b1Lease.release();
    const a2Lease = granted(await a2);

    expect(waitingWhileFull).toBe(1);
    expect(thirdLease.sendAtMs).toBeLessThan(a2Lease.sendAtMs);
    expect(a2Lease.sendAtMs - thirdLease.sendAtMs).toBeGreaterThanOrEqual(1_000);
    await Promise.all([thirdLease.release(), a2Lease.release()]);
    expect(await liveLeases(peer.redis, host)).toBe(0);
    expect(await peer.redis.zcard(`${KEY_PREFIX}{${host}}:waiting`)).toBe(0);
  });

  it('RATE-4: a requester that gives up waiting leaves the line at once, so it holds nobody back', async () => {
    const host = 'giveup.test';
    const a1 = granted(await a.acquire(host, { intervalMs: 1_000 }));
    const b1 = b.acquire(host, { intervalMs: 1_000 });
    await sleep(50);
    const gaveUp = await c.acquire(host, { intervalMs: 1_000, maxWaitMs: 300 });
    await sleep(50); // the leave call is sent without waiting for it
    const waitingAfter = await peer.redis.zcard(`${KEY_PREFIX}{${host}}:waiting`);
    await a1.release();
    const next = await a.acquire(host, { intervalMs: 1_000, maxWaitMs: 5_000 });

    expect(gaveUp.granted).toBe(false);
    expect(waitingAfter).toBe(0);
    expect(next.granted).toBe(true);
    await Promise.all([granted(await b1).release(), next.granted ? next.release() : undefined]);
  });

  it('RATE-4: the place of an instance that died holding it frees itself when its lease expires', async () => {
    const crashed = await warmInstance(peer);
    const survivor = c;
    const busyBefore = survivor.stats().busyAnswers;
    // The crashed instance holds both places and never releases them: one lease short-lived.
    const short = granted(await crashed.acquire('crash.test', { intervalMs: 1_000, leaseTtlMs: 1_500 }));
    const long = granted(await crashed.acquire('crash.test', { intervalMs: 1_000, leaseTtlMs: 60_000 }));

    const started = performance.now();
    const lease = granted(await survivor.acquire('crash.test', { intervalMs: 1_000 }));
    const waitedMs = performance.now() - started;

    expect(survivor.stats().busyAnswers).toBeGreaterThan(busyBefore);
    expect(lease.sendAtMs - long.sendAtMs).toBeGreaterThanOrEqual(1_000);
    expect(waitedMs).toBeLessThan(5_000); // long before the other lease's 60 s
    const members = await peer.redis.zrange<string[]>(`${KEY_PREFIX}{crash.test}:leases`, 0, -1);
    expect(members).toHaveLength(2); // the expired lease was purged, the long one and ours remain
    expect(short.sendAtMs).toBeLessThan(long.sendAtMs);
  });
});
