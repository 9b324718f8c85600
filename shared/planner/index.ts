/**
 * The planner: one tick (decide per source, lease, enqueue; it never fetches) and `explain` (status). Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */

export { composePlanner, type PlannerComposition } from './compose';
export { type HostConditionsRead, readHostConditions } from './conditions';
export {
  explainFleet,
  explainSources,
  type FleetStatus,
  type HostStatus,
  type SourceStatus,
} from './explain';
export { type FleetInput, type FleetPlan, planFleet } from './fleet';
export {
  decideManualSync,
  decideStoredManualSync,
  type ManualSyncAsk,
  type ManualSyncDecision,
  type ManualSyncDeps,
  type ManualSyncQuestion,
  type ManualSyncStart,
  startManualSync,
} from './manual';
export { emitPlannerMetrics } from './pause-metrics';
export { runPlannerInvocation } from './run';
export {
  STARVED_AFTER_STRETCHED_INTERVALS,
  STARVED_MIN_OVERDUE_MINUTES,
  type Starvation,
  type StarvationCandidate,
  type StarvedSource,
  starvationOf,
} from './starvation';
export {
  type PlannedHost,
  type PlannerCache,
  type PlannerDeps,
  type PlannerTickResult,
  plannerTick,
  scheduleStateOf,
} from './tick';
export {
  syncWorkersToStart,
  type WakeDeps,
  type WakeInput,
  type WakeResult,
  wakeSyncWorkers,
} from './wake';
