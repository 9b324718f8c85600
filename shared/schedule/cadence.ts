import { dayOfIndex, isoOfMs, localDayAt } from './calendar';
import {
  type PeriodId,
  QUIET_CEILING_MINUTES,
  QUIET_SYNCS_PER_DOUBLING,
  SESSION_DAY_CAP_MINUTES,
} from './constants';
import { baseIntervalMinutes, periodAtMs, periodBoundariesMs, periodLabel } from './periods';
import { msOf, reasonTime } from './time';
import type {
  CadenceDue,
  Instant,
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceScheduleState,
} from './types';

type CadenceConfig = Pick<ScheduleSourceConfig, 'cadenceMinutes'>;

/** SCH-2: a session day or the day before one (weekends included). */
export function isSessionCapped(instant: Instant, sessionDays: readonly string[]): boolean {
  if (sessionDays.length === 0) return false;
  return sessionCappedAtMs(msOf(instant), sessionDays);
}

/** `isSessionCapped` on epoch milliseconds: the local date or the next one is a session day. */
export function sessionCappedAtMs(ms: number, sessionDays: readonly string[]): boolean {
  if (sessionDays.length === 0) return false;
  const day = localDayAt(ms);
  return sessionDays.includes(day.date) || sessionDays.includes(dayOfIndex(day.index + 1).date);
}

/**
 * SCH-2: the session-day cap. Published as 10 min; read together with the slower-only promises (SCH-1,
 * OPT-4) it never undercuts a slower weekday-daytime base (INGESTOR_INTERVAL or the source's own
 * weekday-daytime setting) nor the source's own setting for the period at hand. With defaults: 10.
 */
export function sessionCapMinutes(
  period: PeriodId,
  config: CadenceConfig,
  settings: ScheduleSettings,
): number {
  return Math.max(
    SESSION_DAY_CAP_MINUTES,
    baseIntervalMinutes('weekdayDay', config, settings),
    config.cadenceMinutes[period] ?? 0,
  );
}

/**
 * Where a source stands on the cadence: the period, its quiet streak there (SCH-3) and whether SCH-2's
 * session-day cap applies — the three things its interval depends on besides its config and settings.
 */
export type CadencePoint = Pick<CadenceDue, 'period' | 'quietStreak' | 'sessionCapped'>;

/**
 * SCH-1…SCH-3: the interval after `quietStreak` syncs without change in `period`. It doubles after
 * every third quiet sync (10, 10, 10, 20, 20, 20, 40 …) up to 120 min — or the source's slower base —
 * and on session days and the day before it is capped (SCH-2).
 */
export function cadenceIntervalMinutes(
  config: CadenceConfig,
  settings: ScheduleSettings,
  point: CadencePoint,
): number {
  const { period, quietStreak, sessionCapped } = point;
  const baseMinutes = baseIntervalMinutes(period, config, settings);
  const ceilingMinutes = Math.max(QUIET_CEILING_MINUTES, baseMinutes);
  // Capping the exponent keeps the arithmetic finite for very long quiet streaks.
  const doublings = Math.min(Math.floor(Math.max(0, quietStreak) / QUIET_SYNCS_PER_DOUBLING), 16);
  const doubledMinutes = Math.min(baseMinutes * 2 ** doublings, ceilingMinutes);
  return sessionCapped
    ? Math.min(doubledMinutes, sessionCapMinutes(period, config, settings))
    : doubledMinutes;
}

function quietText(quietStreak: number): string {
  return `${quietStreak} quiet sync${quietStreak === 1 ? '' : 's'}`;
}

/**
 * SCH-1…SCH-4: when the next incremental sync of a source is due.
 *
 * The interval counts from the END of the previous sync (SCH-4). It is the interval of the period the
 * previous sync started in, after its quiet streak (SCH-3), capped on session days (SCH-2). If before
 * that a period (or a capped day) begins whose fresh interval is shorter than the one running, the
 * sync is due at that instant instead: 07:00 rather than 07:30, 19:00 after a day interval past 60 min,
 * Monday 00:00 after a weekend, 00:00 of the day before a meeting.
 */
