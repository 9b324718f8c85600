import { describe, expect, it } from 'vitest';
import { SHARED_STORE_RETRY_MS as RETRY } from '../../shared/slots';
import { afterOutcome, type FailoverState, ON_SHARED_STORE, storeUse } from '../../shared/slots/failover';

// RATE-7's decision alone (failover.ts): which outcome of a store call makes a process quiet, paced
// alone, or back on Redis. The I/O around it: partial-outage.test.ts and failover.test.ts.
describe('RATE-7 failover decision', () => {
  const T = 1_000_000;
  const entered = (): FailoverState => {
    const { state, switched } = afterOutcome(ON_SHARED_STORE, { kind: 'no-answer', sentMs: T - 2_000 }, T);
    expect(switched).toBe('entered');
    return state;
  };

  it('a first failure, answered or not, makes the process quiet until Redis is asked again', () => {
    const quiet = entered();
    expect(storeUse(quiet, T)).toBe('quiet');
    expect(storeUse(quiet, T + RETRY - 1)).toBe('quiet');
    expect(storeUse(quiet, T + RETRY)).toBe('shared');
    expect(afterOutcome(ON_SHARED_STORE, { kind: 'failed' }, T).state).toEqual(quiet);
  });

  it('a late answer of the timed-out call ends the quiet at once: Redis is slow, not gone', () => {
    const { state, switched } = afterOutcome(entered(), { kind: 'answered' }, T + 500);
    expect(switched).toBe('restored');
    expect(storeUse(state, T + 500)).toBe('shared');
  });

  it('a retry that fails outright paces the process alone until the next retry', () => {
    const { state, switched } = afterOutcome(entered(), { kind: 'failed' }, T + RETRY + 5);
    expect(switched).toBe('retry-failed');
    expect(storeUse(state, T + RETRY + 5)).toBe('alone');
    expect(storeUse(state, T + 2 * RETRY + 5)).toBe('shared');
  });

  it('a retry that got no answer in time keeps the process quiet until its answer comes or is lost', () => {
    const retrySent = T + RETRY;
    const awaiting = afterOutcome(entered(), { kind: 'no-answer', sentMs: retrySent }, retrySent + 2_000);
    expect(awaiting.switched).toBeUndefined();
    expect(storeUse(awaiting.state, retrySent + 10 * RETRY)).toBe('quiet');
    // Failures of other calls meanwhile, and the loss of an older call's answer, decide nothing.
    expect(afterOutcome(awaiting.state, { kind: 'failed' }, retrySent + 3_000).state).toBe(awaiting.state);
    expect(
      afterOutcome(awaiting.state, { kind: 'answer-lost', sentMs: T - 2_000 }, retrySent + 3_000).state,
    ).toBe(awaiting.state);
    // Answered late: back on Redis. Lost: alone from then on, Redis asked again a retry period later.
    expect(afterOutcome(awaiting.state, { kind: 'answered' }, retrySent + 4_000).switched).toBe('restored');
    const lost = afterOutcome(awaiting.state, { kind: 'answer-lost', sentMs: retrySent }, retrySent + 60_000);
    expect(lost.switched).toBe('retry-failed');
    expect(storeUse(lost.state, retrySent + 60_000)).toBe('alone');
    expect(lost.state.quietUntilMs).toBe(retrySent + 60_000);
    expect(storeUse(lost.state, retrySent + 60_000 + RETRY)).toBe('shared');
  });

  it('a failure that lands after the switch (a call begun before it) does not push the retry out', () => {
    const quiet = entered();
    expect(afterOutcome(quiet, { kind: 'failed' }, T + 1_000).state).toBe(quiet);
    expect(afterOutcome(quiet, { kind: 'no-answer', sentMs: T - 500 }, T + 1_000).state).toBe(quiet);
  });
});
