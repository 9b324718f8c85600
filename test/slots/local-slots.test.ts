import { describe, expect, it } from 'vitest';
import { isIngestorError } from '../../shared/errors';
import {
  type AcquireResult,
  COLD_START_SEND_ALLOWANCE_MS as C,
  createHostSlots,
  isSlotLease,
  PACE_MARGIN_MS as M,
  type PacedHostSlots,
  SEND_WRITE_GUARD_MS,
  FALLBACK_GRID_SLACK_MS as SLACK,
  type SlotLease,
} from '../../shared/slots';
import { fallbackGrid } from '../../shared/slots/fallback-phase';
import { LocalSlotStore } from '../../shared/slots/local-store';
import { FakeClock, LaggyClock, settle } from './fake-clock';

// The process-local implementation (local mode, `npm start` without Redis) on a fake clock: the same
// rules as the shared store, proven without waiting a single real second.
function setup() {
  const clock = new FakeClock();
  const slots = createHostSlots({ clock });
  const t0 = clock.now();
  const acquire = (
    host: string,
    intervalMs = 1_000,
    extra: { maxWaitMs?: number; signal?: AbortSignal } = {},
  ) => clock.run(slots.acquire(host, { intervalMs, ...extra }));
  return { clock, slots, t0, acquire };
}

/** A reservation on `ris-a.test` at 1 s as the fallback receives one; `reserve` resolves it to the send time. */
function fallbackRequest(sendAllowanceMs: number) {
  return {
    host: 'ris-a.test',
    intervalMs: 1_000,
    leaseId: 'l',
    requesterId: 'r',
    leaseTtlMs: 60_000,
    notBeforeDelayMs: 0,
    sendAllowanceMs,
  };
}

async function sendTimeOf(store: LocalSlotStore, clock: FakeClock, sendAllowanceMs: number): Promise<number> {
  const decision = await store.reserve(fallbackRequest(sendAllowanceMs));
  if (decision.kind !== 'granted') throw new Error(decision.kind);
  return clock.now() + decision.sendInMs;
}

function granted(result: AcquireResult): SlotLease {
  if (!isSlotLease(result)) throw new Error(`expected a lease, got ${JSON.stringify(result)}`);
  return result;
}

async function sendTimes(
  acquire: (host: string, intervalMs?: number) => Promise<AcquireResult>,
  host: string,
  count: number,
  t0: number,
  intervalMs = 1_000,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const lease = granted(await acquire(host, intervalMs));
    times.push(lease.sendAtMs - t0);
    await lease.release();
  }
  return times;
}

