/**
 * The sync function: one SQS batch, one run per message (claim, engine, outcome, lease), and its runtime. Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export { BUDGET_RESERVE_MS, handleSyncBatch, processSyncBody, type SyncLog } from './batch';
export type { SyncMessage } from './message';
export { runSyncMessage, type SyncRunResult } from './run';
export {
  createFetchRuntime,
  createSyncRuntime,
  HOST_INTERVAL_REFRESH_MS,
  type SyncRuntime,
  type SyncRuntimeOptions,
} from './runtime';
