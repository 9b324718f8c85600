import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHostSlots,
  LocalHostLedger,
  OTHER_FETCH_BUCKET_MS,
  type PacedHostSlots,
  RedisHostLedger,
} from '../../shared/slots';
import { InstantClock } from '../support/fetch-kit';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import { instance, KEY_PREFIX } from '../support/slot-instances';

/**
 * Issue 27 item 5: the planner reads every host's RATE-8 pause, ROB-10 Crawl-delay and other fetches'
 * use in one call — the host ledger. Real redis-server behind the Upstash REST protocol; the slots of
 * one "instance" note the floors, a separate client (the planner's) reads them.
 */
describe('host ledger: what the planner reads of all hosts at once', () => {
  let peer: RedisPeer;
  let sync: PacedHostSlots;
  let planner: RedisHostLedger;

  beforeAll(async () => {
    peer = await startRedisPeer();
    sync = instance(peer);
    planner = new RedisHostLedger(createTestRedisClient(peer.adapter), KEY_PREFIX);
  });
  afterAll(async () => peer.stop());

  it('RATE-8: a Retry-After noted by any instance reaches the planner in one read, and a shorter one never shortens it', async () => {
    const before = Date.now();
    await sync.noteRetryAfter('https://Paused.Example:8443/oparl', 30 * 60_000);
    await sync.noteRetryAfter('paused.example', 60_000);
    const calls = peer.adapter.requestCount();
    const { floors } = await planner.read();
    expect(peer.adapter.requestCount() - calls).toBeLessThanOrEqual(2); // EVALSHA (+ EVAL the first time)
    const until = floors.get('paused.example')?.pausedUntilMs ?? 0;
    expect(until).toBeGreaterThanOrEqual(before + 30 * 60_000 - 50);
    expect(until).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 50);
  });

  it('ROB-10: a Crawl-delay is read with its host key; a lower one waits until the higher expires', async () => {
    await sync.noteCrawlDelay('crawl.example', 7_000);
    await sync.noteCrawlDelay('CRAWL.example.', 3_000);
    const { floors } = await planner.read();
    expect(floors.get('crawl.example')).toEqual({ crawlDelayMs: 7_000 });
    // Each floor on its own host key: the paused host has no Crawl-delay.
    expect(floors.get('paused.example')?.crawlDelayMs).toBeUndefined();
  });

  it('RATE-8: a pause that ended is gone from the reading (expired fields dropped on the next note)', async () => {
    await sync.noteRetryAfter('short.example', 1);
    await new Promise((r) => setTimeout(r, 5)); // the Redis clock is real; 1 ms pause, 5 ms later
    await sync.noteCrawlDelay('other.example', 2_000);
    const { floors } = await planner.read();
    expect(floors.has('short.example')).toBe(false);
    const raw = await peer.redis.hkeys(`${KEY_PREFIX}{ledger}:floors`);
    expect(raw).not.toContain('pause:short.example');
  });

  it('RATE-9 item 5: other fetches recorded per host by several passes are read as requests per second', async () => {
    const passA = new RedisHostLedger(createTestRedisClient(peer.adapter), KEY_PREFIX);
    await passA.recordOtherFetches(new Map([['Docs.Example', 300]]));
    await sync.ledger.recordOtherFetches(
      new Map([
        ['docs.example', 60],
        ['photos.example', 12],
      ]),
    );
    const { otherRequestsPerSecond } = await planner.read();
    // Over the last bucket and the current one: between one bucket and two of seconds.
    const docs = otherRequestsPerSecond.get('docs.example') ?? 0;
    expect(docs).toBeGreaterThan(360 / ((2 * OTHER_FETCH_BUCKET_MS) / 1000));
    expect(docs).toBeLessThanOrEqual(360 / (OTHER_FETCH_BUCKET_MS / 1000));
    expect(otherRequestsPerSecond.get('photos.example')).toBeCloseTo((docs * 12) / 360, 6);
    expect(otherRequestsPerSecond.has('paused.example')).toBe(false);
  });

  it("RATE-9 item 5: one host read alone (a preview's admission) is that host's part of the whole reading, in one small call", async () => {
    await sync.noteCrawlDelay('docs.example', 5_000);
    const whole = await planner.read();
    const calls = peer.adapter.requestCount();
    const one = await planner.readHost('https://DOCS.example:8443/files/1.pdf');
    expect(peer.adapter.requestCount() - calls).toBeLessThanOrEqual(2); // EVALSHA (+ EVAL the first time)
    expect([...one.floors]).toEqual([['docs.example', whole.floors.get('docs.example')]]);
    expect(one.floors.get('docs.example')).toEqual({ crawlDelayMs: 5_000 });
    expect([...one.otherRequestsPerSecond.keys()]).toEqual(['docs.example']);
    expect(one.otherRequestsPerSecond.get('docs.example')).toBeCloseTo(
      whole.otherRequestsPerSecond.get('docs.example') ?? 0,
      3,
    );
    // A pause, and a host nobody wrote to.
    expect((await planner.readHost('paused.example')).floors.get('paused.example')?.pausedUntilMs).toBe(
      whole.floors.get('paused.example')?.pausedUntilMs,
    );
    const none = await planner.readHost('nobody.example');
    expect(none.floors.size + none.otherRequestsPerSecond.size).toBe(0);
  });
});

describe('host ledger in local mode (npm start: planner, sync and passes in one process)', () => {
  it('RATE-8 / ROB-10 / item 5: the process ledger reads what the local slots noted, on the slots clock', async () => {
    const clock = new InstantClock(Date.UTC(2026, 10, 30, 9, 0, 0));
    const ledger = new LocalHostLedger(clock.now);
    const slots = createHostSlots({ clock, ledger });
    await slots.noteRetryAfter('local.example', 120_000);
    await slots.noteCrawlDelay('local.example', 4_000);
    await slots.ledger.recordOtherFetches(new Map([['local.example', 30]]));
    const reading = await ledger.read();
    expect(reading.floors.get('local.example')).toEqual({
      pausedUntilMs: clock.now() + 120_000,
      crawlDelayMs: 4_000,
    });
    // The pause ends on the clock; the Crawl-delay (24 h) stays.
    clock.timeMs += 120_001;
    expect((await ledger.read()).floors.get('local.example')).toEqual({ crawlDelayMs: 4_000 });
    // Two buckets later the other fetches' use is forgotten.
    expect((await ledger.read()).otherRequestsPerSecond.get('local.example')).toBeGreaterThan(0);
    const one = await ledger.readHost('LOCAL.example');
    expect(one.floors.get('local.example')).toEqual({ crawlDelayMs: 4_000 });
    expect(one.otherRequestsPerSecond.get('local.example')).toBeGreaterThan(0);
    clock.timeMs += 2 * OTHER_FETCH_BUCKET_MS;
    expect((await ledger.read()).otherRequestsPerSecond.has('local.example')).toBe(false);
  });
});
