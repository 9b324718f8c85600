import { gbSeconds } from './model';
import { PRICES } from './prices';

/**
 * Issue 28: how many sync workers to keep on provisioned concurrency (infra/sync-provisioned.ts applies
 * the count). Pure: the worker model's distribution of invocations alive and the month's billed seconds
 * in, the cheapest count out.
 *
 * With k instances configured, every second of the month bills k × memory at the provisioned price,
 * used or not; a second with j workers alive runs min(j, k) of them on those instances at the lower
 * provisioned duration price and the max(0, j − k) above them on-demand (Lambda's spill-over). The
 * mean alone would hide that: an instance idle in the seconds the fleet has no worker alive still bills.
 * Requests cost the same either way. The always-free tier does not apply to a function with provisioned
 * concurrency (bench/cost/model.ts marks its items), so the decision is at list price: the bill's.
 */
export interface ProvisionedInput {
  /** Seconds with exactly i workers alive at index i (bench/cost/worker-model.ts `aliveSeconds`). */
  aliveSeconds: readonly number[];
  /** The function's memory (MB): every GB-s below is at it, whatever sizes it (infra/function-sizes.ts). */
  memoryMb: number;
  /** The month's billed seconds of the function (all workers' wall time), split by the distribution. */
  billedSeconds: number;
  /** Seconds in the month: what one configured instance bills. */
  secondsPerMonth: number;
  /** USD per GB-s: on-demand, provisioned (configured) and duration on provisioned instances. */
  usdPerGbSecond?: { onDemand: number; provisioned: number; provisionedDuration: number };
}

export interface ProvisionedChoice {
  instances: number;
  /** GB-s of configured concurrency (instances × memory × the month). */
  provisionedGbSeconds: number;
  /** Billed seconds that run on the configured instances, and those that spill over on-demand. */
  secondsOnProvisioned: number;
  secondsOnDemand: number;
  /** The GB-s part of the month (requests excluded: the same either way), USD at list price. */
  usd: number;
}

const LIST_USD = {
  onDemand: PRICES.lambdaGbSecondArm.usd,
  provisioned: PRICES.lambdaProvisionedConcurrencyGbSecondArm.usd,
  provisionedDuration: PRICES.lambdaProvisionedDurationGbSecondArm.usd,
};

/** The month with `instances` configured (pure; 0 = all on-demand). */
export function provisionedChoice(instances: number, input: ProvisionedInput): ProvisionedChoice {
  const usd = input.usdPerGbSecond ?? LIST_USD;
  let workerSeconds = 0;
  let covered = 0;
  input.aliveSeconds.forEach((seconds, alive) => {
    workerSeconds += seconds * alive;
    covered += seconds * Math.min(alive, instances);
  });
  // The simulated seconds give the shares; the bill's seconds (its run stream, its CPU floor) the amount.
  const share = workerSeconds === 0 ? 0 : covered / workerSeconds;
  const secondsOnProvisioned = input.billedSeconds * share;
  const secondsOnDemand = input.billedSeconds - secondsOnProvisioned;
  const provisionedGbSeconds = gbSeconds(instances * input.secondsPerMonth, input.memoryMb);
  return {
    instances,
    provisionedGbSeconds,
    secondsOnProvisioned,
    secondsOnDemand,
    usd:
      provisionedGbSeconds * usd.provisioned +
      gbSeconds(secondsOnProvisioned, input.memoryMb) * usd.provisionedDuration +
      gbSeconds(secondsOnDemand, input.memoryMb) * usd.onDemand,
  };
}

/**
 * Every count from 0 to the most workers ever alive (more would only idle), and the cheapest of them —
 * on a tie the fewer instances (nothing paid for that does not pay back).
 */
export function decideProvisioned(input: ProvisionedInput): {
  instances: number;
  choices: ProvisionedChoice[];
} {
  const most = input.aliveSeconds.reduce((top, seconds, alive) => (seconds > 0 ? alive : top), 0);
  const choices = Array.from({ length: most + 1 }, (_, k) => provisionedChoice(k, input));
  const best = choices.reduce((a, b) => (b.usd < a.usd ? b : a));
  return { instances: best.instances, choices };
}
