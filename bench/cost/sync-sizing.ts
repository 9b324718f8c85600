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

/** Memory a worker of `runsAtOnce` runs needs: the bundle's import and each run's share, measured. */
export function syncNeedMb(runsAtOnce: number, memory = SYNC_WORKER_MEMORY): number {
  return memory.bundleImportMb + runsAtOnce * memory.mbPerRun;
}

export function syncSizing(
  candidates: { memoriesMb: readonly number[]; runsAtOnce: readonly number[] },
  syncEurOf: (memoryMb: number, runsAtOnce: number) => number,
  headroom = SYNC_MEMORY_HEADROOM,
): SyncSizingRow[] {
  const rows: SyncSizingRow[] = [];
  for (const memoryMb of candidates.memoriesMb)
    for (const runsAtOnce of candidates.runsAtOnce) {
      const needMb = syncNeedMb(runsAtOnce);
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
  const fitting = rows.filter((r) => r.fits);
  const best = fitting.reduce<SyncSizingRow | undefined>(
    (b, r) => (b === undefined || r.syncEur < b.syncEur ? r : b),
    undefined,
  );
  if (best) best.cheapest = true;
  return rows;
}
