// Planner Lambda (EventBridge Scheduler, every minute): decides which sources are due and enqueues syncs.
// Wiring lands with the planner slice; the CDK stack bundles this entry.
export const handler = async (): Promise<{ enqueued: number }> => {
  throw new Error('planner not wired yet');
};
