import { describe, expect, it } from 'vitest';
import { simulateWorker, type WorkerModelInput } from '../../bench/cost/worker-model';

/**
 * Issue 28 "pay per work": the cost bench bills the sync worker as built (shared/sync/worker.ts) from
 * this simulation of a run stream. Small cases an operator can check by hand.
 */
const base: WorkerModelInput = {
  runsPerMinute: 6,
  runs: [{ seconds: 60, weight: 1 }],
  runsAtOnce: 10,
  maxInvocations: 2,
  slots: 20,
  batchSize: 10,
  refill: true,
  startBySeconds: 810,
  runBudgetSeconds: 840,
  minutes: 240,
  warmupMinutes: 30,
};

describe('the sync worker cost model (issue 28)', () => {
  it('Little’s law: runs in flight = arrivals × duration (6 a minute × 60 s ≈ 6)', () => {
    const r = simulateWorker(base);
    expect(r.meanRunsInFlight).toBeGreaterThan(5);
    expect(r.meanRunsInFlight).toBeLessThan(7);
  });

  it('issue 28: the seconds by workers alive cover every measured second and give the mean alive', () => {
    const r = simulateWorker(base);
    const seconds = r.aliveSeconds.reduce((n, s) => n + s, 0);
    expect(seconds).toBe(base.minutes * 60);
    const mean = r.aliveSeconds.reduce((n, s, alive) => n + s * alive, 0) / seconds;
    expect(mean).toBeCloseTo(r.meanInvocationsAlive, 9);
    // ≈ 6 runs of 60 s in flight, 10 a worker, at most 2: some seconds with none, most with one.
    expect(r.aliveSeconds.length).toBeLessThanOrEqual(base.maxInvocations + 1);
    expect(r.aliveSeconds[1] ?? 0).toBeGreaterThan(r.aliveSeconds[0] ?? 0);
  });

  it('one run per invocation bills every run second; a worker of ten runs of distinct hosts bills far less', () => {
    const single = simulateWorker({ ...base, runsAtOnce: 1, batchSize: 1, maxInvocations: 100 });
    expect(single.billedPerRunSecond).toBeCloseTo(1, 5);
    const worker = simulateWorker(base);
    // Before the worker: batches of what a tick's burst gave each poller, no refill.
    const batches = simulateWorker({ ...base, refill: false, batchSize: 2, maxInvocations: 20 });
    expect(batches.billedPerRunSecond).toBeGreaterThan(0.45);
    expect(worker.billedPerRunSecond).toBeLessThan(batches.billedPerRunSecond / 1.5);
    // ≈ 6 runs in flight in one or two invocations.
    expect(worker.billedPerRunSecond).toBeLessThan(0.35);
    expect(worker.meanInvocationsAlive).toBeLessThanOrEqual(2);
    expect(worker.invocationsPerRun).toBeLessThan(0.2);
  });

  it('runs at once share the function’s CPU: past a demand of 1 they stretch, and an invocation bills at least their work', () => {
    const free = simulateWorker(base);
    // A run that keeps 1 % of the CPU share busy: 6 of them at once are nowhere near it.
    const light = simulateWorker({ ...base, runs: [{ seconds: 60, weight: 1, cpu: 0.01 }] });
    expect(light.billedPerRunSecond).toBeCloseTo(free.billedPerRunSecond, 5);
    // Half the share each: ≈ 6 at once demand ≈ 3 shares, so the CPU binds — every run second of work
    // costs at least half a billed second, and runs stay in flight longer (they advance slower).
    const heavy = simulateWorker({ ...base, runs: [{ seconds: 60, weight: 1, cpu: 0.5 }] });
    expect(heavy.billedPerRunSecond).toBeGreaterThanOrEqual(0.5 * 0.95);
    expect(heavy.billedPerRunSecond).toBeGreaterThan(free.billedPerRunSecond * 1.4);
    expect(heavy.meanRunsInFlight).toBeGreaterThan(free.meanRunsInFlight * 1.5);
  });

  it('SCH-5: runs longer than an invocation are cut and continued, never lost; slots bound the runs in flight', () => {
    const long = simulateWorker({
      ...base,
      runsPerMinute: 0.5,
      runs: [{ seconds: 2_000, weight: 1 }],
      slots: 40,
    });
    // 0.5 a minute × 2,000 s ≈ 16.7 in flight; the cut runs' rests come back as continuations.
    expect(long.meanRunsInFlight).toBeGreaterThan(14);
    expect(long.meanRunsInFlight).toBeLessThan(19);
    // A continuation waited for no tick: its rest is no queue wait (counted from t = 0 it was thousands).
    expect(long.meanQueueWaitSeconds).toBeLessThan(60);
    const bound = simulateWorker({ ...base, slots: 3 });
    expect(bound.meanRunsInFlight).toBeLessThanOrEqual(3);
    expect(bound.meanQueueWaitSeconds).toBeLessThan(2);
  });

  // A stream whose tick brings a burst: 30 runs of 20 s a minute, ≈ 10 in flight on average.
  const bursty: WorkerModelInput = {
    ...base,
    runsPerMinute: 30,
    runs: [{ seconds: 20, weight: 1 }],
    runsAtOnce: 20,
    maxInvocations: 5,
    slots: 60,
  };

  it('SCH-5: the handout spread delays a tick’s runs inside its minute, and spreads the runs in flight', () => {
    const burst = simulateWorker(bursty);
    const spread = simulateWorker({ ...bursty, spreadSeconds: 55 });
    // Message i of n waits ⌊i × 55 ÷ n⌋ s: ≈ 27 s on average, never the next tick.
    expect(burst.meanQueueWaitSeconds).toBeLessThan(1);
    expect(spread.meanQueueWaitSeconds).toBeGreaterThan(20);
    expect(spread.meanQueueWaitSeconds).toBeLessThan(30);
    // The same runs, in flight one after another instead of all at the tick.
    expect(spread.meanRunsInFlight).toBeCloseTo(burst.meanRunsInFlight, 0);
    expect(spread.maxRunsInFlight).toBeLessThan(burst.maxRunsInFlight / 1.5);
  });

  it('if live workers took every spread message first, one invocation would carry the stream', () => {
    // 60 runs a tick, ≈ 20 in flight: a worker of 40 could hold them all.
    const wide = { ...bursty, runsPerMinute: 60, runsAtOnce: 40, slots: 120 };
    const burst = simulateWorker(wide);
    const spread = simulateWorker({ ...wide, spreadSeconds: 55 });
    // The burst opens batches of ten (5 invocations at each tick); spread, the live one takes them.
    expect(burst.meanInvocationsAlive).toBeGreaterThan(1.5);
    expect(spread.meanInvocationsAlive).toBeLessThan(1.3);
    expect(spread.billedPerRunSecond).toBeLessThan(burst.billedPerRunSecond / 1.3);
  });

  it('with the event source’s pollers beside the workers, spread messages open invocations up to its cap', () => {
    const withPollers = { ...bursty, eventSourcePollers: 5 };
    const burst = simulateWorker(withPollers);
    const spread = simulateWorker({ ...withPollers, spreadSeconds: 55 });
    // Below the cap, five pollers against one or two workers' polls win most messages: each opens
    // an invocation, which then lives on its own refills — the spread keeps the cap alive.
    expect(spread.meanInvocationsAlive).toBeGreaterThan(burst.meanInvocationsAlive * 1.3);
    expect(spread.meanInvocationsAlive).toBeLessThanOrEqual(5);
    expect(spread.billedPerRunSecond).toBeGreaterThan(burst.billedPerRunSecond);
    // At the cap the pollers stop: with a cap of 2 the spread costs little beyond the burst.
    const capped = simulateWorker({ ...withPollers, maxInvocations: 2, spreadSeconds: 55 });
    expect(capped.meanInvocationsAlive).toBeLessThanOrEqual(2);
    expect(capped.billedPerRunSecond).toBeLessThan(spread.billedPerRunSecond);
  });

  it('a cap from the runs in flight makes the burst wait for live workers: fewer invocations, a short wait', () => {
    // 60 runs of 20 s a tick, ≈ 20 in flight, a worker of 20: the slots' cap (120 ÷ 20 = 6) opens an
    // invocation per batch of ten at every tick; 1.5 × 20 ÷ 20 → 2 holds 40 at once.
    const stream = { ...bursty, runsPerMinute: 60, slots: 120, eventSourcePollers: 5 };
    const slotsCap = simulateWorker({ ...stream, maxInvocations: 6 });
    const meanCap = simulateWorker({ ...stream, maxInvocations: 2 });
    expect(meanCap.meanInvocationsAlive).toBeLessThanOrEqual(2);
    expect(meanCap.billedPerRunSecond).toBeLessThan(slotsCap.billedPerRunSecond / 1.3);
    expect(meanCap.maxRunsInFlight).toBeLessThanOrEqual(40);
    // Every admitted run still starts, later by the queue's wait — well inside SCH-5's lease.
    expect(meanCap.meanRunsInFlight).toBeCloseTo(slotsCap.meanRunsInFlight, 0);
    expect(meanCap.meanQueueWaitSeconds).toBeGreaterThan(slotsCap.meanQueueWaitSeconds);
    expect(meanCap.meanQueueWaitSeconds).toBeLessThan(60);
  });
});

