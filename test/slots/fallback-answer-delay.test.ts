import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHostSlots,
  MIN_INTERVAL_MS,
  type PacedHostSlots,
  SEND_WRITE_GUARD_MS,
  type SlotLease,
} from '../../shared/slots';
import { fallbackGrid } from '../../shared/slots/fallback-phase';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import {
  type Arrival,
  granted,
  KEY_PREFIX,
  type StampingCouncil,
  sleep,
  startStampingCouncil,
} from '../support/slot-instances';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { WarpClock } from './fake-clock';

const MAX_INSTANCES = 2;
const HOST = 'answer-delay.test';
/**
 * A's answers from Redis arrive this late, every one (a process whose path or event loop is slow for
 * longer than the clock model's 20 s window): its clock bracket on Redis is this wide, and a Redis slot
 * placed on its clock "never early" lies up to this much after the true slot.
 */
const ANSWER_DELAY_MS = 150;
/**
 * One of A's sends alone leaves this late after its grid slot: within its send allowance (≈ the answer
 * delay + the write guard, learnt under Redis), so the lease's check lets it go when the anchor's
 * uncertainty is forgotten.
 */
const LATE_ALONE_MS = 120;
/** Arrivals carry a loaded machine's jitter on top of the slots: 50 ms, as in partial-outage.test.ts. */
const ARRIVAL_TOLERANCE_MS = 50;
/** Longer than the quiet minute (which the WarpClock passes at once), shorter than two. */
const MAX_WAIT_MS = 90_000;

