import { isoOfMs, msOf, type SourceDecision } from '../schedule';
import { type HostModel, saturationText } from './model';

/**
 * RATE-9, pure: on a saturated host every source's incremental interval is stretched by the host's one
 * factor (demand / capacity), so the host's pace serves them all and none is starved.
 *
 * Reading of "session days first (SCH-2)": the factor is the same for every source on the host, session
 * days included — a session-day cap of 10 min becomes 10 × factor. Only when the host has capacity
 * (factor 1) does the cap hold as published. What session days get first is the host: among runs due on
 * one host, a session-day run starts before the others (`admitRuns`).
 *
 * Only scheduled incremental syncs are stretched: manual requests (SCH-7) and full syncs (FULL-3 per host,
 * `planHostFullSyncs`) are paced by admission and the window budget instead.
 */
export function stretchDecision(
  decision: SourceDecision,
  lastSyncEndedAt: string | undefined,
  model: Pick<HostModel, 'host' | 'demand' | 'capacity' | 'stretch'> | undefined,
  now: string,
): SourceDecision {
  if (model === undefined || model.stretch <= 1 || decision.action === 'skip') return decision;
  const sentence = saturationText(model);
  const annotated: SourceDecision = {
    ...decision,
    reason: `${decision.reason}; ${sentence}`,
    ruleIds: unique([...decision.ruleIds, 'RATE-9']),
  };
  // Only the scheduled incremental cadence is stretched, measured from the end of the last sync (SCH-4).
  const cadenceAt = decision.cadenceAt;
  const scheduled =
    decision.action === 'wait' || (decision.kind === 'incremental' && decision.trigger === 'schedule');
  if (!scheduled || cadenceAt === undefined || lastSyncEndedAt === undefined) return annotated;
  const ended = msOf(lastSyncEndedAt);
  const cadenceMs = msOf(cadenceAt);
  const stretchedMs = ended + Math.max(0, cadenceMs - ended) * model.stretch;
  if (stretchedMs <= msOf(now)) return annotated;
  // Whole milliseconds, as `new Date(ms)` keeps them.
  const at = isoOfMs(Math.trunc(stretchedMs));
  const next = `${sentence}: next incremental at ${at} (the cadence alone: ${cadenceAt})`;
  if (decision.action === 'wait') {
    // A wait for something earlier than the cadence (a full-sync window opening) keeps its time.
    const waitsForCadence = decision.dueAt === undefined || msOf(decision.dueAt) >= cadenceMs;
    return {
      ...annotated,
      ...(waitsForCadence ? { dueAt: at } : {}),
      reason: waitsForCadence ? next : `${decision.reason}; ${next}`,
    };
  }
  return { ...annotated, action: 'wait', dueAt: at, incrementalDue: false, reason: next };
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
