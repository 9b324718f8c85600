import { DateTime } from 'luxon';
import { BERLIN_ZONE, clockText, dayIndexOfDate, dayOfIndex, isoOfMs, localDayAt } from './calendar';
import { ScheduleError } from './errors';
import type { Instant } from './types';

/**
 * The few luxon helpers the schedule core shares. Everything is computed in Europe/Berlin so that
 * "07:00", "Monday 00:00" and "the day before" mean local wall-clock time across DST changes, while
 * intervals ("10 min") are elapsed time.
 */

export { BERLIN_ZONE } from './calendar';

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

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
 * instant; anything else — and any field out of range, which `Date.parse` would roll over (Feb 30,
 * 24:00) where luxon refuses it — is undefined here and goes to luxon's parser.
 */
function fullIsoMs(value: string): number | undefined {
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
  return Number.isNaN(ms) ? undefined : ms;
}

/** Parse an instant into Europe/Berlin; a string without offset is read as local time. */
export function toBerlin(value: Instant, what = 'time'): DateTime {
  const cached = typeof value === 'string' ? PARSED.get(value) : undefined;
  if (cached !== undefined) return cached;
  let parsed: DateTime;
  if (typeof value === 'string') {
    const ms = fullIsoMs(value);
    parsed =
      ms === undefined
        ? DateTime.fromISO(value, { zone: BERLIN_ZONE })
        : DateTime.fromMillis(ms, { zone: BERLIN_ZONE });
  } else parsed = value.setZone(BERLIN_ZONE);
  if (!parsed.isValid) {
    throw new ScheduleError('SCHEDULE_INVALID_TIME', `${what} is not a valid ISO time: ${String(value)}`);
  }
  if (typeof value === 'string') {
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    PARSED.set(value, parsed);
  }
  return parsed;
}

const MS_BY_TEXT = new Map<string, number>();

const ZERO = 48;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by the digits at [from, to), or -1 when one of them is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i += 1) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Days of a month of the proleptic Gregorian calendar (`Date`'s). */
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1] as number;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/**
 * The stored form — `YYYY-MM-DDTHH:mm:ss`, optional `.s`–`.sss`, then `Z` or `±HH:MM` — read digit by
 * digit: the instant `fullIsoMs` gives, without its regular expression and `Date.parse` (issue 27: at
 * 10,000 sources the instants outnumber any memo, and each miss parsed twice). Undefined for any other
 * text, for a field out of range and for years before 100 (`Date.UTC` reads those as 19xx); those go
 * the way they went before.
 */
