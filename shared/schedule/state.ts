import { cadenceIntervalMinutes, sessionCappedAtMs } from './cadence';
import { dayOfIndex, isoOfMs, type LocalDay, localDayAt } from './calendar';
import {
  DEFAULT_LEASE_MINUTES,
  FILTER_NOT_HONOURED_INCREMENTAL_ONLY_DAYS,
  RECENT_RUNS_KEPT,
  SESSION_DAYS_AHEAD_DAYS,
} from './constants';
import { ScheduleError } from './errors';
import { periodAtMs } from './periods';
import { longerPause, pauseForRun } from './sparing';
import { isLocalDate, msOf, toBerlin, toIso } from './time';
import type {
  Instant,
  RunningSync,
  RunOutcome,
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceDecision,
  SourceScheduleState,
} from './types';

/** The state of a source never synced: first incremental due at once. */
export function initialScheduleState(overrides: Partial<SourceScheduleState> = {}): SourceScheduleState {
  return {
    schemaVersion: 1,
    quietStreak: 0,
    failureStreak: 0,
    fullSyncInProgress: false,
    sessionDays: [],
    ...overrides,
  };
}

/** Alias of `initialScheduleState` (the name the planner uses). */
export const freshScheduleState = initialScheduleState;

/** Whether the lease of a running sync is still valid at `now` (SCH-5). */
export function runningAt(
  state: Pick<SourceScheduleState, 'running'>,
  now: Instant,
): RunningSync | undefined {
  const running = state.running;
  if (running === undefined) return undefined;
  return runningAtMs(state, msOf(now, 'now'));
}

/** `runningAt` with `now` in epoch milliseconds. */
export function runningAtMs(
  state: Pick<SourceScheduleState, 'running'>,
  nowMs: number,
): RunningSync | undefined {
  const running = state.running;
  if (running === undefined) return undefined;
  return msOf(running.leaseUntil, 'running.leaseUntil') > nowMs ? running : undefined;
}

const NOTHING: readonly (keyof SourceScheduleState)[] = [];

/**
 * A copy of `state` without the fields `ended`, in the same order as `{ ...state }` followed by
 * `delete` gives. Left out rather than deleted: a `delete` turns the copy into a slow dictionary object
 * that every later decision on the source reads (issue 27).
 */
function copyWithout(
  state: SourceScheduleState,
  ended: readonly (keyof SourceScheduleState)[],
): SourceScheduleState {
  if (ended.length === 0) return { ...state };
  const next: Record<string, unknown> = {};
  for (const key of Object.keys(state) as (keyof SourceScheduleState)[]) {
    if (!ended.includes(key)) next[key] = state[key];
  }
  return next as unknown as SourceScheduleState;
}

/**
 * The state to write (conditionally, with the lease) when the planner starts a sync for a `sync`
 * decision. FULL-2: the window id is recorded at the start, so an aborted run — even one whose process
 * died — is not retried in the same window.
 */
export function markSyncStarted(
  state: SourceScheduleState,
  decision: Pick<SourceDecision, 'kind' | 'trigger' | 'windowId' | 'deadline'>,
  now: Instant,
  leaseMinutes: number = DEFAULT_LEASE_MINUTES,
): SourceScheduleState {
  if (decision.kind === undefined) {
    throw new ScheduleError('SCHEDULE_INVALID_OPTIONS', 'markSyncStarted needs a sync decision with a kind');
  }
  const nowMs = msOf(now, 'now');
  const running: RunningSync = {
    kind: decision.kind,
    trigger: decision.trigger ?? 'schedule',
    startedAt: isoOfMs(nowMs),
    leaseUntil: isoOfMs(nowMs + leaseMinutes * 60_000),
  };
  if (decision.windowId !== undefined) running.windowId = decision.windowId;
  if (decision.deadline !== undefined) running.deadline = decision.deadline;
  const request = state.manualRequest;
  // A request is answered by the run started for it, and a pending 'sync' by any run.
  const answered =
    request !== undefined &&
    (running.trigger === 'manual' || request.kind === 'sync' || running.kind !== 'incremental');
  const next = answered ? copyWithout(state, ['manualRequest']) : copyWithout(state, NOTHING);
  next.running = running;
  if (running.kind !== 'incremental') {
    next.fullSyncInProgress = true;
    next.fullSyncLastStartedAt = running.startedAt;
    if (running.windowId !== undefined) next.fullSyncLastWindowId = running.windowId;
  }
  return next;
}

/**
 * Validated, sorted, de-duplicated session days from today on (older ones no longer cap anything) up to
 * `SESSION_DAYS_AHEAD_DAYS` ahead (later ones come back with a later run).
 */
function normaliseSessionDays(days: readonly string[], today: LocalDay): string[] {
  const last = dayOfIndex(today.index + SESSION_DAYS_AHEAD_DAYS).date;
  return [...new Set(days.filter((day) => isLocalDate(day) && day >= today.date && day <= last))].sort();
}

