import type { DateTime } from 'luxon';
import {
  type PeriodId,
  QUIET_CEILING_MINUTES,
  QUIET_SYNCS_PER_DOUBLING,
  SESSION_DAY_CAP_MINUTES,
} from '../../../shared/schedule/constants';
import type {
  CadenceDue,
  Instant,
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceScheduleState,
} from '../../../shared/schedule/types';
import { baseIntervalMinutes, periodAt, periodBoundaries, periodLabel } from './periods';
import { formatForReason, laterOf, localDate, toBerlin, toIso } from './time';

type CadenceConfig = Pick<ScheduleSourceConfig, 'cadenceMinutes'>;

/** SCH-2: a session day or the day before one (weekends included). */
export function isSessionCapped(instant: Instant, sessionDays: readonly string[]): boolean {
  if (sessionDays.length === 0) return false;
  const local = toBerlin(instant);
  return sessionDays.includes(localDate(local)) || sessionDays.includes(localDate(local.plus({ days: 1 })));
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
 * SCH-1…SCH-3: the interval after `quietStreak` syncs without change in `period`. It doubles after
 * every third quiet sync (10, 10, 10, 20, 20, 20, 40 …) up to 120 min — or the source's slower base —
 * and on session days and the day before it is capped (SCH-2).
 */
export function cadenceIntervalMinutes(
  config: CadenceConfig,
  settings: ScheduleSettings,
  period: PeriodId,
  quietStreak: number,
  sessionCapped: boolean,
): number {
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
  state: Pick<
    SourceScheduleState,
    'lastSyncStartedAt' | 'lastSyncEndedAt' | 'lastSyncPeriod' | 'quietStreak' | 'sessionDays'
  >,
  now: Instant,
  settings: ScheduleSettings,
): CadenceDue {
  const nowLocal = toBerlin(now, 'now');
  const sessionDays = state.sessionDays ?? [];

  if (state.lastSyncEndedAt === undefined) {
    const period = periodAt(nowLocal);
    const sessionCapped = isSessionCapped(nowLocal, sessionDays);
    return {
      at: toIso(nowLocal),
      intervalMinutes: cadenceIntervalMinutes(config, settings, period, 0, sessionCapped),
      period,
      quietStreak: 0,
      sessionCapped,
      reason: 'cadence: no sync recorded yet, incremental due now',
      ruleIds: ['SCH-1'],
    };
  }

  const endedAt = toBerlin(state.lastSyncEndedAt, 'lastSyncEndedAt');
  const startedAt = state.lastSyncStartedAt === undefined ? endedAt : toBerlin(state.lastSyncStartedAt);
  const lastPeriod = state.lastSyncPeriod ?? periodAt(startedAt);
  const quietStreak = state.quietStreak ?? 0;
  const sessionCapped = isSessionCapped(startedAt, sessionDays);
  const runningMinutes = cadenceIntervalMinutes(config, settings, lastPeriod, quietStreak, sessionCapped);

  let at: DateTime = endedAt.plus({ minutes: runningMinutes });
  let earlyStart: { at: DateTime; period: PeriodId; minutes: number; capped: boolean } | undefined;
  // Boundaries from the previous sync's start: a period that began while it ran still counts (due at once).
  for (const boundary of periodBoundaries(startedAt, at)) {
    const period = periodAt(boundary);
    const capped = isSessionCapped(boundary, sessionDays);
    // A sync in another period starts that period's doubling afresh (SCH-3), so compare with its base.
    const freshMinutes = cadenceIntervalMinutes(
      config,
      settings,
      period,
      period === lastPeriod ? quietStreak : 0,
      capped,
    );
    if (freshMinutes < runningMinutes) {
      at = laterOf(boundary, endedAt);
      earlyStart = { at: boundary, period, minutes: freshMinutes, capped };
      break;
    }
  }

  const when = formatForReason(at, nowLocal);
  const isDue = at.toMillis() <= nowLocal.toMillis();
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
    at: toIso(at),
    intervalMinutes: runningMinutes,
    period: periodAt(at),
    quietStreak,
    sessionCapped,
    reason,
    ruleIds,
  };
}
