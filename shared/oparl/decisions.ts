import type { FilterFinding, ListEntry, ListState } from '../engine';
import type { SyncKind } from '../schedule';
import { FILTER_TOLERANCE_MS, MISSING_LIST_RECHECK_MS, SLOW_LIST_SKIP_HOURS } from './constants';
import { catchUpChunks, changeWindow, type TimeSlice, timeSlices } from './windows';

/**
 * Pure list decisions (SCH-9…SCH-12, FULL-5): `(kind, list marks, now) → what to ask`. No I/O; the
 * engine executes the plan and feeds outcomes back through the mark functions below.
 */

export type ListPlan =
  | { action: 'skip'; outcome: 'skipped-missing' | 'skipped-slow'; reason: string }
  | { action: 'read'; mode: 'filtered'; sinceMs: number; rule: 'precise' | 'day-start' }
  | { action: 'read'; mode: 'unfiltered' }
  | { action: 'read'; mode: 'full' }
  | { action: 'read'; mode: 'catchup'; chunks: { sinceMs: number; untilMs: number }[] }
  | { action: 'read'; mode: 'slices'; slices: TimeSlice[] };

export interface PlanInput {
  kind: SyncKind;
  entry: Pick<ListEntry, 'list' | 'mandatory'>;
  /** Undefined: the list was never synced (a new list, SCH-9). */
  state: ListState | undefined;
  /** Start of the body's last complete sync (SCH-9). */
  bodyLastCompleteStartMs: number | undefined;
  /** The run's start: windows are computed from it, so a resumed run asks the same windows. */
  nowMs: number;
}

export function filterUsable(finding: FilterFinding | undefined): boolean {
  return finding === undefined || finding === 'unknown' || finding === 'supported';
}

export function planList(input: PlanInput): ListPlan {
  const { kind, entry, state, nowMs } = input;
  // SCH-12: mandatory lists are never skipped, whatever happened to them.
  if (!entry.mandatory && state?.slow && Date.parse(state.slow.skipUntil) > nowMs) {
    return {
      action: 'skip',
      outcome: 'skipped-slow',
      reason: `SCH-12: slow (streak ${state.slow.streak}), skipped until ${state.slow.skipUntil}`,
    };
  }
  if (state?.missing && !entry.mandatory) {
    // SCH-11: the sliced full sync never asks a missing list, the full sync every time, the incremental
    // sync at most once a day.
    if (kind === 'sliced') {
      return { action: 'skip', outcome: 'skipped-missing', reason: 'SCH-11: missing; never asked in slices' };
    }
    if (kind === 'incremental' && Date.parse(state.missing.nextCheckAt) > nowMs) {
      return {
        action: 'skip',
        outcome: 'skipped-missing',
        reason: `SCH-11: missing since ${state.missing.since}; next check ${state.missing.nextCheckAt}`,
      };
    }
  }
  if (kind === 'full') return { action: 'read', mode: 'full' };
  if (kind === 'sliced') return { action: 'read', mode: 'slices', slices: timeSlices(nowMs) };

  if (state?.catchUpSince !== undefined) {
    // SCH-12: after a slow spell, catch up — in one-day chunks where the server filters.
    if (filterUsable(state.filter)) {
      return {
        action: 'read',
        mode: 'catchup',
        chunks: catchUpChunks(Date.parse(state.catchUpSince), nowMs),
      };
    }
    return { action: 'read', mode: 'unfiltered' };
  }
  if (!filterUsable(state?.filter)) return { action: 'read', mode: 'unfiltered' };
  const window = changeWindow({
    nowMs,
    lastCompleteStartMs: input.bodyLastCompleteStartMs,
    timeOfDay: state?.timeOfDay ?? false,
    changeSeen: state?.changeSeen ?? false,
    newList: state === undefined,
  });
  return { action: 'read', mode: 'filtered', sinceMs: window.sinceMs, rule: window.rule };
}

/** SCH-12: skip duration after the n-th timeout in a row (1-based): 1, 2, 4, 8, 16, 24 h. */
export function slowSkipMs(streak: number): number {
  const hours = SLOW_LIST_SKIP_HOURS[Math.min(streak, SLOW_LIST_SKIP_HOURS.length) - 1] ?? 24;
  return hours * 60 * 60 * 1000;
}

/** SCH-12: the list timed out (60 s) or answered 504. Mandatory lists get no skip. */
export function markSlow(
  state: ListState,
  entry: Pick<ListEntry, 'mandatory'>,
  nowMs: number,
  windowSinceMs: number | undefined,
): ListState {
  if (entry.mandatory) return state;
  const streak = (state.slow?.streak ?? 0) + 1;
  const next: ListState = {
    ...state,
    slow: {
      streak,
      skipUntil: new Date(nowMs + slowSkipMs(streak)).toISOString(),
      lastAt: new Date(nowMs).toISOString(),
    },
  };
  // Catch up from the oldest point not yet covered: an earlier catch-up start wins.
  const fromMs = state.catchUpSince !== undefined ? Date.parse(state.catchUpSince) : windowSinceMs;
  if (fromMs !== undefined) next.catchUpSince = new Date(fromMs).toISOString();
  return next;
}

/** SCH-12: a request of the list was answered in time: the timeout streak ends. */
export function clearSlow(state: ListState): ListState {
  if (!state.slow) return state;
  const { slow: _slow, ...rest } = state;
  return rest;
}

/** SCH-11: an optional list answered 404 (or SD.NET's "no results" on the daily check). */
export function markMissing(state: ListState, nowMs: number, status: number): ListState {
  return {
    ...state,
    missing: {
      since: state.missing?.since ?? new Date(nowMs).toISOString(),
      nextCheckAt: new Date(nowMs + MISSING_LIST_RECHECK_MS).toISOString(),
      status,
    },
  };
}

export function clearMissing(state: ListState): ListState {
  if (!state.missing) return state;
  const { missing: _missing, ...rest } = state;
  return rest;
}

/**
 * SCH-10 / FULL-7: objects outside the asked range by more than the tolerance prove the filter is not
 * applied. Returns the first offending `modified` (ms) or undefined.
 */
export function outsideFilter(
  modifiedMs: readonly (number | undefined)[],
  sinceMs: number | undefined,
  untilMs: number | undefined,
): number | undefined {
  for (const m of modifiedMs) {
    if (m === undefined) continue;
    if (sinceMs !== undefined && m < sinceMs - FILTER_TOLERANCE_MS) return m;
    if (untilMs !== undefined && m > untilMs + FILTER_TOLERANCE_MS) return m;
  }
  return undefined;
}

/** SCH-10: a filtered request answered 400, 401 or 403 rejects the filter. */
export const FILTER_REJECT_STATUSES: readonly number[] = [400, 401, 403];

/** A fresh list record for a list never seen before. */
export function newListState(bodyKey: string, list: ListState['list'], url: string): ListState {
  return { bodyKey, list, url, filter: 'unknown', timeOfDay: false, changeSeen: false };
}
