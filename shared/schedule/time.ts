import { DateTime, IANAZone } from 'luxon';
import { TIME_ZONE } from './constants';
import { ScheduleError } from './errors';
import type { Instant } from './types';

/**
 * The few luxon helpers the schedule core shares. Everything is computed in Europe/Berlin so that
 * "07:00", "Monday 00:00" and "the day before" mean local wall-clock time across DST changes, while
 * intervals ("10 min") are elapsed time.
 */

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

const HOUR_MS = 3_600_000;
/** 1990-01-01: from here on every Europe/Berlin offset change falls on a whole UTC hour. */
const WHOLE_HOUR_TRANSITIONS_FROM_MS = Date.UTC(1990, 0, 1);

/**
 * Europe/Berlin with its offsets memoised per UTC hour. luxon asks Intl for the offset of every
 * DateTime it creates, which made a simulated year take tens of seconds; the offset can only change
 * on a whole UTC hour (01:00 UTC since 1981), so one lookup per hour gives identical results.
 */
class HourCachedZone extends IANAZone {
  readonly #offsets = new Map<number, number>();

  override offset(ts: number): number {
    if (ts < WHOLE_HOUR_TRANSITIONS_FROM_MS) return super.offset(ts);
    const hour = Math.floor(ts / HOUR_MS);
    let minutes = this.#offsets.get(hour);
    if (minutes === undefined) {
      if (this.#offsets.size > 200_000) this.#offsets.clear();
      minutes = super.offset(ts);
      this.#offsets.set(hour, minutes);
    }
    return minutes;
  }
}

/** The zone object every schedule computation uses (same rules as the string TIME_ZONE). */
export const BERLIN_ZONE = new HourCachedZone(TIME_ZONE);

/**
 * Parsed ISO strings (issue 18: parsing is most of a planner decision's CPU, and one tick parses the
 * same instants — now, window ids, last night's full sync — for every source). Luxon's DateTime is
 * immutable, so sharing one is safe; the bound keeps a warm planner's memory flat.
 */
const PARSED = new Map<string, DateTime>();
const PARSED_MAX = 20_000;

/** Parse an instant into Europe/Berlin; a string without offset is read as local time. */
export function toBerlin(value: Instant, what = 'time'): DateTime {
  const cached = typeof value === 'string' ? PARSED.get(value) : undefined;
  if (cached !== undefined) return cached;
  const parsed =
    typeof value === 'string' ? DateTime.fromISO(value, { zone: BERLIN_ZONE }) : value.setZone(BERLIN_ZONE);
  if (!parsed.isValid) {
    throw new ScheduleError('SCHEDULE_INVALID_TIME', `${what} is not a valid ISO time: ${String(value)}`);
  }
  if (typeof value === 'string') {
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    PARSED.set(value, parsed);
  }
  return parsed;
}

/** ISO with the Berlin offset and no milliseconds, e.g. 2026-12-02T07:00:00+01:00 — the stored form. */
export function toIso(value: DateTime): string {
  const text = value.setZone(BERLIN_ZONE).toISO({ suppressMilliseconds: true });
  if (text === null) throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
  return text;
}

/** Local calendar date 'YYYY-MM-DD'. */
export function localDate(value: DateTime): string {
  const text = value.setZone(BERLIN_ZONE).toISODate();
  if (text === null) throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
  return text;
}

/** Start of a local date given as 'YYYY-MM-DD'. */
export function startOfLocalDate(date: string, what = 'date'): DateTime {
  if (!LOCAL_DATE.test(date)) {
    throw new ScheduleError(
      'SCHEDULE_INVALID_TIME',
      `${what} must be a local date YYYY-MM-DD, got "${date}"`,
    );
  }
  return toBerlin(date, what).startOf('day');
}

export function isLocalDate(value: string): boolean {
  return LOCAL_DATE.test(value) && DateTime.fromISO(value, { zone: BERLIN_ZONE }).isValid;
}

/** The instant of a wall-clock time on the local day of `day` (a DST gap shifts it forward). */
export function atLocalTime(day: DateTime, hour: number, minute = 0): DateTime {
  const local = day.setZone(BERLIN_ZONE);
  return DateTime.fromObject(
    { year: local.year, month: local.month, day: local.day, hour, minute },
    { zone: BERLIN_ZONE },
  );
}

/** Whole calendar days from local date `from` to local date `to` (DST days count as one day). */
export function calendarDaysBetween(from: string, to: string): number {
  return Math.round(startOfLocalDate(to).diff(startOfLocalDate(from), 'days').days);
}

export function laterOf(a: DateTime, b: DateTime): DateTime {
  return a.toMillis() >= b.toMillis() ? a : b;
}

export function earlierOf(a: DateTime, b: DateTime): DateTime {
  return a.toMillis() <= b.toMillis() ? a : b;
}

/** "14:20" when on the same local day as `now`, else "2026-12-03 14:20" — for reasons read by on-call. */
export function formatForReason(value: DateTime, now: DateTime): string {
  const local = value.setZone(BERLIN_ZONE);
  return localDate(local) === localDate(now) ? local.toFormat('HH:mm') : local.toFormat('yyyy-MM-dd HH:mm');
}

/** "HH:MM" → minutes after midnight (config already validated the format). */
export function minutesOfDay(hhmm: string): { hour: number; minute: number; total: number } {
  const [hourText = '0', minuteText = '0'] = hhmm.split(':');
  const hour = Number(hourText);
  const minute = Number(minuteText);
  return { hour, minute, total: hour * 60 + minute };
}
