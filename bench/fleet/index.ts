import { LATENCY_SECONDS, RUN_REQUESTS } from './model';
import { simulateFleet } from './simulate';
import type { Allocation, FleetSimResult } from './types';

export { simulateFleet } from './simulate';
export type { Allocation, FleetSimOptions, FleetSimResult } from './types';

/**
 * `npm run bench -- fleet` (issue 27, RATE-9): a simulated week of the whole fleet with the real planner
 * decisions and both allocations — today's `planSyncSlots` and the per-host admission — on one seeded
 * world (model and assumptions: ./model.ts and ./simulate.ts). One JSON line: per fleet size and
 * allocation the figures the issue asks for; `today` must show the problem (`starvedSyncs` > 0).
 * `fairness` measures RATE-9's promise — each source served at its host's factor in force, against what
 * its own cadence asks (./asked.ts) —, with the week's share and the raw count beside it, and per
 * saturated host the sources at both ends (`saturatedHostDetail`).
 *
 * Knobs (environment): FLEET_SOURCES (comma-separated sizes, default 1000), FLEET_DAYS (default 7),
 * FLEET_SLOTS_PER_1000 (SCH-5 slots per 1,000 sources, default 64), FLEET_ALLOCATIONS (default
 * "today,per-host,lanes" — `lanes`: the per-host admission with host lanes), FLEET_SEED,
 * FLEET_WARMUP_HOURS (default 24) and FLEET_WEEK_START (local, e.g. 2026-11-30T07:00: a part of a day at
 * 10,000 sources, where a week takes tens of CPU-minutes).
 */
export interface FleetBenchOptions {
  sizes?: number[];
  days?: number;
  slotsPer1000?: number;
  allocations?: Allocation[];
  seed?: number;
  warmupHours?: number;
  weekStart?: string;
  log?: (line: string) => void;
}

export interface FleetBenchResult {
  days: number;
  slotsPer1000: number;
  seed: number;
  model: {
    requestsPerRun: typeof RUN_REQUESTS;
    latencySeconds: typeof LATENCY_SECONDS;
  };
  runs: FleetSimResult[];
}

/** SCH-5 default for the bench: enough slots that the fleet is bound by hosts, not by slots. */
export const DEFAULT_SLOTS_PER_1000 = 64;

export function fleetBenchOptionsFromEnv(env: NodeJS.ProcessEnv): FleetBenchOptions {
  const numbers = (v: string | undefined) =>
    v === undefined
      ? undefined
      : v
          .split(',')
          .map((x) => Number(x.trim()))
          .filter((x) => Number.isFinite(x) && x > 0);
  const options: FleetBenchOptions = {};
  const sizes = numbers(env.FLEET_SOURCES);
  if (sizes && sizes.length > 0) options.sizes = sizes;
  const days = numbers(env.FLEET_DAYS)?.[0];
  if (days !== undefined) options.days = days;
  const slots = numbers(env.FLEET_SLOTS_PER_1000)?.[0];
  if (slots !== undefined) options.slotsPer1000 = slots;
  const seed = numbers(env.FLEET_SEED)?.[0];
  if (seed !== undefined) options.seed = seed;
  const warmupHours = numbers(env.FLEET_WARMUP_HOURS)?.[0];
  if (warmupHours !== undefined) options.warmupHours = warmupHours;
  if (env.FLEET_WEEK_START) options.weekStart = env.FLEET_WEEK_START.trim();
  if (env.FLEET_ALLOCATIONS) {
    options.allocations = env.FLEET_ALLOCATIONS.split(',')
      .map((x) => x.trim())
      .filter((x): x is Allocation => x === 'today' || x === 'per-host' || x === 'lanes');
  }
  return options;
}

export async function runFleetBench(options: FleetBenchOptions = {}): Promise<FleetBenchResult> {
  const sizes = options.sizes ?? [1000];
  const days = options.days ?? 7;
  const slotsPer1000 = options.slotsPer1000 ?? DEFAULT_SLOTS_PER_1000;
  const allocations = options.allocations ?? ['today', 'per-host', 'lanes'];
  const seed = options.seed ?? 27;
  const runs: FleetSimResult[] = [];
  for (const sources of sizes) {
    for (const allocation of allocations) {
      const slots = Math.max(1, Math.round((sources * slotsPer1000) / 1000));
      options.log?.(`fleet: ${sources} sources, ${allocation}, ${slots} slots, ${days} days …`);
      const result = simulateFleet({
        sources,
        allocation,
        slots,
        days,
        seed,
        ...(options.warmupHours !== undefined ? { warmupHours: options.warmupHours } : {}),
        ...(options.weekStart !== undefined ? { weekStart: options.weekStart } : {}),
      });
      options.log?.(
        `fleet: ${sources} ${allocation} done in ${result.wallSeconds} s (${result.cpuSeconds} s CPU)`,
      );
      runs.push(result);
    }
  }
  return {
    days,
    slotsPer1000,
    seed,
    model: { requestsPerRun: RUN_REQUESTS, latencySeconds: LATENCY_SECONDS },
    runs,
  };
}
