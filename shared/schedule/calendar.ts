import { DateTime, IANAZone } from 'luxon';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../util';
import { TIME_ZONE } from './constants';

/**
 * Europe/Berlin's calendar on epoch milliseconds (issue 27: the fleet bench spent ≈ 90 % of its CPU in
 * luxon, ≈ 50 µs a decision). A local date is computed once — its start, its weekday, whether its offset
 * changes during it — and every instant on it is then plain arithmetic: the wall-clock hour of an
 * instant is its local milliseconds, the instant of 07:00 on a day without a DST change is its midnight
 * + 7 h. On the two DST days (and before 1990) the wall-clock instants are asked of luxon, as before, so
 * the results are the very ones luxon gives (test/schedule/fast-path.test.ts compares them).
 */

/** 1990-01-01: from here on every Europe/Berlin offset change falls on a whole UTC hour. */
const WHOLE_HOUR_TRANSITIONS_FROM_MS = Date.UTC(1990, 0, 1);
/** 9999-12-31: beyond, `toISOString` writes six-digit years; luxon formats those. */
const FOUR_DIGIT_YEARS_UNTIL_MS = Date.UTC(9999, 11, 31);
/** Bound of every memo here: a warm planner's memory stays flat. */
const MEMO_MAX = 20_000;

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

/** One local date in Europe/Berlin. */
export interface LocalDay {
  /** Days since 1970-01-01 of the local calendar (the local date's UTC midnight ÷ one day). */
  index: number;
  /** 'YYYY-MM-DD'. */
  date: string;
  year: number;
  month: number;
  day: number;
  /** ISO weekday, 1 = Monday … 7 = Sunday (luxon's `weekday`). */
  weekday: number;
  /** The instant of local 00:00 (luxon's `startOf('day')`). */
  startMs: number;
  /** The instant of the next local 00:00. */
  endMs: number;
  /** The offset is the same all day (no DST change, from 1990 on): a wall time is midnight + its minutes. */
  uniform: boolean;
}

const DAYS = new Map<number, LocalDay>();

function remembered<K, V>(map: Map<K, V>, key: K, compute: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    if (map.size >= MEMO_MAX) map.clear();
    value = compute();
    map.set(key, value);
  }
  return value;
}

/** The wall clock's milliseconds of an instant (its local time read as if it were UTC). */
export function localMsOf(ms: number): number {
  return ms + BERLIN_ZONE.offset(ms) * MINUTE_MS;
}

function midnightOf(index: number): number {
  const utc = new Date(index * DAY_MS);
  return DateTime.fromObject(
    { year: utc.getUTCFullYear(), month: utc.getUTCMonth() + 1, day: utc.getUTCDate() },
    { zone: BERLIN_ZONE },
  ).toMillis();
}

/** The local date with this day index (see `LocalDay.index`). */
export function dayOfIndex(index: number): LocalDay {
  return remembered(DAYS, index, () => {
    const utc = new Date(index * DAY_MS);
    const startMs = midnightOf(index);
    const endMs = midnightOf(index + 1);
    return {
      index,
      date: utc.toISOString().slice(0, 10),
      year: utc.getUTCFullYear(),
      month: utc.getUTCMonth() + 1,
      day: utc.getUTCDate(),
      weekday: ((utc.getUTCDay() + 6) % 7) + 1,
      startMs,
      endMs,
      uniform:
        startMs >= WHOLE_HOUR_TRANSITIONS_FROM_MS &&
        BERLIN_ZONE.offset(startMs) === BERLIN_ZONE.offset(endMs - 1),
    };
  });
}

/** The local date an instant falls on. */
export function localDayAt(ms: number): LocalDay {
  return dayOfIndex(Math.floor(localMsOf(ms) / DAY_MS));
}

/** The day index of a local date 'YYYY-MM-DD' (already validated). */
export function dayIndexOfDate(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

/** The wall-clock hour (0–23) of an instant. */
export function localHourOf(ms: number): number {
  const local = localMsOf(ms);
  return Math.floor((local - Math.floor(local / DAY_MS) * DAY_MS) / HOUR_MS);
}

/** "HH:mm" of an instant's wall clock (luxon's `toFormat('HH:mm')` in Europe/Berlin). */
export function clockText(ms: number): string {
  const local = localMsOf(ms);
  const minutes = Math.floor((local - Math.floor(local / DAY_MS) * DAY_MS) / MINUTE_MS);
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const WALL_TIMES = new Map<string, number>();

/**
 * The instant of a wall-clock time on a local date (luxon's `DateTime.fromObject`: a time in the DST
 * gap is shifted forward). Plain arithmetic on a day without an offset change; luxon on the others.
 */
export function atLocalMs(day: LocalDay, hour: number, minute = 0): number {
  if (day.uniform) return day.startMs + (hour * 60 + minute) * MINUTE_MS;
  return remembered(WALL_TIMES, `${day.index}|${hour}|${minute}`, () =>
    DateTime.fromObject(
      { year: day.year, month: day.month, day: day.day, hour, minute },
      { zone: BERLIN_ZONE },
    ).toMillis(),
  );
}

const ISO_BY_MS = new Map<number, string>();

/**
 * The stored form of an instant: ISO with the Berlin offset, milliseconds only when not 0 — luxon's
 * `toISO({ suppressMilliseconds: true })` in Europe/Berlin, written from the wall clock's milliseconds.
 */
export function isoOfMs(ms: number): string {
  return remembered(ISO_BY_MS, ms, () => {
    if (ms < WHOLE_HOUR_TRANSITIONS_FROM_MS || ms > FOUR_DIGIT_YEARS_UNTIL_MS) {
      return DateTime.fromMillis(ms, { zone: BERLIN_ZONE }).toISO({ suppressMilliseconds: true }) as string;
    }
    const offset = BERLIN_ZONE.offset(ms);
    const wall = new Date(ms + offset * MINUTE_MS).toISOString();
    const sign = offset < 0 ? '-' : '+';
    const abs = Math.abs(offset);
    return `${wall.slice(0, ms % 1000 === 0 ? 19 : 23)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  });
}
