import type { DateTime } from 'luxon';
import {
  CADENCE_PERIODS,
  type PeriodId,
  WEEKDAY_DAY_END_HOUR,
  WEEKDAY_DAY_START_HOUR,
} from '../../../shared/schedule/constants';
import type { Instant, ScheduleSettings, ScheduleSourceConfig } from '../../../shared/schedule/types';
import { atLocalTime, toBerlin } from './time';

const PERIOD_LABELS: Readonly<Record<PeriodId, string>> = {
  weekdayDay: 'weekday daytime',
  weekdayNight: 'weekday night',
  weekend: 'the weekend',
};

export function periodLabel(period: PeriodId): string {
  return PERIOD_LABELS[period];
}

/**
 * SCH-1: the period an instant falls in. Only the ISO weekday and the local hour decide — holidays
 * count as weekdays, so there is no holiday calendar on purpose.
 */
export function periodAt(instant: Instant): PeriodId {
  const local = toBerlin(instant);
  if (local.weekday >= 6) return 'weekend';
  return local.hour >= WEEKDAY_DAY_START_HOUR && local.hour < WEEKDAY_DAY_END_HOUR
    ? 'weekdayDay'
    : 'weekdayNight';
}

/** SCH-1: the published base of a period; INGESTOR_INTERVAL replaces the weekday-daytime one. */
export function publishedBaseMinutes(period: PeriodId, settings: ScheduleSettings): number {
  if (period === 'weekdayDay') return settings.weekdayDayBaseMinutes;
  const row = CADENCE_PERIODS.find((p) => p.id === period);
  // The table covers every PeriodId; the fallback only satisfies the type checker.
  return row?.baseMinutes ?? 60;
}

/**
 * SCH-1 / OPT-4: a source may be set slower per period, never faster — a value below the base is
 * raised to the base.
 */
export function baseIntervalMinutes(
  period: PeriodId,
  config: Pick<ScheduleSourceConfig, 'cadenceMinutes'>,
  settings: ScheduleSettings,
): number {
  const published = publishedBaseMinutes(period, settings);
  const own = config.cadenceMinutes[period];
  return own !== undefined && own > published ? own : published;
}

/**
 * Local instants where a period may begin or a day (and with it a session-day cap, SCH-2) changes:
 * 00:00, 07:00 and 19:00 of every day, strictly after `after` and strictly before `before`.
 */
export function periodBoundaries(after: DateTime, before: DateTime): DateTime[] {
  const from = toBerlin(after);
  const to = toBerlin(before);
  const afterMs = from.toMillis();
  const beforeMs = to.toMillis();
  if (beforeMs <= afterMs) return [];
  const boundaries: DateTime[] = [];
  if (from.hasSame(to, 'day')) {
    // Fast path (the common case): within one local date only 07:00 and 19:00 can lie in between, and
    // the wall clock is monotonic around them (DST changes happen at 02:00/03:00).
    for (const hour of [WEEKDAY_DAY_START_HOUR, WEEKDAY_DAY_END_HOUR]) {
      const afterIt = from.hour < hour;
      const beforeIt =
        to.hour > hour || (to.hour === hour && (to.minute > 0 || to.second > 0 || to.millisecond > 0));
      if (afterIt && beforeIt) boundaries.push(atLocalTime(from, hour));
    }
    return boundaries;
  }
  for (let day = from.startOf('day'); day.toMillis() < beforeMs; day = day.plus({ days: 1 })) {
    for (const hour of [0, WEEKDAY_DAY_START_HOUR, WEEKDAY_DAY_END_HOUR]) {
      const boundary = atLocalTime(day, hour);
      const ms = boundary.toMillis();
      if (ms > afterMs && ms < beforeMs) boundaries.push(boundary);
    }
  }
  return boundaries;
}
