import { env } from '../shared/config';
import {
  composePlanner,
  type PlannerComposition,
  type PlannerTickResult,
  runPlannerInvocation,
} from '../shared/planner';

/**
 * Planner Lambda (EventBridge Scheduler, every minute): decide, lease, enqueue. It never fetches. Wired
 * once per instance by `composePlanner` (shared/planner/compose.ts); a failed build is tried anew on the
 * next tick. Not `warmRuntime`: an unreadable Upstash secret must not stop the planner (it plans without
 * the host ledger then, see composePlanner).
 */
let planner: PlannerComposition | undefined;

export const handler = async (): Promise<PlannerTickResult> => {
  planner ??= await composePlanner(env());
  return runPlannerInvocation(planner, new Date());
};