describe('sync workers started by the planner (issue 28, what-if priced against the event source)', () => {
  // A tick's burst of 40 runs, most of 20 s, 1 in 20 of 4 minutes (≈ 20 in flight, as at 1,000 sources).
  const stream: WorkerModelInput = {
    ...base,
    runsPerMinute: 40,
    runs: [
      { seconds: 20, weight: 19 },
      { seconds: 240, weight: 1 },
    ],
    slots: 120,
    eventSourcePollers: 5,
  };

  it('SCH-5: the event source cannot go below two invocations; the planner’s one wide worker holds the stream alone', () => {
    // The event source at its floor of 2 with workers of 20: both stay alive, each with part of the tail.
    const eventSource = simulateWorker({ ...stream, runsAtOnce: 20, maxInvocations: 2 });
    expect(eventSource.meanInvocationsAlive).toBeGreaterThan(1.6);
    // The planner's cap of 1 with a worker of 40: never a second invocation.
    const planner = simulateWorker({ ...stream, runsAtOnce: 40, maxInvocations: 1, trigger: 'planner' });
    expect(planner.meanInvocationsAlive).toBeLessThanOrEqual(1);
    expect(planner.maxRunsInFlight).toBeLessThanOrEqual(40);
    // Twice the width costs less than twice the memory: 40 runs need ≈ 1.4× the memory of 20, not 2×.
    expect(planner.meanInvocationsAlive * 1.4).toBeLessThan(eventSource.meanInvocationsAlive);
    // Every admitted run still starts: what waits, waits for the worker's room inside the lease.
    expect(planner.meanRunsInFlight).toBeCloseTo(eventSource.meanRunsInFlight, -1);
    expect(planner.meanQueueWaitSeconds).toBeLessThan(60);
  });

  it('with a cap from the slots the planner starts a worker per burst share: dearer, as the event source was', () => {
    const capped = simulateWorker({ ...stream, runsAtOnce: 20, maxInvocations: 2, trigger: 'planner' });
    const open = simulateWorker({ ...stream, runsAtOnce: 20, maxInvocations: 6, trigger: 'planner' });
    expect(open.maxRunsInFlight).toBeGreaterThan(40);
    expect(open.meanQueueWaitSeconds).toBeLessThan(capped.meanQueueWaitSeconds);
    expect(open.meanInvocationsAlive).toBeGreaterThan(capped.meanInvocationsAlive * 1.2);
  });

  it('no worker alive and nothing queued: the planner starts none; a queued run gets one at the next tick', () => {
    const idle = simulateWorker({ ...stream, runsPerMinute: 0, trigger: 'planner', maxInvocations: 1 });
    expect(idle.meanInvocationsAlive).toBe(0);
    const sparse = simulateWorker({
      ...stream,
      runsPerMinute: 0.2,
      runs: [{ seconds: 20, weight: 1 }],
      trigger: 'planner',
      maxInvocations: 1,
    });
    // One run every five minutes: a worker per tick that brings runs (no wait), gone after them.
    expect(sparse.meanQueueWaitSeconds).toBeLessThan(1);
    expect(sparse.invocationsPerRun).toBeGreaterThan(0.8);
    expect(sparse.invocationsPerRun).toBeLessThanOrEqual(1);
    expect(sparse.meanInvocationsAlive).toBeLessThan(0.1);
  });
});