// RATE-7 / RATE-1, the politeness bench's single after-kill gaps of 983–993 ms (docs/reliability.md,
// "fallback grids", open item): a grid alone is anchored at the process's last Redis slot *as placed on
// its own clock* — never early, so up to the clock bracket's width late. Under Redis that width counts
// against the send allowance (the lease's `uncertaintyMs`); alone it did not, so a send could leave up to
// the whole allowance after an anchor that was itself late, closer than the interval to the next
// process's grid. Real redis-server (killed), A's answers slowed by a TCP proxy, a loopback council that
// stamps arrivals on the real clock; one WarpClock shared by both instances passes the quiet minute.
describe('RATE-7 / RATE-1: a fallback grid anchored on a late-placed Redis slot', () => {
  let peer: RedisPeer;
  let slowPath: TcpProxy;
  let council: StampingCouncil;
  let arrivals: Arrival[];

  beforeAll(async () => {
    peer = await startRedisPeer();
    slowPath = await startTcpProxy({ port: Number(new URL(peer.adapter.url).port) });
    council = await startStampingCouncil();
    arrivals = council.arrivals;
  });
  afterAll(async () => {
    await slowPath?.close();
    await council?.close();
    await peer?.stop();
  });

  const write = (from: string) => council.send(from);

  /**
   * The fetcher's part (shared/fetch): `lagMs` after the slot the request is about to be written; it
   * asks the lease whether it is still on time and re-times the slot when not (the re-timed slot is
   * sent without lag). Resolves when the answer is in and the lease released; `false` when refused.
   */
  async function sendAt(from: string, first: SlotLease, lagMs: number): Promise<boolean> {
    let lease = first;
    if (lagMs > 0) await sleep(lagMs);
    while (!lease.onTime()) {
      const again = await lease.retime({ intervalMs: MIN_INTERVAL_MS, maxWaitMs: MAX_WAIT_MS });
      if (!again.granted) return false;
      lease = again;
    }
    await write(from);
    await lease.release();
    return true;
  }

  /** Sends that teach an instance its lateness (past the cold start), each to a fresh host. */
  async function warm(slots: PacedHostSlots, name: string, count: number): Promise<void> {
    for (let i = 0; i < count; i += 1) {
      const result = await slots.acquire(`warm-${name}-${i}.test`, { intervalMs: MIN_INTERVAL_MS });
      if (result.granted) await result.release();
    }
  }

  it("a send alone never leaves later than the anchor's slot could have been plus its allowance: no two arrivals < 1 s apart", async () => {
    const forfeits: Array<{ from: string; at: number }> = [];
    // Each instance passes its own quiet minute at once (it warps its clock by the quiet's length: the
    // grids' phases move by the sub-ms between the switch and the sleep, nothing more).
    const make = (from: string, url: string, clock = new WarpClock()) =>
      createHostSlots({
        redis: createTestRedisClient({ url, token: peer.adapter.token }),
        maxInstances: MAX_INSTANCES,
        clock,
        keyPrefix: KEY_PREFIX,
        storeTimeoutMs: 1_000,
        onEvent: (event) => {
          if (event.type === 'slot-forfeited')
            forfeits.push({ from, at: performance.timeOrigin + performance.now() });
        },
      });
    const a = make('a', slowPath.url);
    const b = make('b', peer.adapter.url);
    slowPath.slow(ANSWER_DELAY_MS);
    await Promise.all([a.warmUp(), b.warmUp()]);
    await Promise.all([warm(a, 'a', 24), warm(b, 'b', 24)]);
    // The set-up holds: A learnt a send allowance covering its answers' delay (its slots' uncertainty),
    // B, on a fast path, the minimum or close.
    expect(a.stats().sendAllowanceMs).toBeGreaterThan(ANSWER_DELAY_MS);
    expect(a.stats().sendAllowanceMs - SEND_WRITE_GUARD_MS).toBeGreaterThan(LATE_ALONE_MS);
    expect(b.stats().sendAllowanceMs).toBeLessThan(ANSWER_DELAY_MS);

    // Under Redis: A's slot, then B's right after it (one interval + A's allowance later); both send.
    const start = performance.timeOrigin + performance.now();
    const leaseA = granted(await a.acquire(HOST, { intervalMs: MIN_INTERVAL_MS }));
    const leaseB = b.acquire(HOST, { intervalMs: MIN_INTERVAL_MS });
    expect(await sendAt('a', leaseA, 0)).toBe(true);
    expect(await sendAt('b', granted(await leaseB), 0)).toBe(true);
    const shared = arrivals.filter((r) => r.at >= start);
    expect(shared.map((r) => r.from)).toEqual(['a', 'b']);

    // Redis dies. Both go on alone after the quiet minute, B on time, A once late by LATE_ALONE_MS.
    await peer.redisServer.stop();
    const killedAt = performance.timeOrigin + performance.now();
    const stream = async (from: string, slots: PacedHostSlots, lagsMs: number[]) => {
      for (const lagMs of lagsMs) {
        const result = await slots.acquire(HOST, { intervalMs: MIN_INTERVAL_MS, maxWaitMs: MAX_WAIT_MS });
        if (!result.granted) return;
        await sendAt(from, result, lagMs);
      }
    };
    await Promise.all([stream('a', a, [LATE_ALONE_MS, 0, 0]), stream('b', b, [0, 0, 0, 0])]);
    expect([a.mode, b.mode]).toEqual(['local', 'local']);

    const alone = arrivals.filter((r) => r.at > killedAt);
    const gaps = alone.slice(1).map((r, i) => ({
      gapMs: Math.round((r.at - alone[i]!.at) * 10) / 10,
      pair: `${alone[i]!.from}→${r.from}`,
    }));
    if (process.env.DEBUG_ARRIVALS) console.log(gaps, a.stats(), b.stats());
    // Both paced alone, each on its grid (the step RATE-7 allows at two instances).
    expect(alone.filter((r) => r.from === 'b').length).toBe(4);
    expect(alone.filter((r) => r.from === 'a').length).toBeGreaterThanOrEqual(1);
    expect(fallbackGrid(MAX_INSTANCES, MIN_INTERVAL_MS).stepMs).toBeGreaterThanOrEqual(
      MIN_INTERVAL_MS * MAX_INSTANCES,
    );
    // RATE-1 at the host. Before the fix: A's late send ≈ 895 ms before B's (interval + A's allowance
    // − the answer delay its anchor carried − its lateness).
    expect(gaps.filter((gap) => gap.gapMs < MIN_INTERVAL_MS - ARRIVAL_TOLERANCE_MS)).toEqual([]);
    // Because A's late slot was given up (its anchor's uncertainty counted) and sent on a later grid
    // slot, not because A happened to be on time (before the fix A gave none up alone).
    expect(forfeits.filter((f) => f.at > killedAt && f.from === 'a').length).toBeGreaterThanOrEqual(1);
  }, 90_000);
});
