import { DateTime, IANAZone } from 'luxon';
import { TIME_ZONE } from '../../../shared/schedule/constants';
import { ScheduleError } from '../../../shared/schedule/errors';
import type { Instant } from '../../../shared/schedule/types';

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

/** A complete ISO instant with seconds and an offset (Z or ±HH:MM): the form every stored time has. */
const FULL_ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * The stored form read through the millisecond clock instead of luxon's ISO parser (issue 18: each
 * source's own last-sync times miss the cache, and luxon's parser was most of a decision's CPU). Same
 * instant, same zone; anything else — and any field out of range, which `Date.parse` would roll over
 * (Feb 30, 24:00) where luxon refuses it — goes to luxon's parser.
 */
function fromFullIso(value: string): DateTime | undefined {
  const m = FULL_ISO.exec(value);
  if (m === null) return undefined;
  const field = (group: number) => Number(m[group] ?? 0);
  const year = field(1);
  const month = field(2);
  const day = field(3);
  const hour = field(4);
  const minute = field(5);
  const second = field(6);
  const offsetHour = field(7);
  const offsetMinute = field(8);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const inRange =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHour <= 14 &&
    offsetMinute <= 59;
  const ms = inRange ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : DateTime.fromMillis(ms, { zone: BERLIN_ZONE });
}

/** Parse an instant into Europe/Berlin; a string without offset is read as local time. */
export function toBerlin(value: Instant, what = 'time'): DateTime {
  const cached = typeof value === 'string' ? PARSED.get(value) : undefined;
  if (cached !== undefined) return cached;
  const parsed =
    typeof value === 'string'
      ? (fromFullIso(value) ?? DateTime.fromISO(value, { zone: BERLIN_ZONE }))
      : value.setZone(BERLIN_ZONE);
  if (!parsed.isValid) {
    throw new ScheduleError('SCHEDULE_INVALID_TIME', `${what} is not a valid ISO time: ${String(value)}`);
  }
  if (typeof value === 'string') {
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    PARSED.set(value, parsed);
  }
  return parsed;
}

/**
 * A value computed once per key and kept in a bounded map (issue 18: a planner tick formats and
 * derives the same instants — now, tonight's window, the lease end — for every source). Only for pure
 * computations of the key; the map is emptied when full, which keeps a warm planner's memory flat.
 */
export function remember<K, V>(map: Map<K, V>, key: K, compute: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    if (map.size >= PARSED_MAX) map.clear();
    value = compute();
    map.set(key, value);
  }
  return value;
}

const ISO_BY_MS = new Map<number, string>();
const DATE_BY_MS = new Map<number, string>();

/** ISO with the Berlin offset and no milliseconds, e.g. 2026-12-02T07:00:00+01:00 — the stored form. */
export function toIso(value: DateTime): string {
  if (!value.isValid)
    throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
  // The text depends on the instant alone: the zone is always Europe/Berlin.
  return remember(ISO_BY_MS, value.toMillis(), () => {
    const text = value.setZone(BERLIN_ZONE).toISO({ suppressMilliseconds: true });
    if (text === null)
      throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
    return text;
  });
}

/**
 * `toIso(value.plus({ minutes }))` without luxon's Duration arithmetic per call (issue 18: the planner
 * formats the lease end of every start). luxon adds minutes as plain milliseconds — never calendar
 * arithmetic, whatever the DST change in between — so the instant is the same.
 */
export function toIsoAfterMinutes(value: DateTime, minutes: number): string {
  const ms = value.toMillis() + minutes * MINUTE_MS;
  return ISO_BY_MS.get(ms) ?? toIso(DateTime.fromMillis(ms, { zone: BERLIN_ZONE }));
}

const MINUTE_MS = 60_000;

/** Local calendar date 'YYYY-MM-DD'. */
export function localDate(value: DateTime): string {
  if (!value.isValid)
    throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
  return remember(DATE_BY_MS, value.toMillis(), () => {
    const text = value.setZone(BERLIN_ZONE).toISODate();
    if (text === null)
      throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
    return text;
  });
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
  const sameDay = localDate(local) === localDate(now);
  return remember(sameDay ? CLOCK_BY_MS : STAMP_BY_MS, local.toMillis(), () =>
    local.toFormat(sameDay ? 'HH:mm' : 'yyyy-MM-dd HH:mm'),
  );
}

const CLOCK_BY_MS = new Map<number, string>();
const STAMP_BY_MS = new Map<number, string>();

/** "HH:MM" → minutes after midnight (config already validated the format). */
export function minutesOfDay(hhmm: string): { hour: number; minute: number; total: number } {
  const [hourText = '0', minuteText = '0'] = hhmm.split(':');
  const hour = Number(hourText);
  const minute = Number(minuteText);
  return { hour, minute, total: hour * 60 + minute };
}
