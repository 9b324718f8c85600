import type { QueueDepth, SyncQueue } from '../store';
import { SQS_BATCH_MAX } from '../store';
import { SYNC_WAKE_BODY } from '../sync';

/**
 * Issue 28 "pay per work": with the `planner` trigger (infra/stack.ts `syncTrigger`) no event source
 * watches the sync queue; the planner, after its handout, starts the sync workers itself by sending wake
 * messages, and each worker takes its runs from the sync queue until it holds nothing. The event
 * source's floor of two invocations is gone: at 1,000 sources one worker of 34 runs holds what two of
 * 20 did (bench/cost/worker-model.ts). Politeness is not decided here: every run still takes its claim
 * (SCH-5) and every request its Redis host slot (RATE-1/RATE-4); this only decides how many invocations
 * hold the runs.
 */
export interface WakeInput {
  /** The sync queue after this tick's handout: visible and delayed runs wait, taken ones run. */
  sync: QueueDepth;
  /**
   * The wake queue: every wake not yet deleted is a worker alive (hidden while it lives, see
   * shared/sync/worker.ts WAKE_LEASE_SECONDS) or about to start (visible).
   */
  wakes: QueueDepth;
  /** Runs one worker keeps in flight. */
  runsAtOnce: number;
  /** The most workers alive (infra/sync-concurrency.ts plannerSyncWorkers). */
  maxWorkers: number;
}

/**
 * Workers to start now (pure): when runs wait, ⌈(runs taken + waiting) ÷ width⌉, at most `maxWorkers`,
 * less every worker alive or starting. None alive and a run waiting: at least one — no run is left
 * without a worker past the tick (the counts are approximate; the next tick reads them again).
 */
export function syncWorkersToStart(input: WakeInput): number {
  const waiting = input.sync.visible + input.sync.delayed;
  if (waiting === 0) return 0;
  const alive = input.wakes.visible + input.wakes.inFlight + input.wakes.delayed;
  const wanted = Math.min(input.maxWorkers, Math.ceil((input.sync.inFlight + waiting) / input.runsAtOnce));
  return Math.max(0, wanted - alive);
}

export interface WakeDeps {
  syncQueue: Pick<SyncQueue, 'depth'>;
  wakeQueue: Pick<SyncQueue, 'depth' | 'sendBatch'>;
  runsAtOnce: number;
  maxWorkers: number;
}

export interface WakeResult {
  /** Workers started by this tick. */
  started: number;
  /** Workers alive or starting before it. */
  alive: number;
  /** Runs waiting in the sync queue when it looked. */
  waiting: number;
}

/** Reads both queues and sends the wakes `syncWorkersToStart` decides. */
export async function wakeSyncWorkers(deps: WakeDeps): Promise<WakeResult> {
  const [sync, wakes] = await Promise.all([deps.syncQueue.depth(), deps.wakeQueue.depth()]);
  const started = syncWorkersToStart({
    sync,
    wakes,
    runsAtOnce: deps.runsAtOnce,
    maxWorkers: deps.maxWorkers,
  });
  for (let sent = 0; sent < started; sent += SQS_BATCH_MAX) {
    const n = Math.min(SQS_BATCH_MAX, started - sent);
    await deps.wakeQueue.sendBatch(
      Array.from({ length: n }, (_, i) => ({ id: `w${sent + i}`, body: SYNC_WAKE_BODY })),
    );
  }
  return {
    started,
    alive: wakes.visible + wakes.inFlight + wakes.delayed,
    waiting: sync.visible + sync.delayed,
  };
}
