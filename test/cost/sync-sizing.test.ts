import { describe, expect, it } from 'vitest';
import { syncNeedMb, syncSizing } from '../../bench/cost/sync-sizing';
import { FUNCTION_MEMORY_MB, SYNC_MEMORY_HEADROOM, SYNC_WORKER_MEMORY } from '../../infra/function-sizes';
import { WORKER_RUNS_AT_ONCE } from '../../shared/sync';

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

  it('the built sync holds its worker with the headroom', () => {
    expect(FUNCTION_MEMORY_MB.sync).toBeGreaterThanOrEqual(
      syncNeedMb(WORKER_RUNS_AT_ONCE) * SYNC_MEMORY_HEADROOM,
    );
  });
});
