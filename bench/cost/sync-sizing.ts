import { SYNC_MEMORY_HEADROOM, SYNC_WORKER_MEMORY } from '../../infra/function-sizes';

/**
 * Issue 28: the sync function's memory and its worker's width chosen by cost. Pure: the measured memory
 * of the worker (infra/function-sizes.ts SYNC_WORKER_MEMORY) and a price per (memory, width) in, every
 * candidate out with what it needs, whether it fits with the stated headroom, and its monthly €; the
 * cheapest that fits is marked. The price comes from the cost bench's own bill (bench/cost.ts), so CPU
 * stretching below 1,769 MB and the waits' overlap are the model's, not this file's.
 */
export interface SyncSizingRow {
  memoryMb: number;
  runsAtOnce: number;
  /** The bundle's import plus the runs' measured live memory (MB). */
  needMb: number;
  /** memory ÷ need. */
  headroom: number;
  fits: boolean;
  /** The sync function's Lambda € a month (GB-s and invocations) at this size. */
  syncEur: number;
  cheapest: boolean;
}

/** A worker's measured memory (SYNC_WORKER_MEMORY's shape). */
export interface SyncWorkerMemory {
  bundleImportMb: number;
  mbPerRun: number;
}

/** Memory a worker of `runsAtOnce` runs needs: the bundle's import and each run's share, measured. */
export function syncNeedMb(runsAtOnce: number, memory: SyncWorkerMemory = SYNC_WORKER_MEMORY): number {
  return memory.bundleImportMb + runsAtOnce * memory.mbPerRun;
}

/**
 * Lambda takes any memory from 128 MB to 10,240 MB in 1-MB steps: the smallest size that holds a width's
 * need with the headroom is a size like any other, not only the round ones.
 */
export const LAMBDA_MEMORY_MIN_MB = 128;

/** The smallest Lambda memory (whole MB) that holds `runsAtOnce` runs with `headroom`. */
export function tightMemoryMb(
  runsAtOnce: number,
  headroom = SYNC_MEMORY_HEADROOM,
  memory: SyncWorkerMemory = SYNC_WORKER_MEMORY,
): number {
  return Math.max(LAMBDA_MEMORY_MIN_MB, Math.ceil(syncNeedMb(runsAtOnce, memory) * headroom));
}

/**
 * Every (memory, width) of the candidates, and (issue 28, function memory) for each width the tight
 * size too: a wait-bound worker's bill is ∝ its memory, so the MB between the need × headroom and the
 * next round size are paid for nothing.
 */
export function syncSizing(
  candidates: { memoriesMb: readonly number[]; runsAtOnce: readonly number[] },
  syncEurOf: (memoryMb: number, runsAtOnce: number) => number,
  headroom = SYNC_MEMORY_HEADROOM,
  memory: SyncWorkerMemory = SYNC_WORKER_MEMORY,
): SyncSizingRow[] {
  const rows: SyncSizingRow[] = [];
  for (const runsAtOnce of candidates.runsAtOnce) {
    const sizes = [...new Set([...candidates.memoriesMb, tightMemoryMb(runsAtOnce, headroom, memory)])];
    for (const memoryMb of sizes.sort((a, b) => a - b)) {
      const needMb = syncNeedMb(runsAtOnce, memory);
      const fits = memoryMb >= needMb * headroom;
      rows.push({
        memoryMb,
        runsAtOnce,
        needMb,
        headroom: memoryMb / needMb,
        fits,
        // A size that does not fit is not priced: the bill would be for a function that runs out of memory.
        syncEur: fits ? syncEurOf(memoryMb, runsAtOnce) : Number.NaN,
        cheapest: false,
      });
    }
  }
  const fitting = rows.filter((r) => r.fits);
  const best = fitting.reduce<SyncSizingRow | undefined>(
    (b, r) => (b === undefined || r.syncEur < b.syncEur ? r : b),
    undefined,
  );
  if (best) best.cheapest = true;
  return rows;
}
