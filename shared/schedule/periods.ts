import type { DateTime } from 'luxon';
import { atLocalMs, dayOfIndex, localDayAt, localHourOf } from './calendar';
import { CADENCE_PERIODS, type PeriodId, WEEKDAY_DAY_END_HOUR, WEEKDAY_DAY_START_HOUR } from './constants';
import { msOf, toBerlin } from './time';
import type { Instant, ScheduleSettings, ScheduleSourceConfig } from './types';

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
  return periodAtMs(msOf(instant));
}

/** `periodAt` on epoch milliseconds. */
export function periodAtMs(ms: number): PeriodId {
  if (localDayAt(ms).weekday >= 6) return 'weekend';
  const hour = localHourOf(ms);
  return hour >= WEEKDAY_DAY_START_HOUR && hour < WEEKDAY_DAY_END_HOUR ? 'weekdayDay' : 'weekdayNight';
}

/** CADENCE_PERIODS by id, read once (issue 27: looked up several times a decision). */
const PUBLISHED_BASE_MINUTES = new Map<PeriodId, number>(CADENCE_PERIODS.map((p) => [p.id, p.baseMinutes]));

/** SCH-1: the published base of a period; INGESTOR_INTERVAL replaces the weekday-daytime one. */
export function publishedBaseMinutes(period: PeriodId, settings: ScheduleSettings): number {
  if (period === 'weekdayDay') return settings.weekdayDayBaseMinutes;
  // The table covers every PeriodId; the fallback only satisfies the type checker.
  return PUBLISHED_BASE_MINUTES.get(period) ?? 60;
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
  return periodBoundariesMs(msOf(after), msOf(before)).map((ms) => toBerlin(new Date(ms).toISOString()));
}

const BOUNDARY_HOURS = [0, WEEKDAY_DAY_START_HOUR, WEEKDAY_DAY_END_HOUR] as const;

/** `periodBoundaries` on epoch milliseconds: each local day's 00:00, 07:00 and 19:00 in (after, before). */
export function periodBoundariesMs(afterMs: number, beforeMs: number): number[] {
  const boundaries: number[] = [];
  if (beforeMs <= afterMs) return boundaries;
  for (let day = localDayAt(afterMs); day.startMs < beforeMs; day = dayOfIndex(day.index + 1)) {
    for (const hour of BOUNDARY_HOURS) {
      const ms = atLocalMs(day, hour);
      if (ms > afterMs && ms < beforeMs) boundaries.push(ms);
    }
  }
  return boundaries;
}
