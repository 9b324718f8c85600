import { describe, expect, it } from 'vitest';
import { deletionRun } from '../../bench/cost/deletion-model';
import { upstashPlanOf } from '../../bench/cost/model';
import { PRICES, UPSTASH_FIXED_PLANS, UPSTASH_PAYG_FREE_BANDWIDTH_GB } from '../../bench/cost/prices';
import { DEL_SAMPLE_INTERVAL_MS, DEL_SOURCES_PER_SHARD } from '../../shared/documents';

/** Issue 28: the cost model's Upstash plan by bandwidth and the deletion check in shards (pure arithmetic). */
describe('cost model: Upstash by bandwidth, the deletion check in shards (issue 28)', () => {
  it('bills the smallest fixed plan that carries the bandwidth, or pay-as-you-go when cheaper', () => {
    // 51 M commands, 36 GB: pay-as-you-go 102 USD; Fixed 250 MB (50 GB) 10 USD.
    expect(upstashPlanOf({ commands: 51e6, bandwidthGb: 36 }).plan?.name).toBe('Fixed 250 MB');
    // 309 GB is beyond 250 MB's 50 GB and 1 GB's 100 GB: Fixed 5 GB (500 GB).
    const tenK = upstashPlanOf({ commands: 440e6, bandwidthGb: 309 });
    expect(tenK.plan?.name).toBe('Fixed 5 GB');
    expect(tenK.payAsYouGoUsd).toBeCloseTo(
      440e6 * PRICES.upstashCommand.usd +
        (309 - UPSTASH_PAYG_FREE_BANDWIDTH_GB) * PRICES.upstashPaygBandwidthGb.usd,
      6,
    );
    expect(upstashPlanOf({ commands: 4.3e9, bandwidthGb: 2_987 }).plan?.name).toBe('Fixed 50 GB');
    // Few commands: pay-as-you-go (no plan), its bandwidth within the free share.
    const small = upstashPlanOf({ commands: 1e6, bandwidthGb: 0.7 });
    expect(small.plan).toBeUndefined();
    expect(small.paidBandwidthGb).toBe(0);
    // Beyond every plan's bandwidth: pay-as-you-go with its bandwidth billed.
    const huge = upstashPlanOf({ commands: 1e9, bandwidthGb: 30_000 });
    expect(huge.plan).toBeUndefined();
    expect(huge.paidBandwidthGb).toBe(30_000 - UPSTASH_PAYG_FREE_BANDWIDTH_GB);
    // Plans ascend in bandwidth and price.
    for (let i = 1; i < UPSTASH_FIXED_PLANS.length; i++) {
      const [a, b] = [UPSTASH_FIXED_PLANS[i - 1], UPSTASH_FIXED_PLANS[i]];
      expect(b?.bandwidthGb).toBeGreaterThan(a?.bandwidthGb ?? 0);
      expect(PRICES[b?.price ?? 'upstashFixedMonth'].usd).toBeGreaterThan(
        PRICES[a?.price ?? 'upstashFixedMonth'].usd,
      );
    }
  });

  const run = (sources: number, cpuSecondsPerSourceRun = 0.02) =>
    deletionRun({
      sources,
      storedFilesPerSource: 2_000,
      headSeconds: 0.3,
      runSeconds: 780,
      memoryMb: 512,
      serversAtOnce: 100,
      cpuSecondsPerCheck: 0.005,
      cpuSecondsPerSourceRun,
    });

  it('DEL-2: shards grow with the fleet, and each shard keeps the weekly sample at 1,000 / 10,000 / 100,000', () => {
    for (const sources of [1_000, 10_000, 100_000]) {
      const r = run(sources);
      expect(r.shards).toBe(Math.max(1, Math.ceil(sources / DEL_SOURCES_PER_SHARD)));
      expect(r.sampleIntervalMs).toBe(DEL_SAMPLE_INTERVAL_MS);
      expect(r.secondsPerRun).toBeLessThanOrEqual(780);
    }
  });

  it('DEL-2: when the per-source loads take the run, the sample interval stretches (and is infinite when nothing is left)', () => {
    // 2,000 sources × 0.2 s × 3.45 (512 MB) ≈ 1,380 s of loads > 780 s: no time left for samples.
    expect(run(2_000, 0.2).sampleIntervalMs).toBe(Number.POSITIVE_INFINITY);
    const stretched = run(2_000, 0.09);
    expect(stretched.sampleIntervalMs).toBeGreaterThan(DEL_SAMPLE_INTERVAL_MS);
    expect(stretched.secondsPerRun).toBe(780);
  });
});
