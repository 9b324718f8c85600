import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostSlots, MIN_INTERVAL_MS, type PacedHostSlots, type SlotClock } from '../../shared/slots';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import { granted, KEY_PREFIX } from '../support/slot-instances';
import { FakeClock } from './fake-clock';

const MAX_INSTANCES = 4;
const HOST = 'phases.test';

/** One instance's view of the shared fake clock; `lateOnce` makes its next sleep end late (a busy loop). */
class InstanceClock implements SlotClock {
  private lateMs = 0;

  constructor(private readonly clock: FakeClock) {}

  now(): number {
    return this.clock.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const lateMs = ms > 0 ? this.lateMs : 0;
    if (lateMs > 0) this.lateMs = 0;
    return this.clock.sleep(ms + lateMs, signal);
  }

  lateOnce(ms: number): void {
    this.lateMs = ms;
  }
}

// RATE-7 after the quiet minute of issue 13.6, with a real redis-server that is killed: two instances
// that took turns on a host through Redis pace alone afterwards. Each keeps the phase it had under
// Redis (3d2f433) — also after an answer slower than a fallback interval and after a late wake-up,
// both common when every instance resumes at once when the quiet ends. Time is a fake clock shared by
// both instances; real Redis calls take real milliseconds meanwhile.
describe('RATE-7 / RATE-1: fallback phases after the quiet minute (politeness bench regression)', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => peer?.stop());

  it('instances that took turns under Redis send to the host ≥ 1 s apart alone, through slow answers and late wake-ups', async () => {
    const clock = new FakeClock();
    const make = () => {
      const own = new InstanceClock(clock);
      const slots = createHostSlots({
        redis: createTestRedisClient(peer.adapter),
        maxInstances: MAX_INSTANCES,
        clock: own,
        keyPrefix: KEY_PREFIX,
        storeTimeoutMs: 1_000,
      });
      return { own, slots };
    };
    const a = make();
    const b = make();
    await Promise.all([a.slots.warmUp(), b.slots.warmUp()]);
    const sends: Array<{ at: number; from: string }> = [];

    /** One sequential stream: acquire, send (recorded), the answer takes `answerMs(i)`, release. */
    const stream = async (
      from: string,
      slots: PacedHostSlots,
      count: number,
      answerMs: (i: number) => number,
      beforeAcquire: (i: number) => void = () => {},
    ) => {
      for (let i = 0; i < count; i += 1) {
        beforeAcquire(i);
        const lease = granted(await slots.acquire(HOST, { intervalMs: MIN_INTERVAL_MS }));
        sends.push({ at: clock.now(), from });
        await clock.sleep(answerMs(i));
        await lease.release();
      }
    };

    // Under Redis: the two take turns on the host (one send each: Redis's clock is real and does not
    // follow the fake one, so longer shared runs would stretch the turns).
    await clock.run(Promise.all([stream('a', a.slots, 1, () => 50), stream('b', b.slots, 1, () => 50)]));
    expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
    expect([a.slots.mode, b.slots.mode]).toEqual(['shared', 'shared']);
    const sharedSends = sends.length;

    // Redis dies for both. After the quiet minute each paces alone: A's fourth answer is slower than
    // a fallback interval (a redirect elsewhere, a tarpit); A wakes 150 ms late for its sixth slot.
    await peer.redisServer.stop();
    await clock.run(
      Promise.all([
        stream(
          'a',
          a.slots,
          8,
          (i) => (i === 3 ? 5_300 : 50),
          (i) => {
            if (i === 5) a.own.lateOnce(150);
          },
        ),
        stream('b', b.slots, 8, () => 50),
      ]),
      { realTimeoutMs: 20_000 },
    );
    expect([a.slots.mode, b.slots.mode]).toEqual(['local', 'local']);
    expect(a.slots.stats().lateForfeits).toBeGreaterThanOrEqual(1);

    const alone = sends.slice(sharedSends).sort((x, y) => x.at - y.at);
    expect(alone.length).toBe(16);
    const gaps = alone
      .slice(1)
      .map((send, i) => ({ gapMs: send.at - alone[i]!.at, pair: `${alone[i]!.from}${send.from}` }));
    expect(gaps.filter((gap) => gap.gapMs < MIN_INTERVAL_MS)).toEqual([]);
    // Each alone at interval × instances.
    for (const from of ['a', 'b']) {
      const own = alone.filter((send) => send.from === from).map((send) => send.at);
      for (let i = 1; i < own.length; i += 1) expect(own[i]! - own[i - 1]!).toBeGreaterThanOrEqual(4_000);
    }
  }, 60_000);
});