/**
 * The state after a sync run ended. Pure bookkeeping for:
 * - SCH-3 quiet doubling: every sync counts, the first of a period included; a change resets the
 *   streak, and a sync in another period than the previous one starts it afresh at 1.
 * - ERR-4/ERR-5 failure streak and pauses (the longer wins, an existing pause is never shortened);
 *   a run that did not fail ends the streak (ERR-6 documents may work again).
 * - FULL-2/FULL-4 full-sync bookkeeping and FULL-7 (30 days incremental-only after the filter was not
 *   honoured).
 * `cadence` only fills the display copy `intervalMinutes`; decisions recompute the interval.
 */
export function applyRunOutcome(
  state: SourceScheduleState,
  outcome: RunOutcome,
  now: Instant,
  cadence?: { config: Pick<ScheduleSourceConfig, 'cadenceMinutes'>; settings: ScheduleSettings },
): SourceScheduleState {
  const nowMs = msOf(now, 'now');
  const startedAt = msOf(outcome.startedAt, 'outcome.startedAt');
  const endedAt = msOf(outcome.endedAt, 'outcome.endedAt');
  if (endedAt < startedAt) {
    throw new ScheduleError('SCHEDULE_INVALID_TIME', 'outcome.endedAt lies before outcome.startedAt');
  }
  const period = periodAtMs(startedAt);
  const previousQuiet = state.quietStreak ?? 0;
  const quietStreak = outcome.changed ? 0 : state.lastSyncPeriod === period ? previousQuiet + 1 : 1;
  const failureStreak = outcome.failed ? (state.failureStreak ?? 0) + 1 : 0;

  const standing =
    state.pause !== undefined && msOf(state.pause.until, 'pause.until') > nowMs ? state.pause : undefined;
  const pause = longerPause(standing, pauseForRun(failureStreak, outcome.failures, outcome.endedAt));
  const fullComplete =
    outcome.kind !== 'incremental' && outcome.complete && !outcome.failed && !outcome.filterNotHonoured;
  const windowId = state.running?.kind === outcome.kind ? state.running.windowId : undefined;

  // The fields that end are left out of the copy; the others are set in the order they always were.
  const ended: (keyof SourceScheduleState)[] = ['running'];
  if (pause === undefined) ended.push('pause');
  if (fullComplete && windowId === undefined) ended.push('fullSyncLastCompleteWindowId');
  const next = copyWithout(state, ended);
  next.lastSyncStartedAt = isoOfMs(startedAt);
  next.lastSyncEndedAt = isoOfMs(endedAt);
  next.lastSyncKind = outcome.kind;
  next.lastSyncPeriod = period;
  next.lastSyncChanged = outcome.changed;
  next.quietStreak = quietStreak;
  next.failureStreak = failureStreak;
  if (!outcome.failed) next.lastSuccessAt = isoOfMs(endedAt);
  if (pause !== undefined) next.pause = pause;

  if (outcome.kind !== 'incremental') {
    next.fullSyncInProgress = false;
    next.fullSyncLastStartedAt = isoOfMs(startedAt);
    if (fullComplete) {
      next.fullSyncLastCompleteStartedAt = isoOfMs(startedAt);
      next.fullSyncLastCompletedAt = isoOfMs(endedAt);
      if (windowId !== undefined) next.fullSyncLastCompleteWindowId = windowId;
    }
  }
  if (outcome.filterNotHonoured) {
    // Calendar days (luxon): 30 days later at the same wall-clock time, across a DST change too.
    const until = toBerlin(outcome.endedAt).plus({ days: FILTER_NOT_HONOURED_INCREMENTAL_ONLY_DAYS });
    const current = state.incrementalOnlyUntil === undefined ? undefined : msOf(state.incrementalOnlyUntil);
    if (current === undefined || until.toMillis() > current) next.incrementalOnlyUntil = toIso(until);
  }
  if (outcome.sessionDays !== undefined) {
    next.sessionDays = normaliseSessionDays(outcome.sessionDays, localDayAt(endedAt));
  }
  if (outcome.requests !== undefined && outcome.requests > 0) {
    // RATE-9: the host model learns each kind's expected requests from the source's own recent runs.
    const seconds = Math.max(0, (endedAt - startedAt) / 1000);
    next.recentRuns = [
      ...(state.recentRuns ?? []),
      { kind: outcome.kind, requests: outcome.requests, seconds },
    ].slice(-RECENT_RUNS_KEPT);
  }
  if (cadence !== undefined) {
    next.intervalMinutes = cadenceIntervalMinutes(cadence.config, cadence.settings, {
      period,
      quietStreak,
      sessionCapped: sessionCappedAtMs(startedAt, next.sessionDays ?? []),
    });
  }
  return next;
}
