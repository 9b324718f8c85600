/**
 * The sync function: a worker keeping runs of distinct hosts in flight (refilled from the queue), one run per message (claim, engine, outcome, lease) and its host
 * lane (the host's waiting runs, one after another), starting a run (`startRun`, also the planner's), and its runtime (the fetch runtime it builds on is
 * `shared/fetch-runtime`'s). Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export {
  BUDGET_RESERVE_MS,
  processSyncBody,
  type SyncBodyResult,
  type SyncLog,
} from './batch';
export { composeSync, type SyncRuntime, type SyncRuntimeOptions } from './compose';
export { LANE_START_MIN_MS, type LaneStep, runLane } from './lane';
export type { SyncLane, SyncMessage } from './message';
export { runSyncMessage, type SyncRunResult } from './run';
export { idleScheduleState, type RunStart, type RunStartDeps, startRun } from './start';
export {
  handleSyncBatch,
  runSyncWorker,
  SYNC_WAKE_BODY,
  type SyncQueuePort,
  type SyncWorkerDeps,
  type SyncWorkerReport,
  WAKE_LEASE_SECONDS,
  WORKER_RUNS_AT_ONCE,
  WORKER_RUNS_PER_HOST,
  WORKER_START_MIN_MS,
  type WorkerMessage,
} from './worker';
