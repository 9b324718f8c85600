import { IANAZone } from 'luxon';

const BERLIN = IANAZone.create('Europe/Berlin');
const pad = (n: number) => String(n).padStart(2, '0');

/** 01:00 UTC on the last Sunday of a month: when EU summer time starts (March) and ends (October). */
function lastSundayUtc(year: number, month: number): number {
  const d = new Date(Date.UTC(year, month + 1, 0, 1));
  d.setUTCDate(d.getUTCDate() - d.getUTCDay());
  return d.getTime();
}

// The EU rule (uniform since 1996) is exact and about a hundred times faster than asking Intl
// through luxon for each of the thousands of timestamps a council generates.
const summerTime = new Map<number, [number, number]>();
function berlinOffsetMinutes(ms: number): number {
  const year = new Date(ms).getUTCFullYear();
  if (year < 1996) return BERLIN.offset(ms);
  let range = summerTime.get(year);
  if (!range) {
    range = [lastSundayUtc(year, 2), lastSundayUtc(year, 9)];
    summerTime.set(year, range);
  }
  return ms >= range[0] && ms < range[1] ? 120 : 60;
}

/** OParl servers in Germany write local time with offset, e.g. 2024-01-15T09:00:00+01:00. */
export function berlinIso(ms: number): string {
  const offsetMin = berlinOffsetMinutes(ms);
  const local = new Date(Math.floor(ms / 1000) * 1000 + offsetMin * 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

export function berlinDate(ms: number): string {
  return berlinIso(ms).slice(0, 10);
}

/** The instant of a Berlin wall-clock hour on a date (YYYY-MM-DD); fine for hours outside 02–03. */
export function berlinLocalMs(date: string, hour: number, minute = 0): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d, hour, minute);
  return wall - berlinOffsetMinutes(wall - 60 * 60_000) * 60_000;
}

/** Start of the Berlin day containing `ms` (for vendors whose `modified` has no time of day). */
export function berlinMidnight(ms: number): number {
  return berlinLocalMs(berlinDate(ms), 0);
}

// Date-time with an explicit offset, as OParl 1.1 requires for modified_since / modified_until.
const FILTER_VALUE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

export type FilterValue = { ok: true; ms: number; fractional: boolean } | { ok: false };

/**
 * Parses a filter value as a strict server would. The query is decoded form-style, so an
 * unencoded '+' in the offset has already become a space and is rejected here — which is what
 * lets tests prove the client percent-encodes its offsets.
 */
export function parseFilterValue(value: string): FilterValue {
  const m = FILTER_VALUE.exec(value);
  if (!m) return { ok: false };
  const offset = m[3] === 'Z' ? 'Z' : `${m[3]?.slice(0, 3)}:${m[3]?.slice(-2)}`;
  const ms = Date.parse(`${m[1]}${m[2] ?? ''}${offset}`);
  if (Number.isNaN(ms)) return { ok: false };
  return { ok: true, ms, fractional: m[2] !== undefined };
}

export function parseTimestamp(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`fake-council: invalid timestamp ${value}`);
  return ms;
}
