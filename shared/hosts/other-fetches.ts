import { MAX_OTHER_FETCH_SHARE, SATURATED_UTILISATION } from './constants';
import type { HostModel } from './model';

/** A host whose syncs need at least its capacity. */
export function isSaturated(model: HostModel): boolean {
  return model.utilisation >= SATURATED_UTILISATION;
}

/**
 * Item 5 of issue 27: may another fetch pass (documents, deletion check, photos, preview) start on this
 * host now? Not while the host is paused (RATE-8), and not when the other fetches already take their
 * whole share of the pace (`MAX_OTHER_FETCH_SHARE`) — the syncs keep the rest.
 */
export function otherFetchAllowed(model: HostModel, otherRequestsPerSecondInUse: number): boolean {
  if (model.pausedUntil !== undefined) return false;
  return otherRequestsPerSecondInUse < model.paceRequestsPerSecond * MAX_OTHER_FETCH_SHARE;
}
