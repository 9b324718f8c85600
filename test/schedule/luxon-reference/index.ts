/**
 * The schedule's luxon computation as it was before issue 27's fast path (shared/schedule at 444cf56),
 * kept verbatim so test/schedule/fast-path.test.ts can compare the two. Not used by any code.
 */
export { isSessionCapped, nextSyncDue } from './cadence';
export { decideSource } from './decide';
export { fullSyncWindowAt, nextFullSyncWindow } from './full-sync';
export { periodAt } from './periods';
export { applyRunOutcome, markSyncStarted } from './state';
export { localDate, toBerlin, toIso, toIsoAfterMinutes } from './time';
