import { DateTime } from 'luxon';
import { ZONE } from '../engine';
import {
  CATCH_UP_CHUNK_DAYS,
  CHANGE_WINDOW_MARGIN_MS,
  CHANGE_WINDOW_MAX_MS,
  SLICE_DAYS,
  SLICE_EPOCH_LOCAL,
} from './constants';

/**
 * Time arithmetic of the sync, pure: change windows (SCH-9), time slices (FULL-5), catch-up chunks
 * (SCH-12) and the one date-time format every server we know accepts.
 */

/**
 * A filter value servers accept: Berlin local time with its offset, whole seconds (some servers reject
 * fractional seconds, SCH-9), e.g. `2026-10-16T00:00:00+02:00`. URL-encode it (`URLSearchParams` does).
 */
export function formatFilterTime(ms: number): string {
  const second = Math.floor(ms / 1000) * 1000;
  const known = FORMATTED.get(second);
  if (known !== undefined) return known;
  const iso = DateTime.fromMillis(second, { zone: ZONE }).toISO({
    suppressMilliseconds: true,
    includeOffset: true,
  });
  if (!iso) throw new RangeError(`cannot format ${ms}`);
  if (FORMATTED.size >= FORMATTED_KEPT) FORMATTED.clear();
  FORMATTED.set(second, iso);
  return iso;
}

/**
 * Issue 28 (sync CPU): a run asks every list from the same few window starts, and luxon's zone offset
 * for each was ≈ 4 % of an unchanged run's CPU — the text of a second never changes, so it is kept.
 */
const FORMATTED = new Map<number, string>();
const FORMATTED_KEPT = 256;

export function startOfBerlinDay(ms: number): number {
  return DateTime.fromMillis(ms, { zone: ZONE }).startOf('day').toMillis();
}

export interface ChangeWindowInput {
  nowMs: number;
  /** Start of the body's last complete sync; undefined when it never completed. */
  lastCompleteStartMs: number | undefined;
  /** The list's `modified` values demonstrably carry a time of day. */
  timeOfDay: boolean;
  /** A change was ever seen in this list (else we know nothing of its timestamps). */
  changeSeen: boolean;
  /** The list was never synced before. */
  newList: boolean;
}

export interface ChangeWindow {
  sinceMs: number;
  /** `precise`: the short window; `day-start`: rounded down to the start of that Berlin day. */
  rule: 'precise' | 'day-start';
  /** The 7-day cap applied. */
  capped: boolean;
}

/**
 * SCH-9: changes since the start of the body's last complete sync minus 2 h, at most the last 7 days.
 * Only lists whose `modified` values demonstrably carry a time of day get this window; the others — and
 * new lists, and lists with no change seen yet — ask from the start of that day.
 */
export function changeWindow(input: ChangeWindowInput): ChangeWindow {
  const oldestMs = input.nowMs - CHANGE_WINDOW_MAX_MS;
  const fromLast =
    input.lastCompleteStartMs === undefined ? undefined : input.lastCompleteStartMs - CHANGE_WINDOW_MARGIN_MS;
  const capped = fromLast === undefined || fromLast < oldestMs;
  const since = capped ? oldestMs : (fromLast as number);
  const precise = input.timeOfDay && input.changeSeen && !input.newList;
  // Rounding down only ever widens the window: a date-only `modified` compares as midnight.
  return precise
    ? { sinceMs: since, rule: 'precise', capped }
    : { sinceMs: startOfBerlinDay(since), rule: 'day-start', capped };
}

export interface TimeSlice {
  index: number;
  /** Undefined for the first slice (everything before 2010-01-01: `modified_until` only). */
  sinceMs: number | undefined;
  untilMs: number;
}

function sliceEpochMs(): number {
  return DateTime.fromISO(SLICE_EPOCH_LOCAL, { zone: ZONE }).toMillis();
}

/**
 * FULL-5: one slice for everything modified before 2010-01-01 (`modified_until` only), then 30-day
 * slices from 2010-01-01 (Berlin days, so boundaries stay at midnight across DST) up to the one
 * containing now. 206 slices per list on 2026-10-16.
 */
export function timeSlices(nowMs: number): TimeSlice[] {
  const epoch = DateTime.fromMillis(sliceEpochMs(), { zone: ZONE });
  const slices: TimeSlice[] = [{ index: 0, sinceMs: undefined, untilMs: epoch.toMillis() }];
  for (let k = 0; ; k++) {
    const since = epoch.plus({ days: k * SLICE_DAYS }).toMillis();
    if (since > nowMs) break;
    const until = epoch.plus({ days: (k + 1) * SLICE_DAYS }).toMillis();
    slices.push({ index: k + 1, sinceMs: since, untilMs: until });
    if (until > nowMs) break;
  }
  return slices;
}

/** SCH-12: catch-up of a slow list in one-day chunks (`modified_since` + `modified_until`) up to now. */
export function catchUpChunks(fromMs: number, nowMs: number): { sinceMs: number; untilMs: number }[] {
  const chunks: { sinceMs: number; untilMs: number }[] = [];
  let since = DateTime.fromMillis(fromMs, { zone: ZONE });
  while (since.toMillis() <= nowMs) {
    const until = since.plus({ days: CATCH_UP_CHUNK_DAYS });
    chunks.push({ sinceMs: since.toMillis(), untilMs: until.toMillis() });
    since = until;
  }
  return chunks;
}

/** The list URL with the modified filter set (replacing any the URL had), properly URL-encoded. */
export function withModifiedFilter(
  url: string,
  sinceMs: number | undefined,
  untilMs: number | undefined,
): string {
  const u = new URL(url);
  u.searchParams.delete('modified_since');
  u.searchParams.delete('modified_until');
  if (sinceMs !== undefined) u.searchParams.set('modified_since', formatFilterTime(sinceMs));
  if (untilMs !== undefined) u.searchParams.set('modified_until', formatFilterTime(untilMs));
  return u.toString();
}

/** The list URL without our filter (reading from the start, SCH-10). */
export function withoutModifiedFilter(url: string): string {
  return withModifiedFilter(url, undefined, undefined);
}

/** Whether a URL still carries the filter we asked for (servers drop it from `links.next`, SCH-10). */
export function carriesFilter(
  url: string,
  sinceMs: number | undefined,
  untilMs: number | undefined,
): boolean {
  const u = new URL(url);
  const since = u.searchParams.get('modified_since');
  const until = u.searchParams.get('modified_until');
  const same = (raw: string | null, ms: number | undefined) =>
    ms === undefined || (raw !== null && Date.parse(raw.replace(' ', '+')) === Math.floor(ms / 1000) * 1000);
  return same(since, sinceMs) && same(until, untilMs);
}
