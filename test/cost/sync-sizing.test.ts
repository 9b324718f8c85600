import { describe, expect, it } from 'vitest';
import { syncNeedMb, syncSizing, tightMemoryMb } from '../../bench/cost/sync-sizing';
import {
  FUNCTION_MEMORY_MB,
  SYNC_MEMORY_HEADROOM,
  SYNC_PLANNER_WORKER,
  SYNC_WORKER_MEMORY,
} from '../../infra/function-sizes';

/**
 * Issue 28: the sync's memory and the worker's width are chosen by cost among the sizes that hold the
 * measured need with the stated headroom (bench/cost/sync-sizing.ts). The price here is a made-up
 * function, so the choice can be checked by hand; the bench prices with its own bill.
 */
describe('sync function sizing (issue 28)', () => {
  it('needs the bundle plus each run’s measured share', () => {
    expect(syncNeedMb(0)).toBe(SYNC_WORKER_MEMORY.bundleImportMb);
    expect(syncNeedMb(20) - syncNeedMb(10)).toBeCloseTo(10 * SYNC_WORKER_MEMORY.mbPerRun, 9);
  });

  it('never prices a size that does not hold its runs with the headroom, and marks the cheapest that does', () => {
    // GB-s ∝ memory, and wider workers share an invocation's wall time among more runs.
    const eurOf = (memoryMb: number, runs: number) => memoryMb / runs;
    const rows = syncSizing({ memoriesMb: [128, 256, 512], runsAtOnce: [10, 20, 40] }, eurOf, 1.4);
    for (const r of rows) expect(r.fits).toBe(r.memoryMb >= syncNeedMb(r.runsAtOnce) * 1.4);
    expect(rows.filter((r) => !r.fits).every((r) => Number.isNaN(r.syncEur))).toBe(true);
    const cheapest = rows.filter((r) => r.cheapest);
    expect(cheapest).toHaveLength(1);
    const best = cheapest[0];
    for (const r of rows.filter((x) => x.fits)) expect(best?.syncEur).toBeLessThanOrEqual(r.syncEur);
    // 40 runs need ≈ 243 MB, × 1.4 > 256: the cheapest by price alone (128 MB × 40) is not chosen.
    expect(rows.find((r) => r.memoryMb === 128 && r.runsAtOnce === 40)?.fits).toBe(false);
  });

  it('prices each width at its tight size too: the least whole MB that holds it with the headroom', () => {
    const memory = { bundleImportMb: 80, mbPerRun: 2.5 };
    // 80 + 34 × 2.5 = 165 MB, × 1.4 = 231 MB: fits at 231, not at 230.
    expect(tightMemoryMb(34, 1.4, memory)).toBe(231);
    // Lambda's floor: a tiny need still gets 128 MB.
    expect(tightMemoryMb(0, 1.4, { bundleImportMb: 10, mbPerRun: 1 })).toBe(128);
    // Price ∝ memory ÷ width: among the round sizes 256 × 34 would win; the tight 231 × 34 is cheaper.
    const rows = syncSizing({ memoriesMb: [256, 512], runsAtOnce: [34] }, (m, r) => m / r, 1.4, memory);
    expect(rows.map((r) => [r.memoryMb, r.fits])).toEqual([
      [231, true],
      [256, true],
      [512, true],
    ]);
    expect(rows.find((r) => r.cheapest)?.memoryMb).toBe(231);
    // One MB less than the tight size does not hold the need with the headroom.
    expect(230).toBeLessThan(syncNeedMb(34, memory) * 1.4);
  });

  it('the built sync holds its worker’s width with the headroom (the planner’s trigger, the default)', () => {
    expect(SYNC_PLANNER_WORKER.memoryMb).toBe(FUNCTION_MEMORY_MB.sync);
    expect(FUNCTION_MEMORY_MB.sync).toBeGreaterThanOrEqual(
      syncNeedMb(SYNC_PLANNER_WORKER.runsAtOnce) * SYNC_MEMORY_HEADROOM,
    );
  });
});
