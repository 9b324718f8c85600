import { CANCELLED_MARKERS } from '../allris/calendar';
import { PageLayoutError } from '../errors';
import { cleanText, loadHtml, pageName, parseTimeRange, textOf } from '../html';
import type { CalendarPage, CalendarRow } from '../types';
import { sessionNetKeyOf, sessionNetRef, sessionNetSiteOf, sessionNetUrl } from './urls';

/**
 * SessionNet month calendar `si0040?__cjahr=&__cmonat=&__canz=1` (`table#smc_page_si0040_contenttable1`):
 * rows with the day in `td.siday` (older layouts) or `td.smc_fct_day > span.weekday` (5.5 "Layout 6",
 * one row per day of the month), only on a day's first row, and in `td.silink` the committee heading
 * (`.smc-el-h`), the meeting link `si0057?__ksinr=` and a detail list (time, room). In Layout 6 the
 * heading holds the link itself (the meeting's long name) and the committee is named only in the link's
 * title, "Details anzeigen: <Gremium> <TT.MM.JJJJ>". The page itself does not say which month it shows in
 * every layout, so year and month come from the request.
 */

/** The day cell of a calendar row, in every layout we know. */
const DAY_CELL = 'td.siday, td.sidat, td.smc_fct_day';
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
  const site = sessionNetSiteOf(pageUrl);
  const rows: CalendarRow[] = [];
  let day: number | undefined;
  table.find('tr').each((_, tr) => {
    const dayCell = $(tr).find(DAY_CELL).first();
    const dayMatch = /^(\d{1,2})\.?$/.exec(cleanText(dayCell.text()));
    if (dayMatch) day = Number(dayMatch[1]);
    const link = $(tr)
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'meeting') !== undefined);
    if (!link || day === undefined || day < 1 || day > 31) return;
    const href = $(link).attr('href') as string;
    const key = sessionNetKeyOf(href, 'meeting') as string;
    const page = pageName(href, pageUrl);
    const meetingId = sessionNetUrl(site, 'meeting', key, page === 'si0050' ? 'si0050' : 'si0057');
    const name = textOf($(link)) || `Sitzung ${key}`;
    const row: CalendarRow = {
      meetingId,
      key,
      detailUrl: meetingId,
      date: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      name,
      cancelled: CANCELLED_MARKERS.test(name) || $(tr).find('.smc-cancelled, .abgesagt, del').length > 0,
    };
    const cell = $(link).closest('td');
    const committeeLink = cell
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'organization') !== undefined);
    const headingNode = cell.find('.smc-el-h').first();
    // A heading that is the meeting link itself names the meeting, not its committee (Layout 6).
    const heading = headingNode.find(link).length > 0 ? '' : textOf(headingNode);
    const titled = DETAILS_TITLE.exec(cleanText($(link).attr('title')))?.[1];
    if (committeeLink) {
      const k = sessionNetKeyOf($(committeeLink).attr('href'), 'organization') as string;
      row.organization = sessionNetRef(
        site,
        'organization',
        k,
        textOf($(committeeLink)) || heading || undefined,
      );
    }
    if (heading || titled) row.organizationName = heading || titled;
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
    if (!rows.some((r) => r.key === key)) rows.push(row);
  });
  // Issue 26: a meeting the table links but no row yielded (its day unreadable) would be lost silently —
  // a layout change at the vendor. The month is a failure then, never an empty or a partial month.
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
  return { year, month, rows };
}
