/**
 * Issue 28: sync workers kept on provisioned concurrency — an alias of the sync function with this many
 * instances initialised all month, which the wake queue's event source invokes (infra/stack.ts). Pure, no
 * CDK import, so the bench loads it cheaply.
 *
 * Why: a worker is alive most of the month (0.93 on average at 1,000 sources), and an instance kept
 * provisioned bills its configured GB-s (≈ ¼ of the on-demand rate) plus a lower duration rate for what
 * runs on it (≈ 0.58 of on-demand); above the count, workers spill over on-demand as before. Decided by
 * cost in `npm run bench -- cost` (`syncProvisioned`, bench/cost/provisioned.ts) from the worker model's
 * distribution of workers alive at the sync's memory (FUNCTION_MEMORY_MB.sync): a count is only worth
 * it while its instances are busy enough — an idle one bills its configured price for nothing.
 *
 * Politeness is untouched: an instance kept initialised fetches nothing until the planner's wake
 * invokes it, and the event source's maximum concurrency (RATE-7's count) bounds invocations as before.
 */

/** The context key (`cdk deploy -c syncProvisioned=<count>`; 0 = none, no alias). */
export const SYNC_PROVISIONED_CONTEXT = 'syncProvisioned';

/** The alias the wake queue's event source invokes when instances are provisioned. */
export const SYNC_ALIAS_NAME = 'live';

/**
 * From `npm run bench -- cost` (`syncProvisioned[]`, 2026-12-03), per fleet size: the count cheapest at
 * list price (320 MB × 34 runs, the planner's trigger; docs/scale.md "sync-provisioned"). The sync line a
 * month, none → the count: 1,000 sources one worker alive 92.7 % of the time, €8.73 → €7.45; 10,000
 * (9.24 alive on average, 10 at most) 9 instances, €86.16 → €73.39; 100,000 (87.1 on average, 94 at
 * most) 87, €806.49 → €681.63. An instance pays back once it is busy more than 60 % of the month
 * (provisioned 3.3334 ÷ (on-demand 13.3334 − its duration 7.7778), bench/cost/prices.ts).
 */
export const DECIDED_SYNC_PROVISIONED: readonly { fleet: number; instances: number }[] = [
  { fleet: 1_000, instances: 1 },
  { fleet: 10_000, instances: 9 },
  // Issue 28 (function memory, 2026-12-03): at 227 MB with SYNC_MALLOC's CPU (+31 %) 89.6 workers alive
  // on average at 100,000: 93 the cheapest (€502.50 a month; 87: €504.92). 1,000 and 10,000 unchanged.
  { fleet: 100_000, instances: 93 },
];

/** The decided count for a fleet: the plan of the largest fleet at or below it, else the smallest's. */
export function syncProvisionedFor(
  fleetSources: number,
  plans: readonly { fleet: number; instances: number }[] = DECIDED_SYNC_PROVISIONED,
): number {
  const sorted = [...plans].sort((a, b) => a.fleet - b.fleet);
  return (sorted.filter((p) => p.fleet <= fleetSources).pop() ?? sorted[0])?.instances ?? 0;
}

/**
 * The count to deploy (pure): the context value when given — a whole number from 0 to the event
 * source's maximum concurrency: more instances could never all be invoked, and would bill their
 * configured price idle — else the decided count for the fleet, at most that maximum (a stack whose
 * SCH-5 slots or `syncRunsInFlight` allow fewer workers than the fleet's plan keeps fewer).
 */
export function syncProvisionedOf(input: {
  raw: unknown;
  fleetSources: number;
  maxConcurrency: number;
}): number {
  const { raw, fleetSources, maxConcurrency } = input;
  if (raw === undefined || raw === null || String(raw).trim() === '')
    return Math.min(syncProvisionedFor(fleetSources), maxConcurrency);
  const value = Number(String(raw).trim());
  if (!Number.isInteger(value) || value < 0 || value > maxConcurrency) {
    throw new Error(
      `context ${SYNC_PROVISIONED_CONTEXT} must be a whole number from 0 (none) to the sync event source's maximum concurrency ${maxConcurrency}, got "${String(raw)}": more instances than can be invoked at once would bill idle`,
    );
  }
  return value;
}