export function nextSyncDue(
  config: CadenceConfig,
  state: CadenceState,
  now: Instant,
  settings: ScheduleSettings,
): CadenceDue {
  return nextSyncDueMs(config, state, msOf(now, 'now'), settings);
}

type CadenceState = Pick<
  SourceScheduleState,
  'lastSyncStartedAt' | 'lastSyncEndedAt' | 'lastSyncPeriod' | 'quietStreak' | 'sessionDays'
>;

const MINUTE_MS = 60_000;

/** `nextSyncDue` with `now` in epoch milliseconds (the planner's decisions, issue 27). */
export function nextSyncDueMs(
  config: CadenceConfig,
  state: CadenceState,
  nowMs: number,
  settings: ScheduleSettings,
): CadenceDue {
  const sessionDays = state.sessionDays ?? [];

  if (state.lastSyncEndedAt === undefined) {
    const period = periodAtMs(nowMs);
    const sessionCapped = sessionCappedAtMs(nowMs, sessionDays);
    return {
      at: isoOfMs(nowMs),
      intervalMinutes: cadenceIntervalMinutes(config, settings, { period, quietStreak: 0, sessionCapped }),
      period,
      quietStreak: 0,
      sessionCapped,
      reason: 'cadence: no sync recorded yet, incremental due now',
      ruleIds: ['SCH-1'],
    };
  }

  const endedMs = msOf(state.lastSyncEndedAt, 'lastSyncEndedAt');
  const startedMs = state.lastSyncStartedAt === undefined ? endedMs : msOf(state.lastSyncStartedAt);
  const lastPeriod = state.lastSyncPeriod ?? periodAtMs(startedMs);
  const quietStreak = state.quietStreak ?? 0;
  const sessionCapped = sessionCappedAtMs(startedMs, sessionDays);
  const runningMinutes = cadenceIntervalMinutes(config, settings, {
    period: lastPeriod,
    quietStreak,
    sessionCapped,
  });

  let atMs = endedMs + runningMinutes * MINUTE_MS;
  let earlyStart: { period: PeriodId; minutes: number } | undefined;
  // Boundaries from the previous sync's start: a period that began while it ran still counts (due at once).
  for (const boundary of periodBoundariesMs(startedMs, atMs)) {
    const period = periodAtMs(boundary);
    const capped = sessionCappedAtMs(boundary, sessionDays);
    // A sync in another period starts that period's doubling afresh (SCH-3), so compare with its base.
    const freshMinutes = cadenceIntervalMinutes(config, settings, {
      period,
      quietStreak: period === lastPeriod ? quietStreak : 0,
      sessionCapped: capped,
    });
    if (freshMinutes < runningMinutes) {
      atMs = Math.max(boundary, endedMs);
      earlyStart = { period, minutes: freshMinutes };
      break;
    }
  }

  const when = reasonTime(atMs, nowMs);
  const isDue = atMs <= nowMs;
  let reason: string;
  const ruleIds = ['SCH-4'];
  if (earlyStart !== undefined) {
    const what =
      earlyStart.period !== lastPeriod
        ? `${periodLabel(earlyStart.period)} begins (base ${earlyStart.minutes} min, shorter than the running ${runningMinutes} min)`
        : `the session-day cap of ${earlyStart.minutes} min begins`;
    reason = isDue
      ? `cadence: incremental due since ${when}, when ${what}`
      : `cadence: next incremental at ${when}, when ${what}`;
    ruleIds.push(earlyStart.period !== lastPeriod ? 'SCH-1' : 'SCH-2');
  } else {
    const detail = `interval ${runningMinutes} min, ${quietText(quietStreak)}${sessionCapped ? ', session-day cap' : ''}`;
    reason = isDue
      ? `cadence: incremental due since ${when} (${detail})`
      : `cadence: next incremental at ${when} (${detail})`;
    ruleIds.push('SCH-3');
    if (sessionCapped) ruleIds.push('SCH-2');
  }
  return {
    at: isoOfMs(atMs),
    intervalMinutes: runningMinutes,
    period: periodAtMs(atMs),
    quietStreak,
    sessionCapped,
    reason,
    ruleIds,
  };
}
