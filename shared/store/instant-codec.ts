/**
 * Issue 28: instants and local dates stored short in the STATE item (schedule-codec.ts), each only where
 * it reads back as the very same text — the codec is lossless: a value in any other form is stored as it
 * was written. Pure; no zone database (the store sits below shared/schedule): Europe/Berlin's offset is
 * the EU rule (summer time from the last Sunday of March to the last Sunday of October, 01:00 UTC), and
 * an instant whose text disagrees with it simply stays text.
 *
 * - `2026-11-30T10:00:00+01:00` (the schedule's own form, whole seconds) → epoch seconds, a number;
 * - `2026-11-30T09:00:00.000Z` (`Date#toISOString`) → epoch milliseconds, a number;
 *   told apart by size: seconds stay below `SECONDS_BELOW` (the year 5138), milliseconds above it
 *   (March 1973 on) — DynamoDB sizes either at ≈ 1 byte per two digits, 6–8 B instead of 24–25 B;
 * - session days `YYYY-MM-DD` → days since 1970 in three base-36 characters, all of a list in one string.
 */

const SECONDS_BELOW = 1e11;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Days since 1970 in three base-36 characters: up to 46,655 (the year 2097). */
const DAY_WIDTH = 3;
const DAYS_BELOW = 36 ** DAY_WIDTH;
const LOCAL_DATE = /^\d{4}-\d\d-\d\d$/;

/** The last Sunday of a month (0-based) at 01:00 UTC: the EU's summer-time switch. */
function lastSundayOneUtc(year: number, month: number): number {
  const lastDay = Date.UTC(year, month + 1, 0);
  return lastDay - new Date(lastDay).getUTCDay() * DAY_MS + HOUR_MS;
}

/** Summer time's start and end of a year (epoch ms), computed once a year. */
const SUMMER_BY_YEAR = new Map<number, readonly [number, number]>();

/** Europe/Berlin's offset from UTC in minutes at `ms` (EU rule, as in force since 1996). */
function berlinOffsetMinutes(ms: number): number {
  const year = new Date(ms).getUTCFullYear();
  let summer = SUMMER_BY_YEAR.get(year);
  if (summer === undefined) {
    summer = [lastSundayOneUtc(year, 2), lastSundayOneUtc(year, 9)];
    SUMMER_BY_YEAR.set(year, summer);
  }
  return ms >= summer[0] && ms < summer[1] ? 120 : 60;
}

/**
 * Texts decoded lately: the planner reads every STATE item each tick (issue 27: 10,000 sources), and
 * most of their instants are the same from one tick to the next. Bounded; emptied when full.
 */
const TEXT_BY_SECONDS = new Map<number, string>();
const TEXTS_REMEMBERED = 100_000;

/** The schedule's text of a whole-second instant: Berlin wall time with its offset. */
function berlinText(seconds: number): string {
  const known = TEXT_BY_SECONDS.get(seconds);
  if (known !== undefined) return known;
  const ms = seconds * 1000;
  const offset = berlinOffsetMinutes(ms);
  const wall = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const text = `${wall}${offset === 120 ? '+02:00' : '+01:00'}`;
  if (TEXT_BY_SECONDS.size >= TEXTS_REMEMBERED) TEXT_BY_SECONDS.clear();
  TEXT_BY_SECONDS.set(seconds, text);
  return text;
}

/** An instant as stored: a number where it reads back as the same text, else as it is. */
export function storedInstant(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return value;
  const seconds = ms / 1000;
  if (Number.isInteger(seconds) && seconds >= 0 && seconds < SECONDS_BELOW && berlinText(seconds) === value)
    return seconds;
  if (ms >= SECONDS_BELOW && new Date(ms).toISOString() === value) return ms;
  return value;
}

/** An instant in the schedule's shape again, from either stored form. */
export function instantFromStore(value: unknown): unknown {
  if (typeof value !== 'number') return value;
  return value < SECONDS_BELOW ? berlinText(value) : new Date(value).toISOString();
}

function dayNumber(date: string): number | undefined {
  if (!LOCAL_DATE.test(date)) return undefined;
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== date) return undefined;
  const day = ms / DAY_MS;
  return day >= 0 && day < DAYS_BELOW ? day : undefined;
}

/** Session days as stored: one string of three characters a day, unless a day does not read back. */
export function storedLocalDates(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0) return value;
  let text = '';
  for (const date of value) {
    const day = typeof date === 'string' ? dayNumber(date) : undefined;
    if (day === undefined) return value;
    text += day.toString(36).padStart(DAY_WIDTH, '0');
  }
  return text;
}

/** Session-day strings decoded lately (as `TEXT_BY_SECONDS`: the planner reads them every tick). */
const DATES_BY_TEXT = new Map<string, readonly string[]>();

/** Session days as a list of `YYYY-MM-DD` again (a stored list is returned as it is). */
export function localDatesFromStore(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const known = DATES_BY_TEXT.get(value);
  if (known !== undefined) return [...known];
  const dates: string[] = [];
  for (let i = 0; i < value.length; i += DAY_WIDTH) {
    const day = Number.parseInt(value.slice(i, i + DAY_WIDTH), 36);
    dates.push(new Date(day * DAY_MS).toISOString().slice(0, 10));
  }
  if (DATES_BY_TEXT.size >= TEXTS_REMEMBERED) DATES_BY_TEXT.clear();
  DATES_BY_TEXT.set(value, dates);
  return [...dates];
}
