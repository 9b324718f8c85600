import { describe, expect, it } from 'vitest';
import { applyFreeTier } from '../../bench/cost/free-tier';
import { emptyUsage, priceUsage } from '../../bench/cost/model';
import { PRICES, USD_TO_EUR } from '../../bench/cost/prices';
import { decideProvisioned, type ProvisionedInput, provisionedChoice } from '../../bench/cost/provisioned';

/**
 * Issue 28: the sync workers on provisioned concurrency (bench/cost/provisioned.ts). Round prices
 * (on-demand 10, provisioned 2.5, duration on it 5 per GB-s) at 1,024 MB, so every figure is by hand:
 * an instance pays back once it is busy more than 2.5 ÷ (10 − 5) = half the month.
 */
const usdPerGbSecond = { onDemand: 10, provisioned: 2.5, provisionedDuration: 5 };
const month = 1_000;
const input = (aliveSeconds: number[], billedSeconds?: number): ProvisionedInput => ({
  aliveSeconds,
  memoryMb: 1024,
  // By default the bill's seconds are the simulated worker seconds scaled to the month.
  billedSeconds:
    billedSeconds ??
    (aliveSeconds.reduce((n, s, alive) => n + s * alive, 0) / aliveSeconds.reduce((n, s) => n + s, 0)) *
      month,
  secondsPerMonth: month,
  usdPerGbSecond,
});

describe('sync workers on provisioned concurrency (issue 28)', () => {
  it('one worker alive 93 % of the month: one instance (2.5 + 0.93 × 5 = 7.15 against 9.3 a second)', () => {
    const d = decideProvisioned(input([7, 93]));
    expect(d.instances).toBe(1);
    expect(d.choices.map((c) => c.usd)).toEqual([expect.closeTo(9_300, 6), expect.closeTo(2_500 + 4_650, 6)]);
    expect(d.choices[1]?.secondsOnDemand).toBeCloseTo(0, 9);
  });

  it('an instance busy less than half the month bills more than on-demand: none', () => {
    expect(decideProvisioned(input([55, 45])).instances).toBe(0);
    expect(decideProvisioned(input([45, 55])).instances).toBe(1);
  });

  it('priced from the distribution, not the mean: the second instance pays only for the seconds two are alive', () => {
    // Mean 1.1 alive. Two seconds in ten with two workers: the second instance is busy 20 % — idle 80 %.
    const d = decideProvisioned(input([1, 7, 2]));
    expect(d.instances).toBe(1);
    const one = d.choices[1];
    // 1,100 worker-seconds: 900 on the instance (the 700 with one, 200 of the 400 with two), 200 spill over.
    expect(one?.secondsOnProvisioned).toBeCloseTo(900, 6);
    expect(one?.secondsOnDemand).toBeCloseTo(200, 6);
    expect(one?.usd).toBeCloseTo(2_500 + 900 * 5 + 200 * 10, 6);
    // Two instances: 5,000 configured + 1,100 × 5 = 10,500 > 9,000 with one; none: 11,000.
    expect(d.choices[2]?.usd).toBeCloseTo(10_500, 6);
    expect(d.choices[0]?.usd).toBeCloseTo(11_000, 6);
    // Busier: two alive 70 % of the time → the second instance pays back too.
    expect(decideProvisioned(input([0, 3, 7])).instances).toBe(2);
  });

  it("the memory is the function's: every figure scales with it, the decision does not move", () => {
    const at1024 = decideProvisioned(input([7, 93]));
    const at320 = decideProvisioned({ ...input([7, 93]), memoryMb: 320 });
    expect(at320.instances).toBe(at1024.instances);
    expect(at320.choices[1]?.usd).toBeCloseTo(((at1024.choices[1]?.usd ?? 0) * 320) / 1024, 6);
  });

  it("the bill's seconds (its CPU floor) are split by the distribution's shares", () => {
    const c = provisionedChoice(1, input([1, 7, 2], 2_200));
    expect(c.secondsOnProvisioned).toBeCloseTo(1_800, 6);
    expect(c.secondsOnDemand).toBeCloseTo(400, 6);
  });

  it('no worker ever alive: nothing to provision', () => {
    const d = decideProvisioned(input([10], 0));
    expect(d.instances).toBe(0);
    expect(d.choices).toHaveLength(1);
  });

  it('list prices: provisioned ≈ ¼ and its duration ≈ 0.58 of on-demand Arm (break-even busy 60 %)', () => {
    const od = PRICES.lambdaGbSecondArm.usd;
    const pc = PRICES.lambdaProvisionedConcurrencyGbSecondArm.usd;
    const pd = PRICES.lambdaProvisionedDurationGbSecondArm.usd;
    expect(pc / (od - pd)).toBeCloseTo(0.6, 3);
    expect(decideProvisioned({ ...input([41, 59]), usdPerGbSecond: undefined }).instances).toBe(0);
    expect(decideProvisioned({ ...input([39, 61]), usdPerGbSecond: undefined }).instances).toBe(1);
  });

  it('the bill: instances, duration on them, spill-over on-demand; no free tier for such a function', () => {
    const usage = emptyUsage();
    const gb = 1; // 1,024 MB
    usage.lambda.sync = {
      invocations: 10_000,
      seconds: 2_000_000,
      memoryMb: 1024,
      arch: 'arm64',
      provisioned: { instances: 1, gbSeconds: 2_600_000, secondsOnProvisioned: 1_800_000 },
    };
    usage.lambda.planner = { invocations: 40_000, seconds: 100_000, memoryMb: 1024, arch: 'arm64' };
    const cost = priceUsage(usage);
    const items = cost.services.lambda?.items ?? {};
    expect(items['sync GB-s']?.quantity).toBeCloseTo(200_000 * gb, 6);
    expect(items['sync provisioned duration GB-s']?.quantity).toBeCloseTo(1_800_000 * gb, 6);
    expect(items['sync provisioned concurrency GB-s']?.eur).toBeCloseTo(
      2_600_000 * PRICES.lambdaProvisionedConcurrencyGbSecondArm.usd * USD_TO_EUR,
      6,
    );
    const free = applyFreeTier(cost);
    // Only the planner's 100,000 GB-s and 40,000 requests are in the allowances; the sync's 200,000
    // spill-over GB-s would have been, without provisioned concurrency.
    expect(free.byAllowance.lambdaGbSeconds?.used).toBeCloseTo(100_000, 6);
    expect(free.byAllowance.lambdaRequests?.used).toBe(40_000);
    const withoutPc = applyFreeTier(
      priceUsage({
        ...usage,
        lambda: { ...usage.lambda, sync: { ...usage.lambda.sync, provisioned: undefined } },
      }),
    );
    expect(withoutPc.byAllowance.lambdaGbSeconds?.used).toBeCloseTo(2_100_000, 6);
  });
});
