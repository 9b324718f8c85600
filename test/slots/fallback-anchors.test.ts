import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHostSlots,
  FALLBACK_GRID_SLACK_MS,
  MIN_INTERVAL_MS,
  type PacedHostSlots,
  type SlotLease,
} from '../../shared/slots';
import { fallbackGrid } from '../../shared/slots/fallback-phase';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import { granted, KEY_PREFIX, sleep } from '../support/slot-instances';
import { FakeClock } from './fake-clock';

const MAX_INSTANCES = 4;
const HOST = 'anchors.test';
/** The fallback grid's step at 1 s with four instances before the fix: a cycle, 4 × (1 s + slack). */
const STEP_MS = (MIN_INTERVAL_MS + FALLBACK_GRID_SLACK_MS) * MAX_INSTANCES;
/** A wait budget longer than the quiet minute, shorter than two: the quiet is waited out, not more. */
const MAX_WAIT_MS = 90_000;

// RATE-7 / RATE-1 (docs/reliability.md, "Fallback grids with anchors of different ages"): after Redis
// dies each process paces alone on a grid anchored at its own last slot on the host. A process whose
// last slot there is a grid step (or several) older than another's has an arbitrary phase against it.
// The politeness bench showed it as two workers' grids a constant ≈ 975 ms apart. Real redis-server
// (killed), a fake clock shared by both instances (real Redis calls take real milliseconds meanwhile),
// sends stamped at their slot on that clock, as in fallback-phases.test.ts.
describe('RATE-7 / RATE-1: fallback grids with anchors of different ages', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => peer?.stop());

  it('a process whose last slot on the host is older than the last cycle before the outage stays off it; the other keeps its grid ≥ 1 s apart', async () => {
    const clock = new FakeClock();
    const make = (): PacedHostSlots =>
      createHostSlots({
        redis: createTestRedisClient(peer.adapter),
        maxInstances: MAX_INSTANCES,
        clock,
        keyPrefix: KEY_PREFIX,
        storeTimeoutMs: 1_000,
      });
    const a = make();
    const b = make();
    await Promise.all([a.warmUp(), b.warmUp()]);
    const sends: Array<{ at: number; from: string }> = [];
    const send = async (from: string, lease: SlotLease) => {
      sends.push({ at: clock.now(), from });
      await clock.sleep(50); // the answer
      await lease.release();
    };

    // Under Redis: A sends to the host, then nobody for a while, then B — its slot lands a grid step
    // and ≈ 500 ms after A's, so alone their grids would sit ≈ 500 ms apart.
    await clock.run(
      (async () => send('a', granted(await a.acquire(HOST, { intervalMs: MIN_INTERVAL_MS }))))(),
    );
    // Redis places a slot on its own, real clock: let its next free slot pass in real time too, so
    // that B's lands where the fake clock asks (an idle host: at once, plus the send lead).
    await sleep(MIN_INTERVAL_MS + FALLBACK_GRID_SLACK_MS + 100);
    await clock.advance(STEP_MS + 450);
    await clock.run(
      (async () => send('b', granted(await b.acquire(HOST, { intervalMs: MIN_INTERVAL_MS }))))(),
    );
    const [anchorA, anchorB] = [sends[0]!.at, sends[1]!.at];
    const phaseApart = (anchorB - anchorA) % STEP_MS;
    // The set-up holds: the two anchors are a step apart plus less than an interval.
    expect(anchorB - anchorA).toBeGreaterThan(STEP_MS);
    expect(phaseApart).toBeGreaterThan(0);
    expect(phaseApart).toBeLessThan(MIN_INTERVAL_MS);
    const sharedSends = sends.length;

    // Redis dies; both want the host again at once, and go on asking for it alone.
    await peer.redisServer.stop();
    const refusals: unknown[] = [];
    const stream = async (from: string, slots: PacedHostSlots, count: number) => {
      for (let i = 0; i < count; i += 1) {
        const result = await slots.acquire(HOST, { intervalMs: MIN_INTERVAL_MS, maxWaitMs: MAX_WAIT_MS });
        if (!result.granted) {
          refusals.push({ from, ...result });
          return;
        }
        await send(from, result);
      }
    };
    await clock.run(Promise.all([stream('a', a, 6), stream('b', b, 6)]), { realTimeoutMs: 20_000 });
    expect([a.mode, b.mode]).toEqual(['local', 'local']);

    const alone = sends.slice(sharedSends).sort((x, y) => x.at - y.at);
    const gaps = alone
      .slice(1)
      .map((s, i) => ({ gapMs: s.at - alone[i]!.at, pair: `${alone[i]!.from}${s.from}` }));
    // RATE-1 at the host: never two sends < 1 s apart (before the fix: A–B ≈ 500 ms every step).
    expect(gaps.filter((gap) => gap.gapMs < MIN_INTERVAL_MS)).toEqual([]);
    // B's phase is shared (its slot was the host's last before the outage): it paces alone.
    const ownB = alone.filter((s) => s.from === 'b').map((s) => s.at);
    expect(ownB.length).toBe(6);
    const { stepMs } = fallbackGrid(MAX_INSTANCES, MIN_INTERVAL_MS);
    expect(stepMs).toBeGreaterThanOrEqual(MIN_INTERVAL_MS * MAX_INSTANCES); // RATE-7's bound
    for (let i = 1; i < ownB.length; i += 1) expect(ownB[i]! - ownB[i - 1]!).toBe(stepMs);
    // A's is not: it sends nothing to the host alone; once the quiet minute is over it is refused at
    // once, told when Redis is asked again.
    expect(alone.filter((s) => s.from === 'a')).toEqual([]);
    expect(refusals).toEqual([
      expect.objectContaining({ from: 'a', granted: false, reason: 'no-shared-phase', host: HOST }),
    ]);
    expect((refusals[0] as { retryAtMs?: number }).retryAtMs).toBeGreaterThan(sends[1]!.at + 2 * 60_000);
  }, 60_000);
});
