import { SLOTS_KEPT_FOR_INCREMENTAL } from './constants';
import { DEFAULT_SCHEDULE_SETTINGS } from './settings';
import { msOf } from './time';
import type { ScheduleSettings, SourceDecision } from './types';

/** FULL-3: full syncs use at most all sync slots but one (default 3 of 4). */
export function fullSyncSlots(settings: Pick<ScheduleSettings, 'maxConcurrentSyncs'>): number {
  return Math.max(0, settings.maxConcurrentSyncs - SLOTS_KEPT_FOR_INCREMENTAL);
}

export interface WaitingForSlot {
  sourceId: string;
  decision: SourceDecision;
  reason: string;
  ruleIds: string[];
}

export interface SlotAllocation {
  /** Start these now, in this order (a full decision may come back as an incremental, FULL-3). */
  start: SourceDecision[];
  /** Due, but no slot this time; asked again at the next planner run. */
  waiting: WaitingForSlot[];
}

function ms(iso: string | undefined, absent: number): number {
  return iso === undefined ? absent : msOf(iso);
}

/** FULL-3: the oldest last full sync first; a source never fully synced before all others. */
export function byOldestFullSync(a: SourceDecision, b: SourceDecision): number {
  return (
    ms(a.lastFullSyncAt, Number.NEGATIVE_INFINITY) - ms(b.lastFullSyncAt, Number.NEGATIVE_INFINITY) ||
    a.sourceId.localeCompare(b.sourceId)
  );
}

/** Manual requests first (someone is waiting for them), then the longest overdue. */
export function byUrgency(a: SourceDecision, b: SourceDecision): number {
  const manual = Number(b.trigger === 'manual') - Number(a.trigger === 'manual');
  return (
    manual ||
    ms(a.dueAt, Number.POSITIVE_INFINITY) - ms(b.dueAt, Number.POSITIVE_INFINITY) ||
    a.sourceId.localeCompare(b.sourceId)
  );
}

/** Why a full sync that is due waits for a slot (SCH-5 / FULL-3): all slots busy, or none kept for fulls free. */
export function fullSyncWaitReason(
  freeSlots: number,
  settings: Pick<ScheduleSettings, 'maxConcurrentSyncs'>,
  fullSlots: number = fullSyncSlots(settings),
): string {
  const max = settings.maxConcurrentSyncs;
  // RATE-9's admission may keep more than one slot for incrementals, by their demand (FULL-3).
  const kept =
    max - fullSlots > SLOTS_KEPT_FOR_INCREMENTAL
      ? `, ${max - fullSlots} kept for incremental syncs by their demand`
      : '';
  return freeSlots === 0
    ? `all ${max} sync slots busy (SCH-5): full sync waits while its window is open (FULL-3)`
    : `no full-sync slot free (${fullSlots} of ${max} in use by full syncs${kept}): full sync waits while its window is open (FULL-3)`;
}

export function asIncrementalFallback(decision: SourceDecision, why: string): SourceDecision {
  const fallback: SourceDecision = {
    ...decision,
    kind: 'incremental',
    // A waiting manual full request stays pending: this run answers the cadence, not the request.
    trigger: 'schedule',
    reason: `${why}; incremental by cadence meanwhile`,
    ruleIds: [...new Set([...decision.ruleIds, 'FULL-3', 'SCH-3'])],
  };
  delete fallback.deadline;
  delete fallback.windowId;
  return fallback;
}

/**
 * SCH-5 and FULL-3 across sources: which `sync` decisions start now, given the syncs already running.
 * At most `maxConcurrentSyncs` at once; full syncs (full and sliced) at most all slots but one, a freed
 * one going first to the source whose last full sync is oldest. A full sync finding no slot waits while
 * its window is open, and its source keeps the incremental cadence meanwhile (started as incremental
 * when that is due). One sync per source (SCH-5): a source listed twice starts once.
 */
export function planSyncSlots(
  decisions: readonly SourceDecision[],
  runningCount: number,
  runningFullCount: number,
  settings: ScheduleSettings = DEFAULT_SCHEDULE_SETTINGS,
): SlotAllocation {
  let freeSlots = Math.max(0, settings.maxConcurrentSyncs - runningCount);
  let freeFullSlots = Math.max(0, fullSyncSlots(settings) - runningFullCount);
  const start: SourceDecision[] = [];
  const waiting: WaitingForSlot[] = [];
  const seen = new Set<string>();
  const candidates = decisions.filter((d) => {
    if (d.action !== 'sync' || d.kind === undefined || seen.has(d.sourceId)) return false;
    seen.add(d.sourceId);
    return true;
  });

  const fulls = candidates.filter((d) => d.kind !== 'incremental').sort(byOldestFullSync);
  const incrementals = candidates.filter((d) => d.kind === 'incremental');

  for (const decision of fulls) {
    if (freeSlots > 0 && freeFullSlots > 0) {
      start.push(decision);
      freeSlots -= 1;
      freeFullSlots -= 1;
      continue;
    }
    const why = fullSyncWaitReason(freeSlots, settings);
    if (decision.incrementalDue) {
      incrementals.push(asIncrementalFallback(decision, why));
    } else {
      waiting.push({ sourceId: decision.sourceId, decision, reason: why, ruleIds: ['FULL-3', 'SCH-5'] });
    }
  }

  for (const decision of incrementals.sort(byUrgency)) {
    if (freeSlots > 0) {
      start.push(decision);
      freeSlots -= 1;
    } else {
      waiting.push({
        sourceId: decision.sourceId,
        decision,
        reason: `all ${settings.maxConcurrentSyncs} sync slots busy (SCH-5)`,
        ruleIds: ['SCH-5'],
      });
    }
  }
  return { start, waiting };
}

/**
 * The decisions to start now (see `planSyncSlots`, which also says why the others wait). Start the
 * returned decisions, not the input ones: a full sync without a slot comes back as an incremental.
 */
export function allocateSyncSlots(
  decisions: readonly SourceDecision[],
  runningCount: number,
  runningFullCount: number,
  settings: ScheduleSettings = DEFAULT_SCHEDULE_SETTINGS,
): SourceDecision[] {
  return planSyncSlots(decisions, runningCount, runningFullCount, settings).start;
}