function storedFormMs(text: string): number | undefined {
  const length = text.length;
  if (length < 20 || length > 29) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return undefined;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const hour = digitsAt(text, 11, 13);
  const minute = digitsAt(text, 14, 16);
  const second = digitsAt(text, 17, 19);
  if (year < 100 || month < 1 || month > 12 || hour < 0 || hour > 23 || minute < 0 || minute > 59) {
    return undefined;
  }
  if (day < 1 || day > daysInMonth(year, month) || second < 0 || second > 59) return undefined;
  let at = 19;
  let millis = 0;
  if (text.charCodeAt(at) === 46) {
    // `.5` is 500 ms, `.05` 50 ms: the fraction's digits scaled to three.
    let digits = 0;
    at += 1;
    while (digits < 3 && at < length) {
      const d = text.charCodeAt(at) - ZERO;
      if (d < 0 || d > 9) break;
      millis = millis * 10 + d;
      digits += 1;
      at += 1;
    }
    if (digits === 0) return undefined;
    millis *= digits === 1 ? 100 : digits === 2 ? 10 : 1;
  }
  let offsetMinutes = 0;
  const zone = text.charCodeAt(at);
  if (zone === 90) {
    if (at + 1 !== length) return undefined;
  } else if (zone === 43 || zone === 45) {
    if (at + 6 !== length || text.charCodeAt(at + 3) !== 58) return undefined;
    const offsetHour = digitsAt(text, at + 1, at + 3);
    const offsetMinute = digitsAt(text, at + 4, at + 6);
    if (offsetHour < 0 || offsetHour > 14 || offsetMinute < 0 || offsetMinute > 59) return undefined;
    offsetMinutes = (zone === 45 ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  } else return undefined;
  const seconds = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second;
  return seconds * 1000 + millis;
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar — `Date.UTC`'s day count, in
 * integer arithmetic (H. Hinnant's `days_from_civil`; a builtin call per instant cost more).
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * An instant as epoch milliseconds, validated as `toBerlin` validates it (issue 27: the decisions only
 * compare and add instants, so they need no DateTime; the stored form is read without luxon).
 */
export function msOf(value: Instant, what = 'time'): number {
  if (typeof value !== 'string') return value.isValid ? value.toMillis() : toBerlin(value, what).toMillis();
  // The stored form is read directly: cheaper than a memo's lookup and insertion, and no memo to outgrow.
  const stored = storedFormMs(value);
  if (stored !== undefined) return stored;
  let ms = MS_BY_TEXT.get(value);
  if (ms === undefined) {
    ms = fullIsoMs(value) ?? toBerlin(value, what).toMillis();
    if (MS_BY_TEXT.size >= PARSED_MAX) MS_BY_TEXT.clear();
    MS_BY_TEXT.set(value, ms);
  }
  return ms;
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

function checkValid(value: DateTime): void {
  if (!value.isValid)
    throw new ScheduleError('SCHEDULE_INVALID_TIME', `invalid time: ${value.invalidReason}`);
}

/** ISO with the Berlin offset and no milliseconds, e.g. 2026-12-02T07:00:00+01:00 — the stored form. */
export function toIso(value: DateTime): string {
  checkValid(value);
  // The text depends on the instant alone: the zone is always Europe/Berlin.
  return isoOfMs(value.toMillis());
}

/**
 * `toIso(value.plus({ minutes }))` without luxon's Duration arithmetic per call (issue 18: the planner
 * formats the lease end of every start). luxon adds minutes as plain milliseconds — never calendar
 * arithmetic, whatever the DST change in between — so the instant is the same.
 */
export function toIsoAfterMinutes(value: DateTime, minutes: number): string {
  checkValid(value);
  return isoOfMs(value.toMillis() + minutes * MINUTE_MS);
}

const MINUTE_MS = 60_000;

/** Local calendar date 'YYYY-MM-DD'. */
export function localDate(value: DateTime): string {
  checkValid(value);
  return localDayAt(value.toMillis()).date;
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

/** `startOfLocalDate`'s checks, without making the DateTime (memoised per text). */
function checkLocalDate(date: string, what = 'date'): void {
  if (!isLocalDate(date)) startOfLocalDate(date, what);
}

const LOCAL_DATES = new Map<string, boolean>();

export function isLocalDate(value: string): boolean {
  // Memoised: every run's outcome checks the source's session days (issue 27).
  return remember(
    LOCAL_DATES,
    value,
    () => LOCAL_DATE.test(value) && DateTime.fromISO(value, { zone: BERLIN_ZONE }).isValid,
  );
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
  checkLocalDate(from);
  checkLocalDate(to);
  return dayIndexOfDate(to) - dayIndexOfDate(from);
}

/** The local date `days` calendar days after the local date `date` (validated). */
export function localDateAfter(date: string, days: number): string {
  checkLocalDate(date);
  return dayOfIndex(dayIndexOfDate(date) + days).date;
}

/** "14:20" when on the same local day as `now`, else "2026-12-03 14:20" — for reasons read by on-call. */
export function formatForReason(value: DateTime, now: DateTime): string {
  checkValid(value);
  checkValid(now);
  return reasonTime(value.toMillis(), now.toMillis());
}

/** `formatForReason` on epoch milliseconds. */
export function reasonTime(ms: number, nowMs: number): string {
  const day = localDayAt(ms);
  const clock = clockText(ms);
  return day.index === localDayAt(nowMs).index ? clock : `${day.date} ${clock}`;
}

/** "HH:MM" → minutes after midnight (config already validated the format). */
export function minutesOfDay(hhmm: string): { hour: number; minute: number; total: number } {
  const [hourText = '0', minuteText = '0'] = hhmm.split(':');
  const hour = Number(hourText);
  const minute = Number(minuteText);
  return { hour, minute, total: hour * 60 + minute };
}
