import { CANCELLED_MARKERS } from '../allris/calendar';
import { PageLayoutError } from '../errors';
import { cleanText, type Element, loadHtml, pageName, parseTimeRange, textOf } from '../html';
import type { CalendarPage, CalendarRow } from '../types';
import {
  type SessionNetSite,
  sessionNetCalendarRowId,
  sessionNetFileOf,
  sessionNetKeyOf,
  sessionNetRef,
  sessionNetSiteOf,
  sessionNetUrl,
} from './urls';

/**
 * SessionNet month calendar `si0040?__cjahr=&__cmonat=&__canz=1` (`table#smc_page_si0040_contenttable1`):
 * rows with the day in `td.siday` (older layouts) or `td.smc_fct_day > span.weekday` (5.5 "Layout 6",
 * one row per day of the month), only on a day's first row, and in `td.silink` the committee heading
 * (`.smc-el-h`), the meeting link `si0057?__ksinr=` and a detail list (time, room). In Layout 6 the
 * heading holds the link itself (the meeting's long name) and the committee is named only in the link's
 * title, "Details anzeigen: <Gremium> <TT.MM.JJJJ>". The page itself does not say which month it shows in
 * every layout, so year and month come from the request.
 *
 * Rows without a meeting page (seen on a real 5.5.4 KP1 installation): a meeting cell whose heading is
 * plain text — a meeting whose page is not published — is a calendar-only meeting, keyed by its date and
 * heading; an appointment cell `td.tename` ("Termin", e.g. "Die Sitzung des … fällt aus.") is a free-text
 * appointment, not a meeting (it names no record, and its committee only in the genitive), so it is no row.
 */

/** The day cell of a calendar row, in every layout we know. */
const DAY_CELL = 'td.siday, td.sidat, td.smc_fct_day';
/** The cell that holds a meeting (link or plain heading); `td.tename` appointment cells are not meetings. */
const MEETING_CELL = 'td.silink';
/** Layout 6 link title: the committee, then the meeting's date. */
const DETAILS_TITLE = /^Details anzeigen:\s*(.+?)\s+\d{1,2}\.\d{1,2}\.\d{4}$/;

function calendarTable($: ReturnType<typeof loadHtml>) {
  const byId = $('table[id^="smc_page_si0040_contenttable"]').first();
  if (byId.length > 0) return byId;
  return $('table')
    .filter((_, t) => $(t).find('a[href*="__ksinr" i]').length > 0)
    .first();
}

export function parseSessionNetCalendar(
  html: string,
  pageUrl: string,
  year: number,
  month: number,
): CalendarPage {
  const $ = loadHtml(html);
  const table = calendarTable($);
  if (table.length === 0) {
    const empty = $('[id^="smc_page_si0040"], .smc-calendar, #smccontent').length > 0;
    if (!empty) throw new PageLayoutError('si0040', pageUrl, 'no calendar table');
    return { year, month, rows: [] };
  }
  const cal: CalendarRead = {
    $,
    site: sessionNetSiteOf(pageUrl),
    pageUrl,
    year,
    month,
    rows: [],
    unreadableCells: 0,
  };
  // The day stands on a day's first row only: it holds for the rows after it.
  let day: number | undefined;
  table.find('tr').each((_, tr) => {
    const dayMatch = /^(\d{1,2})\.?$/.exec(cleanText($(tr).find(DAY_CELL).first().text()));
    if (dayMatch) day = Number(dayMatch[1]);
    const link = $(tr)
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'meeting') !== undefined);
    if (!link) {
      readPlainMeetingCells(cal, $(tr), day);
      return;
    }
    if (!isCalendarDay(day)) return;
    const row = linkedMeetingRow(cal, $(tr), { link, date: calendarDate(cal, day) });
    if (!cal.rows.some((r) => r.key === row.key)) cal.rows.push(row);
  });
  requireEveryMeetingRead(cal, table);
  return { year, month, rows: cal.rows };
}

/** The month being read: its page, site, year and month, the rows so far and the cells not readable. */
interface CalendarRead {
  $: Loaded;
  site: SessionNetSite;
  pageUrl: string;
  year: number;
  month: number;
  rows: CalendarRow[];
  /**
   * Meeting cells we cannot read — linking somewhere but to no meeting (no `__ksinr`), or a plain heading
   * in a row with no readable day: a vendor change, never skipped.
   */
  unreadableCells: number;
}

function isCalendarDay(day: number | undefined): day is number {
  return day !== undefined && day >= 1 && day <= 31;
}

