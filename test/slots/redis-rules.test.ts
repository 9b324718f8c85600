import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PACE_MARGIN_MS as M,
  MAX_SEND_ALLOWANCE_MS,
  type PacedHostSlots,
  RELEASE_LINGER_MS,
  systemSlotClock,
} from '../../shared/slots';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import {
  granted,
  instance,
  KEY_PREFIX,
  liveLeases,
  sleep,
  snapshot,
  warmInstance,
} from '../support/slot-instances';

const DAY_MS = 24 * 3_600_000;

// Rules that need no real waiting: a probe with `maxWaitMs: 0` reports when the slot would be free
// (from the Redis clock) without reserving it, so each test takes a few round trips.
describe('shared host slots: floors, redirects, wait budget', () => {
  let peer: RedisPeer;
  let a: PacedHostSlots;
  let b: PacedHostSlots;

  beforeAll(async () => {
    peer = await startRedisPeer();
    [a, b] = await Promise.all([warmInstance(peer), warmInstance(peer)]);
  });
  afterAll(async () => peer.stop());

  /** When the host's next slot would be (local clock), asked without reserving it. */
  const probe = async (slots: PacedHostSlots, host: string, intervalMs = 1_000) => {
    const result = await slots.acquire(host, { intervalMs, maxWaitMs: 0 });
    if (result.granted) throw new Error('probe unexpectedly got a slot');
    return result.retryAtMs!;
  };
  // Two conversions of Redis-clock delays into the local clock differ by the jitter of two replies;
  // and a process whose sends ran late asks for a larger send allowance than the minimum M.
  const near = (actual: number, expected: number) => {
    expect(actual).toBeGreaterThanOrEqual(expected - 25);
    expect(actual).toBeLessThanOrEqual(expected + (MAX_SEND_ALLOWANCE_MS - M) + 25);
  };

  it('RATE-2: the largest interval on a host applies to every fetch, for 5 minutes, across instances', async () => {
    const [sync, files] = [a, b];

    const first = granted(await sync.acquire('rate2.test', { intervalMs: 3_000 }));
    await first.release();
    const forFiles = await probe(files, 'rate2.test', 1_000);
    const forSlower = await probe(files, 'rate2.test', 5_000);
    const noteTtl = await peer.redis.pttl(`${KEY_PREFIX}{rate2.test}:interval`);

    near(forFiles - first.sendAtMs, 3_000 + M);
    near(forSlower - first.sendAtMs, 5_000 + M);
    expect(noteTtl).toBeGreaterThan(290_000);
    expect(noteTtl).toBeLessThanOrEqual(300_000);
  });

  it('RATE-5: a redirect moves the place to the target in one round trip; a same-host hop needs a new slot', async () => {
    const slots = a;
    const origin = granted(await slots.acquire('https://rate5-a.test/doc', { intervalMs: 1_000 }));
    const callsBefore = slots.stats().sharedStoreCalls;
    const forfeitsBefore = slots.stats().lateForfeits;

    const target = granted(await origin.moveTo('https://rate5-b.test/doc.pdf', { intervalMs: 1_000 }));
    const callsForMove = slots.stats().sharedStoreCalls - callsBefore;
    const forfeitsInMove = slots.stats().lateForfeits - forfeitsBefore;
    const leases = [
      await liveLeases(peer.redis, 'rate5-a.test'),
      await liveLeases(peer.redis, 'rate5-b.test'),
    ];
    const hop = await target.moveTo('https://rate5-b.test/other', { intervalMs: 1_000, maxWaitMs: 0 });

    expect(target).toMatchObject({ host: 'rate5-b.test', mode: 'shared' });
    // One call (plus one per slot given up for waking too late on this loaded test machine).
    expect(callsForMove - forfeitsInMove).toBe(1);
    expect(leases).toEqual([0, 1]);
    expect(hop).toMatchObject({ granted: false, host: 'rate5-b.test' });
    // The hop was refused, and the request's place was given up all the same.
    expect(await liveLeases(peer.redis, 'rate5-b.test')).toBe(0);
  });

  it('RATE-1: a late slot is re-timed in place in one round trip when nobody reserved after it, else it queues', async () => {
    // A long interval tells "in place" (sent about now) from "queued" (an interval after the spent slot)
    // however late a loaded machine wakes.
    const longInterval = 10_000;
    const alone = granted(await a.acquire('retime-a.test', { intervalMs: longInterval }));
    // A connection that took its time: past the largest send allowance a lagging process may learn to
    // ask for (at load 20 this process's allowance grew past a 120 ms delay), so the slot has passed.
    await sleep(MAX_SEND_ALLOWANCE_MS + 120);
    const lateBefore = alone.onTime();
    const before = a.stats();
    const retimed = granted(await alone.retime({ intervalMs: longInterval }));
    const after = a.stats();
    // The re-time's own calls: one forfeit is the re-time itself; each further one is the re-timed slot
    // woken too late by a loaded event loop, given up and reserved again — one call of its own (RATE-5's
    // count does the same).
    const lateWakes = after.lateForfeits - before.lateForfeits - 1;
    const callsForRetime = after.sharedStoreCalls - before.sharedStoreCalls - lateWakes;
    const leasesAfterRetime = await liveLeases(peer.redis, 'retime-a.test');

    const first = granted(await a.acquire('retime-b.test', { intervalMs: 1_000 }));
    const forfeitsBefore = a.stats().lateForfeits + b.stats().lateForfeits;
    const follower = b.acquire('retime-b.test', { intervalMs: 1_000 }); // reserved now, sent in ~1 s
    // Someone reserved after `first`: wait until the follower's reservation is in Redis (at load 20 its
    // call could land after the re-time, which then re-timed in place and put the follower behind it).
    while ((await liveLeases(peer.redis, 'retime-b.test')) < 2) await sleep(10);
    const queued = granted(await first.retime({ intervalMs: 1_000 }));
    const followerLease = granted(await follower);
    // The re-time's own forfeit is one; any further one is a grant woken too late by a loaded event loop.
    const lateWakesWhileQueued = a.stats().lateForfeits + b.stats().lateForfeits - forfeitsBefore - 1;

    expect(lateBefore).toBe(false);
    expect(lateWakes).toBeGreaterThanOrEqual(0);
    expect(callsForRetime).toBe(1);
    expect(leasesAfterRetime).toBe(1);
    // In place: after the delay (plus the send lead), far from the interval a queued slot would wait.
    expect(retimed.sendAtMs - alone.sendAtMs).toBeGreaterThanOrEqual(MAX_SEND_ALLOWANCE_MS + 120);
    expect(retimed.sendAtMs - alone.sendAtMs).toBeLessThan(longInterval);
    // Never closer than an interval (RATE-1), however the grants woke …
    expect(Math.abs(queued.sendAtMs - followerLease.sendAtMs)).toBeGreaterThanOrEqual(1_000 + M - 25);
    // … and right behind the follower when every grant woke in time. A grant woken too late (seen at
    // load 20) gives its slot up and reserves again, so the order and the gap are the load's.
    if (lateWakesWhileQueued === 0) near(queued.sendAtMs - followerLease.sendAtMs, 1_000 + M);
  });

  it('a release lingers for the next reservation of the host and rides along with it: one round trip per request', async () => {
    const sequential = instance(peer, { releaseLingerMs: RELEASE_LINGER_MS });
    const host = 'linger.test';
    const first = granted(await sequential.acquire(host, { intervalMs: 1_000 }));
    await first.release();
    const heldWhileLingering = await liveLeases(peer.redis, host);
    const before = sequential.stats();
    const second = granted(await sequential.acquire(host, { intervalMs: 1_000 }));
    const after = sequential.stats();
    // The reservation's own round trip; a grant woken too late by a loaded event loop (seen at load 20)
    // is given up and reserved again, one call each — the load's, not the linger's (as RATE-5 counts).
    const callsForNext =
      after.sharedStoreCalls - before.sharedStoreCalls - (after.lateForfeits - before.lateForfeits);
    const heldAfterNext = await liveLeases(peer.redis, host);
    await second.release();
    await sleep(RELEASE_LINGER_MS + 150); // nobody reserves again: the release goes on its own
    const heldAfterLinger = await liveLeases(peer.redis, host);
    const third = granted(await sequential.acquire(host, { intervalMs: 1_000 }));
    await third.release();
    await sequential.flushReleases(); // what the sync function does before its invocation ends
    const heldAfterFlush = await liveLeases(peer.redis, host);

    // The place counts as taken while the release lingers (the safe side of RATE-4).
    expect(heldWhileLingering).toBe(1);
    expect(callsForNext).toBe(1);
    expect(heldAfterNext).toBe(1);
    expect(heldAfterLinger).toBe(0);
    expect(heldAfterFlush).toBe(0);
  });

  it('RATE-8: Retry-After holds the host back, capped at 24 h, and never shortens a pause', async () => {
    await a.noteRetryAfter('rate8.test', 2 * DAY_MS);
    await b.noteRetryAfter('rate8.test', 10_000);
    const state = await b.hostState('rate8.test');
    const wait = (await probe(b, 'rate8.test')) - systemSlotClock.now();
    const keyTtl = await peer.redis.pttl(`${KEY_PREFIX}{rate8.test}:retry-after`);

    expect(state.retryAfterUntilMs! - systemSlotClock.now()).toBeGreaterThan(DAY_MS - 5_000);
    expect(state.retryAfterUntilMs! - systemSlotClock.now()).toBeLessThanOrEqual(DAY_MS);
    expect(wait).toBeGreaterThan(DAY_MS - 5_000);
    expect(keyTtl).toBeGreaterThan(DAY_MS - 5_000);
  });

  it('ROB-10: Crawl-delay is a lower bound of the interval, capped at 60 s, and shows in status', async () => {
    const slots = a;
    const big = granted(await slots.acquire('rob10.test', { intervalMs: 1_000 }));
    const small = granted(await slots.acquire('rob10-small.test', { intervalMs: 1_000 }));
    await Promise.all([big.release(), small.release()]);

    // Noted after the first request, as robots.txt is read before the second (ROB-4).
    await slots.noteCrawlDelay('rob10.test', 120_000);
    await slots.noteCrawlDelay('rob10-small.test', 300);
    const bigNext = await probe(slots, 'rob10.test');
    const smallNext = await probe(slots, 'rob10-small.test');
    const state = await slots.hostState('rob10.test');
    const keyTtl = await peer.redis.pttl(`${KEY_PREFIX}{rob10.test}:crawl-delay`);

    near(bigNext - big.sendAtMs, 60_000 + M);
    near(smallNext - small.sendAtMs, 1_000 + M); // a small Crawl-delay never speeds up RATE-1
    expect(state.crawlDelayMs).toBe(60_000);
    expect(keyTtl).toBeGreaterThan(DAY_MS - 5_000); // expires with the robots cache (ROB-5)
  });

  it('max wait: a slot beyond the budget is refused and Redis is left exactly as it was', async () => {
    const held = granted(await a.acquire('maxwait.test', { intervalMs: 1_000 }));
    const before = await snapshot(peer.redis, 'maxwait.test');

    const refused = await b.acquire('maxwait.test', { intervalMs: 1_000, maxWaitMs: 500 });
    const after = await snapshot(peer.redis, 'maxwait.test');

    expect(refused).toMatchObject({ granted: false, reason: 'max-wait', host: 'maxwait.test' });
    expect(after).toEqual(before);
    expect(before.length).toBeGreaterThanOrEqual(3); // next, leases, interval note
    await held.release();
  });

  it('max wait: with both places taken and the budget spent, nothing is reserved either', async () => {
    const busyBefore = b.stats().busyAnswers;
    const a1 = granted(await a.acquire('maxwait-busy.test', { intervalMs: 1_000 }));
    const a2 = granted(await a.acquire('maxwait-busy.test', { intervalMs: 1_000 }));
    const before = await snapshot(peer.redis, 'maxwait-busy.test');

    // The slot (1 s on) lies within the budget, but no place frees up in time.
    const refused = await b.acquire('maxwait-busy.test', { intervalMs: 1_000, maxWaitMs: 1_500 });
    const after = await snapshot(peer.redis, 'maxwait-busy.test');

    expect(refused.granted).toBe(false);
    // Polled with backoff (never a hot loop), then gave up within the budget.
    expect(b.stats().busyAnswers - busyBefore).toBeGreaterThanOrEqual(1);
    expect(b.stats().busyAnswers - busyBefore).toBeLessThanOrEqual(5);
    expect(after).toEqual(before);
    await Promise.all([a1.release(), a2.release()]);
  });

  it('host key: scheme, port and case share one pace; every key expires on its own', async () => {
    const first = granted(await a.acquire('https://RIS.Norm.test:443/oparl', { intervalMs: 1_000 }));
    await first.release();
    const next = await probe(b, 'http://ris.norm.test:8443/');
    const keys = await snapshot(peer.redis, 'ris.norm.test');

    near(next - first.sendAtMs, 1_000 + M);
    expect(keys.map((k) => k.split('=')[0])).toEqual([
      `${KEY_PREFIX}{ris.norm.test}:interval`,
      `${KEY_PREFIX}{ris.norm.test}:next`,
    ]);
    // The lease set emptied on release and is gone; what remains carries a TTL (PEXPIRETIME ≠ -1).
    expect(keys.every((k) => !k.endsWith('expires@-1'))).toBe(true);
  });
});
