import { MAX_OTHER_FETCH_SHARE, MIN_OTHER_FETCH_SHARE, SATURATED_UTILISATION } from './constants';
import { type HostModel, round } from './model';

/** A host whose syncs need at least its capacity. */
export function isSaturated(model: HostModel): boolean {
  return model.utilisation >= SATURATED_UTILISATION;
}

/** Whether another fetch pass may start on a host now, and if not, why (for its report and log). */
export type OtherFetchAdmission =
  | { allowed: true; reason: string; ruleIds: string[] }
  | { allowed: false; reason: string; ruleIds: string[] };

/**
 * Item 5 of issue 27, pure: may another fetch pass (files, text, deletion check, photos) start on this
 * host now, given the requests per second other fetches already use there (`otherRequestsPerSecondInUse`,
 * from the host ledger)? Sync runs first, and nobody is starved (RATE-9):
 * - not while the host is paused (RATE-8);
 * - never when other fetches already take `MAX_OTHER_FETCH_SHARE` of the pace — the syncs keep the rest;
 * - otherwise when the syncs' demand and the other fetches' use leave room in the pace;
 * - and on a host the syncs fill, still while other fetches use less than `MIN_OTHER_FETCH_SHARE` of it.
 */
export function otherFetchAdmission(
  model: HostModel,
  otherRequestsPerSecondInUse: number,
): OtherFetchAdmission {
  const host = model.host;
  if (model.pausedUntil !== undefined)
    return {
      allowed: false,
      reason: `host ${host} paused until ${model.pausedUntil} (RATE-8)`,
      ruleIds: ['RATE-8'],
    };
  const inUse = Math.max(0, otherRequestsPerSecondInUse);
  // What the runs can use of the pace (a server slower than the pace caps it): capacity + other share.
  const usable = model.capacity + model.otherRequestsPerSecond;
  const pace = model.paceRequestsPerSecond;
  const use = `other fetches use ${round(inUse)} requests/s`;
  if (inUse >= pace * MAX_OTHER_FETCH_SHARE)
    return {
      allowed: false,
      reason: `host ${host}: ${use}, their whole share (${MAX_OTHER_FETCH_SHARE} of ${round(pace)}); the syncs keep the rest (RATE-9)`,
      ruleIds: ['RATE-9', 'RATE-1'],
    };
  if (model.demand + inUse < usable)
    return {
      allowed: true,
      reason: `host ${host}: syncs need ${round(model.demand)} and ${use} of ${round(usable)} (RATE-9)`,
      ruleIds: ['RATE-9'],
    };
  if (inUse < pace * MIN_OTHER_FETCH_SHARE)
    return {
      allowed: true,
      reason: `host ${host}: syncs need ${round(model.demand)} of ${round(usable)} requests/s, ${use}, below their minimum share (${MIN_OTHER_FETCH_SHARE}): never starved (RATE-9)`,
      ruleIds: ['RATE-9'],
    };
  return {
    allowed: false,
    reason: `host ${host} busy with syncs: they need ${round(model.demand)} of ${round(usable)} requests/s and ${use} (at least their minimum share ${MIN_OTHER_FETCH_SHARE}); skipped this time, sync runs first (RATE-9, RATE-1)`,
    ruleIds: ['RATE-9', 'RATE-1'],
  };
}

/** `otherFetchAdmission(…).allowed`. */
export function otherFetchAllowed(model: HostModel, otherRequestsPerSecondInUse: number): boolean {
  return otherFetchAdmission(model, otherRequestsPerSecondInUse).allowed;
}