function calendarDate(cal: CalendarRead, day: number): string {
  return `${cal.year}-${String(cal.month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * A row without a meeting link: each non-empty meeting cell is a calendar-only meeting — unless it links
 * somewhere that is no committee nor document (that link was meant to be the meeting's), or its day
 * cannot be read: then it counts as unreadable.
 */
function readPlainMeetingCells(cal: CalendarRead, tr: Cell, day: number | undefined): void {
  const { $, site } = cal;
  tr.find(MEETING_CELL).each((_, td) => {
    const cell = $(td);
    if (textOf(cell) === '') return;
    if (hasStrayLink($, cell) || !isCalendarDay(day)) {
      cal.unreadableCells += 1;
      return;
    }
    const idOf = (key: string) => sessionNetCalendarRowId(site, cal.year, cal.month, key);
    const row = calendarOnlyRow($, cell, { date: calendarDate(cal, day), rows: cal.rows, idOf });
    const committee = committeeLinkIn($, cell);
    if (committee) row.organization = sessionNetRef(site, 'organization', committee.key, committee.name);
    cal.rows.push(row);
  });
}

/** A committee or document link is fine in a meeting cell; any other link was meant to be the meeting's. */
function hasStrayLink($: Loaded, cell: Cell): boolean {
  return cell
    .find('a[href]')
    .toArray()
    .some((a) => {
      const href = $(a).attr('href');
      return sessionNetKeyOf(href, 'organization') === undefined && !sessionNetFileOf(href);
    });
}

/** A row linking its meeting page: the meeting, its committee (linked, headed or titled), time and room. */
function linkedMeetingRow(
  cal: CalendarRead,
  tr: Cell,
  meeting: { link: Element; date: string },
): CalendarRow {
  const { $, site, pageUrl } = cal;
  const { link } = meeting;
  const href = $(link).attr('href') as string;
  const key = sessionNetKeyOf(href, 'meeting') as string;
  const page = pageName(href, pageUrl);
  const meetingId = sessionNetUrl(site, 'meeting', key, page === 'si0050' ? 'si0050' : 'si0057');
  const name = textOf($(link)) || `Sitzung ${key}`;
  const row: CalendarRow = {
    meetingId,
    key,
    detailUrl: meetingId,
    date: meeting.date,
    name,
    cancelled: CANCELLED_MARKERS.test(name) || tr.find('.smc-cancelled, .abgesagt, del').length > 0,
  };
  const cell = $(link).closest('td');
  const committeeLink = committeeLinkIn($, cell);
  const headingNode = cell.find('.smc-el-h').first();
  // A heading that is the meeting link itself names the meeting, not its committee (Layout 6).
  const heading = headingNode.find(link).length > 0 ? '' : textOf(headingNode);
  const titled = DETAILS_TITLE.exec(cleanText($(link).attr('title')))?.[1];
  if (committeeLink) {
    const name = committeeLink.name ?? (heading || undefined);
    row.organization = sessionNetRef(site, 'organization', committeeLink.key, name);
  }
  if (heading || titled) row.organizationName = heading || titled;
  addDetails($, cell, row);
  return row;
}

/**
 * Unreadable meeting cells fail the month. Issue 26: so does a meeting the table links but no row
 * yielded (its day unreadable) — it would be lost silently, a layout change at the vendor. The month is a
 * failure then, never an empty or a partial month.
 */
function requireEveryMeetingRead(cal: CalendarRead, table: Cell): void {
  const { $, pageUrl, rows } = cal;
  if (cal.unreadableCells > 0) {
    throw new PageLayoutError(
      'si0040',
      pageUrl,
      `${cal.unreadableCells} meeting cell(s) we cannot read (a link without __ksinr, or no readable day)`,
    );
  }
  const linked = new Set(
    table
      .find('a[href]')
      .toArray()
      .map((a) => sessionNetKeyOf($(a).attr('href'), 'meeting'))
      .filter((k): k is string => k !== undefined),
  );
  const lost = [...linked].filter((k) => !rows.some((r) => r.key === k));
  if (lost.length > 0) {
    throw new PageLayoutError(
      'si0040',
      pageUrl,
      `${lost.length} of ${linked.size} linked meeting(s) in no row with a readable day (__ksinr ${lost.slice(0, 5).join(', ')})`,
    );
  }
}

type Loaded = ReturnType<typeof loadHtml>;
type Cell = ReturnType<Loaded>;

/** The committee a meeting cell links (`kp0040?__kgrnr=`): its record number and the link's text. */
function committeeLinkIn($: Loaded, cell: Cell): { key: string; name?: string } | undefined {
  for (const a of cell.find('a[href]').toArray()) {
    const key = sessionNetKeyOf($(a).attr('href'), 'organization');
    if (key !== undefined) return { key, ...(textOf($(a)) ? { name: textOf($(a)) } : {}) };
  }
  return undefined;
}

/** Time and room from a meeting cell's detail list ("17:04-18:03 Uhr", room). */
function addDetails($: Loaded, cell: Cell, row: CalendarRow): void {
  const details = cell
    .find('.smc-detail-list li, ul li')
    .toArray()
    .map((li) => textOf($(li)))
    .filter(Boolean);
  const timeText = details.find((d) => /\d{1,2}[:.]\d{2}/.test(d));
  const time = parseTimeRange(timeText);
  if (time.start) row.startTime = time.start;
  if (time.end) row.endTime = time.end;
  const room = details.find((d) => d !== timeText);
  if (room) row.room = room;
}

/** The calendar day a cell is read on: its date, the rows read so far, the meeting id of a row key. */
interface CalendarDay {
  date: string;
  rows: readonly CalendarRow[];
  idOf: (key: string) => string;
}

/**
 * A meeting cell with a plain heading: the meeting has no page, the row is all there is. Its key is the
 * date and the heading (the committee), numbered when the same heading repeats on one day.
 */
function calendarOnlyRow($: Loaded, cell: Cell, day: CalendarDay): CalendarRow {
  const { date, rows, idOf } = day;
  const heading = textOf(cell.find('.smc-el-h').first()) || textOf(cell);
  const base = `${date} ${heading}`;
  let key = base;
  for (let n = 2; rows.some((r) => r.key === key); n += 1) key = `${base} (${n})`;
  const row: CalendarRow = {
    meetingId: idOf(key),
    key,
    calendarOnly: true,
    date,
    name: heading,
    organizationName: heading,
    cancelled: CANCELLED_MARKERS.test(heading),
  };
  addDetails($, cell, row);
  return row;
}
