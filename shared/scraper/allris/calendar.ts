import { PageLayoutError } from '../errors';
import { cleanText, isRecordNumber, loadHtml, pageName, parseTimeRange, textOf } from '../html';
import type { CalendarPage, CalendarRow } from '../types';
import { headline, organizationListLinks } from './common';
import { allrisBase, allrisKeyOf, allrisUrl } from './urls';

/**
 * ALLRIS 3 month calendar `si010_e.asp?MM=&YY=` (`table.tl1`): one row per meeting, the weekday and
 * day only in the first row of a day. A meeting's record number sits in its forms (calendar export,
 * "TO") even when its name is plain text — the agenda is not published (yet) or the meeting is not
 * public; then there is no `detailUrl`. Rows without a record number (holidays, "Schulferien") are not
 * meetings.
 */

const MONTHS_DE = [
  'januar',
  'februar',
  'märz',
  'april',
  'mai',
  'juni',
  'juli',
  'august',
  'september',
  'oktober',
  'november',
  'dezember',
];

/** "ENTFÄLLT! Sitzung des …", "abgesagt": the meeting does not take place. */
export const CANCELLED_MARKERS = /\b(entf(ä|ae|a)llt|abgesagt|f(ä|ae)llt aus|ausgefallen)\b/i;

export function parseAllrisCalendar(
  html: string,
  pageUrl: string,
  year: number,
  month: number,
): CalendarPage {
  const $ = loadHtml(html);
  const container = $('#allriscontainer');
  if (container.length === 0 || !(container.attr('class') ?? '').toLowerCase().includes('si010')) {
    throw new PageLayoutError('si010_e', pageUrl, 'no ALLRIS calendar container');
  }
  const shown = cleanText($('h2').first().text()).toLowerCase();
  const m = /([a-zäöü]+)\s+(\d{4})/.exec(shown);
  if (m) {
    const shownMonth = MONTHS_DE.indexOf(m[1] ?? '') + 1;
    if (shownMonth > 0 && (shownMonth !== month || Number(m[2]) !== year)) {
      throw new PageLayoutError('si010_e', pageUrl, `shows ${shown}, asked for ${month}/${year}`);
    }
  }
  const table = $('table.tl1').first();
  if (table.length === 0) throw new PageLayoutError('si010_e', pageUrl, 'no calendar table (table.tl1)');

  const base = allrisBase(pageUrl);
  const rows: CalendarRow[] = [];
  let day: number | undefined;
  table.find('tr').each((_, tr) => {
    const cells = $(tr).children('td');
    if (cells.length < 2) return;
    const dayText = cleanText(cells.eq(1).text());
    if (/^\d{1,2}$/.test(dayText)) day = Number(dayText);
    let key: string | undefined;
    $(tr)
      .find('input[name="SILFDNR" i]')
      .each((_, input) => {
        const v = $(input).attr('value')?.trim();
        if (key === undefined && isRecordNumber(v)) key = v;
      });
    let detail: string | undefined;
    $(tr)
      .find('a[href]')
      .each((_, a) => {
        const href = $(a).attr('href');
        if (pageName(href) === 'to010' && allrisKeyOf(href, 'meeting') !== undefined) {
          key ??= allrisKeyOf(href, 'meeting');
          detail ??= href;
        }
      });
    if (key === undefined || day === undefined) return;
    // The "TO" button is a form; a published agenda has it or a link to to010.
    const hasAgenda = detail !== undefined || $(tr).find('form[action*="to010" i] input.il1_to').length > 0;
    const hasMinutes = $(tr).find('form[action*="si016" i], form[action*="do027" i]').length > 0;

    const time = parseTimeRange(
      cells
        .filter((i, c) => i >= 2 && $(c).hasClass('text2'))
        .first()
        .text(),
    );
    let name = '';
    const link = $(tr).find('a[href*="to010" i]').first();
    if (link.length > 0) name = textOf(link);
    if (name === '') {
      cells.each((i, c) => {
        if (name !== '' || i < 2) return;
        const cell = $(c);
        if (cell.attr('class') || cell.find('form, input').length > 0) return;
        name = textOf(cell);
      });
    }
    const room = textOf(cells.filter((_, c) => $(c).hasClass('text4')).last());
    const date = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    const row: CalendarRow = {
      meetingId: allrisUrl(base, 'meeting', key),
      key,
      date,
      name: name || `Sitzung ${key}`,
      cancelled: CANCELLED_MARKERS.test(name),
    };
    if (hasAgenda) row.detailUrl = row.meetingId;
    if (time.start) row.startTime = time.start;
    if (time.end) row.endTime = time.end;
    if (room) row.room = room;
    if (hasMinutes) row.hasMinutes = true;
    if (!rows.some((r) => r.key === key)) rows.push(row);
  });
  const page: CalendarPage = { year, month, rows };
  const head = headline($);
  if (head) page.headline = head;
  const lists = organizationListLinks($, pageUrl);
  if (lists.length > 0) page.organizationLists = lists;
  return page;
}
