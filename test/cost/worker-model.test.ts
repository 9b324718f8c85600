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
    const bound = simulateWorker({ ...base, slots: 3 });
    expect(bound.meanRunsInFlight).toBeLessThanOrEqual(3);
    expect(bound.meanQueueWaitSeconds).toBeLessThan(2);
  });
});
