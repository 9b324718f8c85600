/**
 * The sync event source's maximum concurrency (issue 28), in one place for the stack and the cost model
 * (bench/cost.ts). Pure, no CDK import, so the bench loads it cheaply.
 */

/** Lambda's SQS event source refuses a maximum concurrency below 2. */
export const SQS_MIN_MAX_CONCURRENCY = 2;

/**
 * Headroom of the cap over the runs the sync keeps in flight on average: 1.5×. The worker model
 * (bench/cost/worker-model.ts, docs/scale.md "The sync's bursts") at 1,000 sources: with 1.5 × Little's
 * mean a tick's burst waits ≈ 10.6 s mean in the queue for the live workers (< 60 s for every run; the
 * nightly full syncs ≈ 25 s), far inside the 25-minute lease — and no invocation is opened per burst.
 */
export const SYNC_BURST_FACTOR = 1.5;

export interface SyncConcurrencyInput {
  /** SCH-5's slots (`maxConcurrentSyncs`): the most runs the planner ever has in flight. */
  maxConcurrentSyncs: number;
  /**
   * The runs the sync keeps in flight on average (Little: run-seconds ÷ seconds; `npm run bench -- cost`
   * prints it as `week.concurrentRunsNeeded`). Unset: every slot — the cap from the slots alone.
   */
  syncRunsInFlight?: number | undefined;
  /** Runs one sync invocation holds at once (WORKER_RUNS_AT_ONCE). */
  runsAtOnce: number;
}

/**
 * Invocations the event source may run at once (pure). Each invocation is a worker holding up to
 * `runsAtOnce` runs and refilling from the queue itself, so the cap needs only enough of them for the
 * runs in flight (× SYNC_BURST_FACTOR); a higher cap lets a tick's burst open invocations of its own,
 * each billed for its own waits (€26.17 → €14.53 a month at 1,000 sources). Never above SCH-5's slots ÷
 * the width (more could not be busy), never below SQS's minimum. A cap too low only makes runs wait in
 * the queue: host slots decide every request (RATE-*), the planner's slots stay SCH-5's.
 */
export function syncMaxConcurrency(input: SyncConcurrencyInput): number {
  checkRunsInFlight(input);
  return Math.max(SQS_MIN_MAX_CONCURRENCY, capOf(input));
}

/**
 * Issue 28: the most sync workers the planner keeps alive when it starts them itself (`syncTrigger`
 * `planner`, infra/stack.ts): the same reckoning as the event source's cap — 1.5 × the runs in flight ÷
 * the width, at most SCH-5's slots ÷ it — without SQS's floor of 2, which at 1,000 sources kept two
 * invocations alive, each holding part of a tick's runs (bench/cost/worker-model.ts: 1.87 invocations
 * alive at 256 MB × 20 against 0.93 at 320 MB × 34 with one worker).
 */
export function plannerSyncWorkers(input: SyncConcurrencyInput): number {
  checkRunsInFlight(input);
  return Math.max(1, capOf(input));
}

/** 1.5 × the runs in flight ÷ the width (unset: every slot), at most SCH-5's slots ÷ the width. */
function capOf(input: SyncConcurrencyInput): number {
  const fromSlots = Math.ceil(input.maxConcurrentSyncs / input.runsAtOnce);
  if (input.syncRunsInFlight === undefined) return fromSlots;
  return Math.min(fromSlots, Math.ceil((SYNC_BURST_FACTOR * input.syncRunsInFlight) / input.runsAtOnce));
}

/** A mean of runs in flight (a fraction is fine) never exceeds the slots the planner fills (SCH-5). */
function checkRunsInFlight({ syncRunsInFlight: mean, maxConcurrentSyncs }: SyncConcurrencyInput): void {
  if (mean === undefined) return;
  if (!Number.isFinite(mean) || mean <= 0 || mean > maxConcurrentSyncs) {
    throw new Error(
      `syncRunsInFlight must be a number > 0 and at most maxConcurrentSyncs (${maxConcurrentSyncs}), got ${mean}: raise maxConcurrentSyncs or lower syncRunsInFlight`,
    );
  }
}
