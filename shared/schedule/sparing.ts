import { isoOfMs } from './calendar';
import {
  DOCUMENTS_REST_FROM_FAILED_RUN,
  type FailureKind,
  FIRST_TIME_PAUSES,
  type FirstTimePauseKind,
  SPARING_LADDER,
} from './constants';
import { msOf, reasonTime } from './time';
import type { Instant, SchedulePause, SourceScheduleState } from './types';

/**
 * ERR-4: the pause after `failureStreak` failed runs in a row — none for the 1st and 2nd, then
 * 10, 20, 40 … up to 360 min.
 */
export function failureStreakPauseMinutes(failureStreak: number): number {
  if (failureStreak < SPARING_LADDER.fromFailedRun) return 0;
  const steps = Math.min(failureStreak - SPARING_LADDER.fromFailedRun, 16);
  return Math.min(
    SPARING_LADDER.firstPauseMinutes * SPARING_LADDER.factor ** steps,
    SPARING_LADDER.maxPauseMinutes,
  );
}

function isFirstTimeKind(kind: FailureKind): kind is FirstTimePauseKind {
  return kind !== 'other';
}

/**
 * ERR-4 + ERR-5: the pause a finished run earns, or undefined. The first-time pauses (User-Agent
 * blocked, 5xx series, robots.txt unreachable or forbidding all) apply at the first occurrence; the
 * ERR-4 ladder from the 3rd failed run in a row; the longer of them applies. Counted from the run's end.
 */
export function pauseForRun(
  failureStreak: number,
  failures: readonly FailureKind[],
  endedAt: Instant,
): SchedulePause | undefined {
  const endMs = msOf(endedAt, 'endedAt');
  let best: Omit<SchedulePause, 'until'> | undefined;
  const ladderMinutes = failureStreakPauseMinutes(failureStreak);
  if (ladderMinutes > 0) {
    best = {
      kind: 'failure-streak',
      minutes: ladderMinutes,
      because: `${failureStreak} failed runs in a row (ERR-4)`,
      ruleIds: ['ERR-4'],
    };
  }
  for (const kind of failures) {
    if (!isFirstTimeKind(kind)) continue;
    const row = FIRST_TIME_PAUSES[kind];
    // Strictly longer wins; on a tie the ladder (or the earlier finding) stays — same length either way.
    if (best === undefined || row.minutes > best.minutes) {
      best = { kind, minutes: row.minutes, because: `${row.because} (ERR-5)`, ruleIds: [...row.ruleIds] };
    }
  }
  if (best === undefined) return undefined;
  return { ...best, until: isoOfMs(endMs + best.minutes * 60_000) };
}

/** Of two pauses the one lasting longer applies (ERR-5); a pause is never shortened. */
export function longerPause(
  current: SchedulePause | undefined,
  next: SchedulePause | undefined,
): SchedulePause | undefined {
  if (current === undefined) return next;
  if (next === undefined) return current;
  return msOf(next.until) > msOf(current.until) ? next : current;
}

export interface SparingVerdict {
  spared: boolean;
  /** ISO instant the pause ends, when spared. */
  until?: string;
  reason: string;
  ruleIds: string[];
}

/**
 * ERR-4/ERR-5/SCH-7: whether the source is paused at `now`. A spared source is not synced, not even on
 * a manual request.
 */
export function sparedUntil(state: Pick<SourceScheduleState, 'pause'>, now: Instant): SparingVerdict {
  return sparedUntilMs(state, msOf(now, 'now'));
}

/** `sparedUntil` with `now` in epoch milliseconds. */
export function sparedUntilMs(state: Pick<SourceScheduleState, 'pause'>, nowMs: number): SparingVerdict {
  const pause = state.pause;
  if (pause === undefined) return { spared: false, reason: 'not paused', ruleIds: [] };
  const until = msOf(pause.until, 'pause.until');
  if (until <= nowMs) {
    return { spared: false, reason: `pause ended at ${reasonTime(until, nowMs)}`, ruleIds: [] };
  }
  return {
    spared: true,
    until: pause.until,
    reason: `paused until ${reasonTime(until, nowMs)} because of ${pause.because}`,
    ruleIds: [...pause.ruleIds],
  };
}

export function isSpared(state: Pick<SourceScheduleState, 'pause'>, now: Instant): boolean {
  return sparedUntil(state, now).spared;
}

/**
 * ERR-6: document cache, preview, deletion check and photos rest for a source from its 3rd failed
 * sync run in a row until a run succeeds again — independent of the pause's clock.
 */
export function documentsRest(state: Pick<SourceScheduleState, 'failureStreak'>): {
  rest: boolean;
  reason: string;
  ruleIds: string[];
} {
  const failureStreak = state.failureStreak ?? 0;
  if (failureStreak >= DOCUMENTS_REST_FROM_FAILED_RUN) {
    return {
      rest: true,
      reason: `documents rest: ${failureStreak} failed sync runs in a row, until a run succeeds (ERR-6)`,
      ruleIds: ['ERR-6'],
    };
  }
  return { rest: false, reason: `${failureStreak} failed sync runs in a row`, ruleIds: ['ERR-6'] };
}
