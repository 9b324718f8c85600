/**
 * The planner: one tick (decide per source, lease, enqueue; it never fetches) and `explain` (status). Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export { explainSources } from './explain';
export {
  type PlannerCache,
  type PlannerDeps,
  type PlannerTickResult,
  plannerTick,
  scheduleStateOf,
} from './tick';
