import { describe, expect, it } from 'vitest';
import {
  plannerSyncWorkers,
  SQS_MIN_MAX_CONCURRENCY,
  SYNC_BURST_FACTOR,
  syncMaxConcurrency,
} from '../../infra/sync-concurrency';

/** Issue 28: the sync event source's cap from the runs in flight (pure; the stack's synth in stack.test.ts). */
describe('syncMaxConcurrency (issue 28)', () => {
  const at = (maxConcurrentSyncs: number, syncRunsInFlight?: number, runsAtOnce = 20) =>
    syncMaxConcurrency({ maxConcurrentSyncs, syncRunsInFlight, runsAtOnce });

  it('SCH-5: ⌈1.5 × mean ÷ width⌉, never above the slots ÷ width, never below SQS’s 2', () => {
    expect(SYNC_BURST_FACTOR).toBe(1.5);
    expect(at(100, 21)).toBe(2); // 31.5 ÷ 20
    expect(at(100, 40)).toBe(3); // 60 ÷ 20
    expect(at(100, 41)).toBe(4); // 61.5 ÷ 20
    expect(at(100, 90)).toBe(5); // 135 ÷ 20 = 7, but 100 slots fill 5 workers
    expect(at(100)).toBe(5); // unset: the slots alone, as before
    expect(at(4, 1)).toBe(SQS_MIN_MAX_CONCURRENCY);
    expect(at(45, 20, 10)).toBe(3); // width 10: 30 ÷ 10 (slots alone: 5)
  });

  it('refuses a mean above the slots or not positive', () => {
    expect(() => at(8, 9)).toThrow(/at most maxConcurrentSyncs \(8\)/);
    expect(() => at(8, 0)).toThrow(/syncRunsInFlight/);
    expect(() => at(8, Number.NaN)).toThrow(/syncRunsInFlight/);
  });
});

describe('plannerSyncWorkers (issue 28)', () => {
  const at = (maxConcurrentSyncs: number, syncRunsInFlight?: number, runsAtOnce = 34) =>
    plannerSyncWorkers({ maxConcurrentSyncs, syncRunsInFlight, runsAtOnce });

  it('SCH-5: the event source’s reckoning without SQS’s floor of 2 — one worker where one holds the runs', () => {
    expect(at(91, 22.3)).toBe(1); // 1.5 × 22.3 = 33.45 ÷ 34
    expect(at(91, 22.3, 20)).toBe(2); // the event source's width: 2 either way
    expect(at(903, 215)).toBe(10); // 322.5 ÷ 34
    expect(at(91)).toBe(3); // unset: the slots alone
    expect(() => at(8, 9)).toThrow(/at most maxConcurrentSyncs/);
  });
});
