import { type SourceDecision, toBerlin, toIso } from '../schedule';
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
  model: HostModel | undefined,
  now: string,
): SourceDecision {
  if (model === undefined || model.stretch <= 1) return decision;
  const sentence = saturationText(model);
  const stretchable =
    decision.kind === 'incremental' && decision.trigger === 'schedule' && decision.dueAt !== undefined;
  if (decision.action !== 'sync' || !stretchable || lastSyncEndedAt === undefined) {
    if (decision.action === 'skip') return decision;
    return {
      ...decision,
      reason: `${decision.reason}; ${sentence}`,
      ruleIds: unique([...decision.ruleIds, 'RATE-9']),
    };
  }
  const ended = toBerlin(lastSyncEndedAt).toMillis();
  const dueMs = toBerlin(decision.dueAt as string).toMillis();
  const stretchedMs = ended + Math.max(0, dueMs - ended) * model.stretch;
  const nowMs = toBerlin(now).toMillis();
  if (stretchedMs <= nowMs) {
    return {
      ...decision,
      reason: `${decision.reason}; ${sentence}`,
      ruleIds: unique([...decision.ruleIds, 'RATE-9']),
    };
  }
  const at = toIso(toBerlin(new Date(stretchedMs).toISOString()));
  return {
    ...decision,
    action: 'wait',
    dueAt: at,
    incrementalDue: false,
    reason: `${sentence}: next incremental at ${at} (cadence had it due at ${decision.dueAt})`,
    ruleIds: unique([...decision.ruleIds, 'RATE-9']),
  };
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
