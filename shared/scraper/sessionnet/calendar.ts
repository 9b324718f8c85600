import { CANCELLED_MARKERS } from '../allris/calendar';
import { PageLayoutError } from '../errors';
import { cleanText, loadHtml, pageName, parseTimeRange, textOf } from '../html';
import type { CalendarPage, CalendarRow } from '../types';
import { sessionNetKeyOf, sessionNetRef, sessionNetSiteOf, sessionNetUrl } from './urls';

/**
 * SessionNet month calendar `si0040?__cjahr=&__cmonat=&__canz=1` (`table#smc_page_si0040_contenttable1`):
 * rows with the day in `td.siday` (only on a day's first row), and in `td.silink` the committee heading
 * (`.smc-el-h`), the meeting link `si0057?__ksinr=` and a detail list (time, room). The page itself does
 * not say which month it shows in every layout, so year and month come from the request.
 */

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
    const dayCell = $(tr).find('td.siday, td.sidat').first();
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
    const heading = textOf(cell.find('.smc-el-h').first());
    if (committeeLink) {
      const k = sessionNetKeyOf($(committeeLink).attr('href'), 'organization') as string;
      row.organization = sessionNetRef(
        site,
        'organization',
        k,
        textOf($(committeeLink)) || heading || undefined,
      );
    }
    if (heading) row.organizationName = heading;
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
  return { year, month, rows };
}
