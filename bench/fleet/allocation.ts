import {
  fullSyncSlots,
  planSyncSlots,
  type ScheduleSettings,
  type SourceDecision,
} from '../../shared/schedule';

/**
 * Today's allocation (SCH-5, FULL-3), as `shared/planner/tick.ts` makes it: every due `sync` decision
 * goes to `planSyncSlots`, whatever its host. The planner hands it the whole due list each tick; at
 * 10,000 sources that list holds thousands of waiting runs, and `planSyncSlots` sorts it with a luxon
 * parse per comparison — too slow for a simulated week. So the bench first keeps only the decisions that
 * can start now, by the same order, and hands those to the real `planSyncSlots`: the result is the same
 * (test/bench-fleet/allocation.test.ts compares both on random lists).
 *
 * Why the reduction is exact: `planSyncSlots` starts the first min(free, free full) full syncs by the
 * FULL-3 order (oldest last full sync first); every other full whose incremental is due falls back to an
 * incremental (trigger `schedule`, same `dueAt`) and joins the incrementals, which fill the slots left
 * by the SCH-5 order (manual first, then the longest overdue, then the id). Keeping those first fulls
 * plus the first `free` of that merged incremental order keeps every decision that can start.
 */
export function reduceForSlots(
  decisions: readonly SourceDecision[],
  freeSlots: number,
  freeFullSlots: number,
): SourceDecision[] {
  if (freeSlots <= 0) return [];
  const seen = new Set<string>();
  const fullStarts = Math.min(freeSlots, Math.max(0, freeFullSlots));
  // The first `fullStarts` fulls by FULL-3's order; the others may fall back to an incremental.
  const firstFulls = new TopK<SourceDecision>(fullStarts, byOldestFull);
  const fullsAfter: SourceDecision[] = [];
  const incrementals = new TopK<SourceDecision>(freeSlots, byUrgencyMs);
  for (const d of decisions) {
    if (d.action !== 'sync' || d.kind === undefined || seen.has(d.sourceId)) continue;
    seen.add(d.sourceId);
    if (d.kind === 'incremental') incrementals.offer(d);
    else {
      const pushedOut = firstFulls.offer(d);
      if (pushedOut !== undefined) fullsAfter.push(pushedOut);
    }
  }
  // A fallback is started as trigger `schedule`, with the full decision's `dueAt`.
  for (const d of fullsAfter) if (d.incrementalDue) incrementals.offer({ ...d, trigger: 'schedule' }, d);
  return [...firstFulls.items(), ...incrementals.items()];
}

/** The k first items by `compare`, kept in a small sorted list (k is the few slots free at a tick). */
class TopK<T> {
  private readonly kept: { rank: T; item: T }[] = [];
  constructor(
    private readonly k: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Offers `item`, ranked as `rank`; returns the item that no longer fits, if any. */
  offer(rank: T, item: T = rank): T | undefined {
    if (this.k <= 0) return item;
    const list = this.kept;
    let i = list.length;
    while (i > 0 && this.compare(rank, (list[i - 1] as { rank: T }).rank) < 0) i -= 1;
    if (i >= this.k) return item;
    list.splice(i, 0, { rank, item });
    return list.length > this.k ? (list.pop() as { item: T }).item : undefined;
  }

  items(): T[] {
    return this.kept.map((x) => x.item);
  }
}

/** FULL-3's order (`planSyncSlots`): the oldest last full sync first, a never fully synced one first of all. */
function byOldestFull(a: SourceDecision, b: SourceDecision): number {
  return (
    msOf(a.lastFullSyncAt, Number.NEGATIVE_INFINITY) - msOf(b.lastFullSyncAt, Number.NEGATIVE_INFINITY) ||
    a.sourceId.localeCompare(b.sourceId)
  );
}

/** SCH-5's order (`planSyncSlots`): manual first, then the longest overdue, then the id. */
function byUrgencyMs(a: SourceDecision, b: SourceDecision): number {
  const manual = Number(b.trigger === 'manual') - Number(a.trigger === 'manual');
  return (
    manual ||
    msOf(a.dueAt, Number.POSITIVE_INFINITY) - msOf(b.dueAt, Number.POSITIVE_INFINITY) ||
    a.sourceId.localeCompare(b.sourceId)
  );
}

const PARSED_MS = new Map<string, number>();

/** Stored instants carry an offset, so `Date.parse` reads them as luxon does (memoised per string). */
function msOf(iso: string | undefined, absent: number): number {
  if (iso === undefined) return absent;
  let ms = PARSED_MS.get(iso);
  if (ms === undefined) {
    if (PARSED_MS.size > 100_000) PARSED_MS.clear();
    ms = Date.parse(iso);
    PARSED_MS.set(iso, ms);
  }
  return ms;
}

/** Today's starts: the real `planSyncSlots` on the reduced list. */
export function todayStarts(
  decisions: readonly SourceDecision[],
  runningCount: number,
  runningFullCount: number,
  settings: ScheduleSettings,
): SourceDecision[] {
  const free = settings.maxConcurrentSyncs - runningCount;
  const freeFull = fullSyncSlots(settings) - runningFullCount;
  const reduced = reduceForSlots(decisions, free, freeFull);
  if (reduced.length === 0) return [];
  return planSyncSlots(reduced, runningCount, runningFullCount, settings).start;
}