describe('process-local host slots (fake clock)', () => {
  it('RATE-1: one request per second per host; other hosts are not held back', async () => {
    const { acquire, t0, clock } = setup();

    const times = await sendTimes(acquire, 'ris-a.test', 3, t0);
    const other = granted(await acquire('ris-b.test'));

    // C: a fresh process's send allowance (COLD_START_SEND_ALLOWANCE_MS; PACE_MARGIN_MS once it knows its lateness).
    expect(times).toEqual([0, 1_000 + C, 2 * (1_000 + C)]);
    expect(other.sendAtMs).toBe(clock.now());
    expect(other.mode).toBe('local');
  });

  it('RATE-1: a process that wakes too late gives its slot up rather than sending close to the next one', async () => {
    // Every other timer fires 30 ms late (more than the minimum allowance M), the others on time: a
    // late send followed by a punctual one would come 10 ms closer than the interval.
    const clock = new LaggyClock([30, 0]);
    const slots = createHostSlots({ clock });
    const sentAt: number[] = [];

    for (let i = 0; i < 40; i += 1) {
      const lease = granted(await clock.run(slots.acquire('ris-a.test', { intervalMs: 1_000 })));
      sentAt.push(clock.now());
      await lease.release();
    }

    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
    const stats = slots.stats();
    // Never closer than the interval, although every wake-up was late.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_000);
    // Slots were given up until the process knew its lateness, then it asked for 30 ms and the write's
    // guard instead of M.
    expect(stats.lateForfeits).toBeGreaterThan(0);
    expect(stats.lateForfeits).toBeLessThanOrEqual(16);
    expect(stats.sendAllowanceMs).toBe(30 + SEND_WRITE_GUARD_MS);
    // Slots 1 040 ms apart (interval + allowance): a late send and a punctual one still 1 s apart, and
    // the guard for a stall between check and write left over (no stall on this clock).
    expect(Math.min(...gaps.slice(-10))).toBe(1_000 + SEND_WRITE_GUARD_MS);
  });

  it('RATE-1: a slot not used in time is re-timed in place when nobody reserved after it, else it queues', async () => {
    const { acquire, t0, clock, slots } = setup();

    // Alone on its host: the slot moves to "now" — only the lateness is lost, not an interval.
    const alone = granted(await acquire('ris-a.test'));
    await clock.advance(400);
    const onTimeAfter400 = alone.onTime();
    const retimed = granted(await clock.run(alone.retime({ intervalMs: 1_000 })));
    const retimedOnTime = retimed.onTime();
    const next = granted(await acquire('ris-a.test'));

    // Another reservation already follows it: the late slot stays spent, the new one queues behind.
    const first = granted(await acquire('ris-b.test'));
    const follower = granted(await acquire('ris-b.test'));
    const queued = granted(await clock.run(first.retime({ intervalMs: 1_000 })));

    expect(onTimeAfter400).toBe(false);
    expect(retimedOnTime).toBe(true);
    expect(retimed.sendAtMs - t0).toBe(400);
    expect(next.sendAtMs - retimed.sendAtMs).toBe(1_000 + C);
    expect(queued.sendAtMs - follower.sendAtMs).toBe(1_000 + C);
    expect(slots.stats().lateForfeits).toBe(2);
  });

  it('RATE-7: processes that took turns on a host under Redis keep their phases alone, instead of all starting over when it failed', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const instances = 4;
    // Two processes' stores: under Redis they sent to the host in turn, 1 020 ms apart.
    const [a, b] = [new LocalSlotStore(clock, instances), new LocalSlotStore(clock, instances)];
    a.recordSend('ris-a.test', t0, M);
    b.recordSend('ris-a.test', t0 + 1_000 + M, M);
    await clock.advance(1_500); // Redis fails; both notice at once
    for (const store of [a, b]) {
      store.enterFallback(clock.now());
      store.assumeAllHostsUsedAt(clock.now());
    }
    const sendAt = (store: LocalSlotStore) => sendTimeOf(store, clock, M);
    const [a1, b1] = [await sendAt(a), await sendAt(b)];
    const [a2, b2] = [await sendAt(a), await sendAt(b)];
    // A host this process never reached: no phase it shares with the others, so no slot until Redis
    // answers again (fallback-phase.ts; before, one fallback interval after the failure, anyone's phase).
    const fresh = await a.reserve({ ...fallbackRequest(M), host: 'ris-b.test' });

    // Each on its own grid from its latest send under Redis, one step apart: (interval + the common
    // slack) × 5 slots with 4 instances (fallbackGrid).
    const step = (1_000 + SLACK) * 5;
    expect(fallbackGrid(instances, 1_000).stepMs).toBe(step);
    expect(a1 - t0).toBe(step);
    expect(b1 - t0).toBe(1_000 + M + step);
    expect(Math.abs(b1 - a1)).toBeGreaterThanOrEqual(1_000);
    expect(Math.abs(b2 - a2)).toBeGreaterThanOrEqual(1_000);
    expect(a2 - a1).toBe(step);
    expect(fresh).toMatchObject({
      kind: 'refused',
      freeInMs: Number.POSITIVE_INFINITY,
      noSharedPhase: 'never-sent',
    });
  });

  it('RATE-7 / RATE-1: over a long outage the grids of two processes do not drift into each other — one skips slots, the other asks for a larger allowance', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const instances = 4;
    const [a, b] = [new LocalSlotStore(clock, instances), new LocalSlotStore(clock, instances)];
    // Under Redis B sent right after A (A's slot + A's allowance + 1 s).
    a.recordSend('ris-a.test', t0, 120);
    b.recordSend('ris-a.test', t0 + 120 + 1_000, M);
    await clock.advance(1_500);
    for (const store of [a, b]) store.enterFallback(clock.now());
    const sends: Array<{ from: string; at: number; allowanceMs: number }> = [];
    // Forty rounds of a fallback step each: A (a lagging process, allowance 120 ms) sends every slot;
    // B is busy with a slow answer every other round and asks only then.
    for (let round = 0; round < 40; round += 1) {
      for (const [from, store, allowanceMs] of [
        ['a', a, 120],
        ['b', b, M],
      ] as const) {
        if (from === 'b' && round % 2 === 1) continue;
        sends.push({ from, at: await sendTimeOf(store, clock, allowanceMs), allowanceMs });
      }
      await clock.advance((1_000 + SLACK) * instances);
    }

    sends.sort((x, y) => x.at - y.at);
    // Each send may leave up to its allowance late: the gap to the next one, sent on time, must still be 1 s.
    const close = sends
      .slice(1)
      .map((send, i) => ({ gapMs: send.at - sends[i]!.at - sends[i]!.allowanceMs, at: i }))
      .filter((gap) => gap.gapMs < 1_000);
    expect(close).toEqual([]);
    for (const from of ['a', 'b']) {
      const own = sends.filter((send) => send.from === from);
      for (let i = 1; i < own.length; i += 1) {
        expect(own[i]!.at - own[i - 1]!.at - own[i - 1]!.allowanceMs).toBeGreaterThanOrEqual(4_000);
      }
    }
  });

  it('RATE-7 / RATE-1: four processes that took turns with larger allowances keep 1 s alone, also where the cycle wraps to the first', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const instances = 4;
    const allowanceMs = 90; // what lagging processes ask for on a loaded machine (politeness bench)
    const stores = Array.from({ length: instances }, () => new LocalSlotStore(clock, instances));
    // Under Redis each took the next slot: one interval after the previous slot plus its allowance.
    for (const [i, store] of stores.entries()) {
      store.recordSend('ris-a.test', t0 + i * (1_000 + allowanceMs), allowanceMs);
    }
    // Redis dies after the second slot, the last two still ahead (both places taken): the widest
    // spread of anchors a fallback keeps (fallback-phase.ts).
    await clock.advance(1_000 + allowanceMs + 50);
    for (const store of stores) store.enterFallback(clock.now());
    const sends: number[] = [];
    for (let round = 0; round < 10; round += 1) {
      for (const store of stores) {
        sends.push(await sendTimeOf(store, clock, allowanceMs));
      }
      await clock.advance((1_000 + SLACK) * instances);
    }
    sends.sort((x, y) => x - y);
    // Every send may leave a whole allowance late; the next one must still be 1 s after it.
    const close = sends.slice(1).filter((at, i) => at - sends[i]! - allowanceMs < 1_000);
    expect(close).toEqual([]);
  });

  it('RATE-7 / RATE-1: every grid slot carries the bounds of the Redis slot it descends from — its uncertainty and the allowance Redis spaced the next slot by — also when re-timed', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const store = new LocalSlotStore(clock, 4);
    // Under Redis: a slot placed on this clock up to 37 ms after where Redis put it (the clock
    // bracket's width), reserved with the minimum allowance; the next process's slot came 1 020 ms later.
    store.recordSend('ris-a.test', t0, M, 37);
    await clock.advance(1_500);
    store.enterFallback(clock.now());
    // Alone, the process now asks for a larger allowance (its sends run later after the kill).
    const first = await store.reserve(fallbackRequest(150));
    const second = await store.reserve(fallbackRequest(150));
    expect(first).toMatchObject({ kind: 'granted', uncertaintyMs: 37, maxAllowanceMs: M });
    expect(second).toMatchObject({ kind: 'granted', uncertaintyMs: 37, maxAllowanceMs: M });
    if (second.kind !== 'granted') throw new Error(second.kind);
    // The second slot given up for lateness and re-timed: the next grid slot, with the same bounds.
    const retimed = await store.reserve({ ...fallbackRequest(150), retime: second.token });
    expect(retimed).toMatchObject({ kind: 'granted', uncertaintyMs: 37, maxAllowanceMs: M });
    if (retimed.kind !== 'granted') throw new Error(retimed.kind);
    expect(retimed.token.sendAt - second.token.sendAt).toBe(fallbackGrid(4, 1_000).stepMs);
    // Local mode (no Redis, multiplier 1) has no grid and nothing to carry.
    const local = new LocalSlotStore(clock, 1);
    local.recordSend('ris-a.test', clock.now(), M, 37);
    const plain = await local.reserve(fallbackRequest(M));
    expect(plain).toMatchObject({ kind: 'granted', uncertaintyMs: 0 });
    expect(plain).not.toHaveProperty('maxAllowanceMs');
  });

  it('RATE-2: values below 1 s count as 1 s, and the largest interval on a host applies to all its fetches', async () => {
    const { acquire, t0, clock } = setup();

    const fast = await sendTimes(acquire, 'ris-a.test', 2, t0, 200);
    const slowSource = granted(await acquire('ris-a.test', 5_000));
    await slowSource.release();
    const otherFetch = granted(await acquire('ris-a.test', 1_000));
    await otherFetch.release();
    await clock.advance(5 * 60_000 + 10_000);
    const afterFiveMinutes = clock.now();
    const a = granted(await acquire('ris-a.test', 1_000));
    await a.release();
    const b = granted(await acquire('ris-a.test', 1_000));

    expect(fast).toEqual([0, 1_000 + C]);
    expect(slowSource.sendAtMs - t0).toBe(1_000 + C + 5_000 + C);
    // A fetch that only knows 1 s still keeps the 5 s noted for the host (RATE-2, "other fetches included").
    expect(otherFetch.sendAtMs - slowSource.sendAtMs).toBe(5_000 + C);
    expect(otherFetch.intervalMs).toBe(5_000);
    // … for 5 minutes after the change.
    expect(a.sendAtMs).toBe(afterFiveMinutes);
    expect(b.sendAtMs - a.sendAtMs).toBe(1_000 + C);
  });

  it('RATE-4: at most two requests in flight per host; the third waits for a release', async () => {
    const { clock, slots, acquire } = setup();
    const first = granted(await acquire('ris-a.test'));
    const second = granted(await acquire('ris-a.test'));

    let third: AcquireResult | undefined;
    const pending = slots.acquire('ris-a.test', { intervalMs: 1_000 }).then((r) => {
      third = r;
      return r;
    });
    await clock.advance(30_000);
    const stillWaiting = third === undefined;
    await first.release();
    const lease = granted(await clock.run(pending));

    expect(stillWaiting).toBe(true);
    expect(lease.sendAtMs).toBe(clock.now());
    expect(lease.sendAtMs - second.sendAtMs).toBeGreaterThanOrEqual(1_000 + C);
    expect((await slots.hostState('ris-a.test')).inFlight).toBe(2);
  });

  it('RATE-5: a redirect moves the in-flight place to the target and takes a slot in its pace', async () => {
    const { clock, slots, acquire, t0 } = setup();
    const a1 = granted(await acquire('ris-a.test'));
    const a2 = granted(await acquire('ris-a.test'));
    const b1 = granted(await acquire('ris-b.test'));

    const moved = granted(await clock.run(a1.moveTo('https://RIS-B.test/x', { intervalMs: 1_000 })));
    const a3 = granted(await acquire('ris-a.test')); // would wait forever if a1's place had not moved
    const sameHostHop = granted(await clock.run(moved.moveTo('ris-b.test', { intervalMs: 1_000 })));

    expect(moved.host).toBe('ris-b.test');
    expect(moved.sendAtMs - b1.sendAtMs).toBe(1_000 + C);
    expect(a3.sendAtMs - a2.sendAtMs).toBe(1_000 + C);
    // RATE-1: a hop to the same host needs its own slot too.
    expect(sameHostHop.sendAtMs - moved.sendAtMs).toBe(1_000 + C);
    expect((await slots.hostState('ris-b.test')).inFlight).toBe(2);
    expect(t0).toBeLessThan(moved.sendAtMs);
  });

  it('RATE-8: Retry-After holds the host back (capped at 24 h) and never shortens a pause', async () => {
    const { slots, acquire, t0 } = setup();
    await slots.noteRetryAfter('ris-a.test', 48 * 3_600_000);
    await slots.noteRetryAfter('ris-a.test', 10_000);

    const state = await slots.hostState('ris-a.test');
    const probe = await acquire('ris-a.test', 1_000, { maxWaitMs: 5_000 });
    const lease = granted(await acquire('ris-a.test'));
    const next = granted(await acquire('ris-b.test'));

    expect(state.retryAfterUntilMs! - t0).toBe(24 * 3_600_000);
    expect(probe).toMatchObject({ granted: false, reason: 'max-wait', retryAtMs: t0 + 24 * 3_600_000 });
    expect(lease.sendAtMs - t0).toBe(24 * 3_600_000);
    expect(next.host).toBe('ris-b.test');
  });

  it('ROB-10: Crawl-delay is a lower bound of the interval, capped at 60 s, and shows in status', async () => {
    const { slots, acquire, t0 } = setup();
    await slots.noteCrawlDelay('ris-a.test', 120_000);
    await slots.noteCrawlDelay('ris-b.test', 3_000);
    await slots.noteCrawlDelay('ris-c.test', 500);

    const a = await sendTimes(acquire, 'ris-a.test', 2, t0);
    const b0 = granted(await acquire('ris-b.test'));
    await b0.release();
    const b1 = granted(await acquire('ris-b.test'));
    const c = await sendTimes(acquire, 'ris-c.test', 2, b1.sendAtMs);

    expect(a[1]! - a[0]!).toBe(60_000 + C);
    expect(b1.sendAtMs - b0.sendAtMs).toBe(3_000 + C);
    expect(c[1]! - c[0]!).toBe(1_000 + C); // a smaller Crawl-delay never speeds up RATE-1
    expect((await slots.hostState('ris-a.test')).crawlDelayMs).toBe(60_000);
  });

  it('max wait: a slot beyond the budget is refused and nothing is reserved', async () => {
    const { slots, acquire, clock } = setup();
    const held = granted(await acquire('ris-a.test'));
    const before = await slots.hostState('ris-a.test');

    const refused = await acquire('ris-a.test', 1_000, { maxWaitMs: 500 });
    const after = await slots.hostState('ris-a.test');
    const next = granted(await acquire('ris-a.test'));

    expect(refused).toEqual({
      granted: false,
      reason: 'max-wait',
      host: 'ris-a.test',
      retryAtMs: held.sendAtMs + 1_000 + C,
    });
    expect(after).toEqual(before);
    // The refused call did not take the slot: the next caller gets it.
    expect(next.sendAtMs).toBe(held.sendAtMs + 1_000 + C);
    expect(clock.now()).toBe(next.sendAtMs);
  });

  // The fetcher turns such a refusal into its HOST_SLOT_TIMEOUT (test/fetch/budget-events.test.ts).
  it('max wait also bounds waiting for an in-flight place, each caller its own budget', async () => {
    const { slots, acquire, clock } = setup();
    granted(await acquire('ris-a.test'));
    granted(await acquire('ris-a.test'));

    const started = clock.now();
    const refused = await acquire('ris-a.test', 1_000, { maxWaitMs: 5_000 });
    const refusedSooner = await acquire('ris-a.test', 1_000, { maxWaitMs: 100 });

    expect(refused).toMatchObject({ granted: false, reason: 'max-wait' });
    expect(refusedSooner).toMatchObject({ granted: false, reason: 'max-wait' });
    expect(clock.now() - started).toBe(5_100);
    expect((await slots.hostState('ris-a.test')).inFlight).toBe(2);
  });

  it('abort: a caller waiting for its slot gives up with the signal reason; the slot stays spent', async () => {
    const { slots, acquire, clock, t0 } = setup();
    const first = granted(await acquire('ris-a.test'));
    const controller = new AbortController();

    const waiting = slots.acquire('ris-a.test', { intervalMs: 1_000, signal: controller.signal });
    await settle();
    controller.abort(new Error('request cancelled'));
    const outcome = await waiting.catch((e: Error) => e.message);
    await first.release();

    const stateAfter = await slots.hostState('ris-a.test');
    const next = granted(await acquire('ris-a.test'));

    expect(outcome).toBe('request cancelled');
    expect(stateAfter.inFlight).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(next.sendAtMs - t0).toBe(2 * (1_000 + C));
  });

  it('release is idempotent and a released lease cannot free a place twice', async () => {
    const { slots, acquire } = setup();
    const lease = granted(await acquire('ris-a.test'));
    const other = granted(await acquire('ris-a.test'));

    await Promise.all([lease.release(), lease.release()]);
    await lease.release();

    expect((await slots.hostState('ris-a.test')).inFlight).toBe(1);
    await other.release();
  });

  it.each([
    [{ intervalMs: Number.NaN }, /intervalMs/],
    [{ intervalMs: 61_000 }, /noteRetryAfter/],
    [{ intervalMs: 1_000, maxWaitMs: -1 }, /maxWaitMs/],
    [{ intervalMs: 1_000, leaseTtlMs: 10 }, /leaseTtlMs/],
  ])('rejects bad options %j with SLOT_OPTIONS_INVALID', async (opts, message) => {
    const { slots }: { slots: PacedHostSlots } = setup();

    const error = await slots.acquire('ris-a.test', opts).catch((e: unknown) => e);

    expect(isIngestorError(error, 'SLOT_OPTIONS_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
