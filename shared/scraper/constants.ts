import { DateTime } from 'luxon';
import { ZONE } from '../engine';

/**
 * The scrape policy (issue 8), one table so tests, the bench and the rules page read the same numbers.
 *
 * Why re-reading calendar months is the whole incremental scrape: a council's HTML pages carry no
 * modification times and no change filter (SCH-8's `modified_since` has no HTML equivalent). What does
 * change visibly is the month calendar: a meeting row gains its "TO" button when the agenda is
 * published, its minutes button afterwards, a new time or room, "ENTFÄLLT". So each run reads the
 * months around today and fetches a meeting page only when its row changed; papers only when their
 * agenda row changed. Agenda changes that leave the calendar row alone (a late "Nachtrags-TOP") are
 * caught by re-reading the pages of meetings close to today every few hours — a handful of requests a
 * day, never per run.
 */
export interface ScrapePolicy {
  /** Incremental scrape: calendar months from this many days back … */
  monthsBackDays: number;
  /** … to this many days ahead (issue 8: 60 back, 210 ahead). */
  monthsAheadDays: number;
  /** Meetings starting within [now − back, now + ahead] days have their page re-read … */
  revisitBackDays: number;
  revisitAheadDays: number;
  /** … when it was read longer ago than this (hours). */
  revisitEveryHours: number;
  /** Full scrape: any meeting page read longer ago than this is read again (days). */
  fullRevisitEveryDays: number;
  /**
   * Full scrape: all months of the current legislative term. Terms are 5 years in most states (6 in
   * Bavaria); the RIS pages do not state the term, so the full scrape reaches back this many years.
   */
  termYears: number;
  /** Full scrape: committee and faction rosters read longer ago than this are read again (days). */
  rosterRefreshDays: number;
}

export const SCRAPE_POLICY: Readonly<ScrapePolicy> = {
  monthsBackDays: 60,
  monthsAheadDays: 210,
  revisitBackDays: 14,
  revisitAheadDays: 28,
  revisitEveryHours: 6,
  fullRevisitEveryDays: 30,
  termYears: 5,
  rosterRefreshDays: 7,
};

/** `YYYY-MM` months a scrape of `kind` reads at `nowMs`, oldest first. Pure. */
export function scrapeMonths(
  kind: 'incremental' | 'full',
  nowMs: number,
  policy: ScrapePolicy = SCRAPE_POLICY,
): string[] {
  const now = DateTime.fromMillis(nowMs, { zone: ZONE });
  const from = (
    kind === 'full'
      ? now.minus({ months: Math.round(policy.termYears * 12) })
      : now.minus({ days: policy.monthsBackDays })
  ).startOf('month');
  const to = now.plus({ days: policy.monthsAheadDays }).startOf('month');
  const months: string[] = [];
  for (let m = from; m <= to; m = m.plus({ months: 1 })) months.push(m.toFormat('yyyy-MM'));
  return months;
}

/**
 * Whether an unchanged calendar row's meeting page is due to be read again. Pure.
 * `lastReadIso` undefined: never read (a row that always had a page but whose read failed).
 */
export function revisitDue(input: {
  kind: 'incremental' | 'full';
  meetingDate: string;
  lastReadIso: string | undefined;
  nowMs: number;
  policy?: ScrapePolicy;
}): boolean {
  const policy = input.policy ?? SCRAPE_POLICY;
  if (input.lastReadIso === undefined) return true;
  const ageMs = input.nowMs - Date.parse(input.lastReadIso);
  if (input.kind === 'full') return ageMs >= policy.fullRevisitEveryDays * 86_400_000;
  const start = DateTime.fromISO(input.meetingDate, { zone: ZONE }).toMillis();
  const inWindow =
    start >= input.nowMs - policy.revisitBackDays * 86_400_000 &&
    start <= input.nowMs + policy.revisitAheadDays * 86_400_000;
  return inWindow && ageMs >= policy.revisitEveryHours * 3_600_000;
}
