import {
  type AnyNode,
  type Cheerio,
  type CheerioAPI,
  cleanText,
  isRecordNumber,
  linesOf,
  loadHtml,
  pageName,
  parseGermanDate,
  parseTimeRange,
  textOf,
} from '../html';
import type { ParsedAgendaItem, ParsedFile, ParsedMeeting } from '../types';
import {
  documentForms,
  heading,
  headline,
  isPublicNumber,
  type LabelledValue,
  labelledValues,
  pageKey,
  requireContainer,
  resultOf,
} from './common';
import { allrisBase, allrisKeyOf, allrisRef, allrisUrl } from './urls';

/**
 * ALLRIS 3 meeting with agenda, `to010.asp?SILFDNR=`: the label table (Bezeichnung, Gremium, Datum,
 * Zeit, Raum, Ort), the side box of meeting documents (Einladung, Niederschrift …) and the agenda table
 * (`table.tl1`). An agenda row is an item when its TOP link carries a TOLFDNR — also rows without their
 * own to020 page (headings such as "Eingaben"); document-only rows (a "Pro" button without a number)
 * add to the meeting's files.
 */

export function parseAllrisMeeting(html: string, pageUrl: string): ParsedMeeting {
  const $ = loadHtml(html);
  requireContainer($, pageUrl, 'to010', 'to010');
  const page: MeetingPage = { $, base: allrisBase(pageUrl), key: pageKey($, pageUrl, 'meeting', 'to010') };
  const meeting = meetingHeader(page, labelledValues($));
  meeting.files.push(...documentForms($, $('td.me1'), page.base));
  let order = 0;
  $('table.tl1')
    .first()
    .find('tr')
    .each((_, tr) => {
      const row = $(tr);
      const cells = row.children('td');
      if (cells.length < 4) return;
      const top = topLink(page, cells.first());
      if (top === undefined) {
        // A document row without an item number (e.g. "Niederschrift öffent. Teil").
        for (const f of documentForms($, row, page.base))
          if (!meeting.files.some((m) => m.id === f.id)) meeting.files.push(f);
        return;
      }
      meeting.agenda.push(agendaItem(page, row, { ...top, order: order++ }));
    });
  return meeting;
}

/** The meeting page being parsed: its document, ALLRIS base and key. */
interface MeetingPage {
  $: CheerioAPI;
  base: string;
  key: string;
}

/** The meeting's own fields from the labelled table: name, date, time, committee, room, place. */
function meetingHeader(page: MeetingPage, values: Map<string, LabelledValue>): ParsedMeeting {
  const { $, base, key } = page;
  const name = values.get('bezeichnung')?.text || heading($, 'Tagesordnung');
  const meeting: ParsedMeeting = {
    id: allrisUrl(base, 'meeting', key),
    key,
    name,
    agenda: [],
    files: [],
  };
  const date = parseGermanDate(values.get('datum')?.text);
  if (date) meeting.date = date;
  const time = parseTimeRange(values.get('zeit')?.text);
  if (time.start) meeting.startTime = time.start;
  if (time.end) meeting.endTime = time.end;
  const committee = values.get('gremium');
  const committeeKey = committee?.cell
    .find('a[href]')
    .toArray()
    .map((a) => allrisKeyOf($(a).attr('href'), 'committee'))
    .find((k) => k !== undefined);
  if (committee && committeeKey)
    meeting.organization = allrisRef(base, 'committee', committeeKey, committee.text);
  const room = values.get('raum')?.text;
  if (room) meeting.room = room;
  const address = values.get('ort')?.text;
  if (address) meeting.address = address;
  const publicity = values.get('status')?.text;
  if (publicity) meeting.publicity = publicity;
  const head = headline($);
  if (head) meeting.headline = head;
  return meeting;
}

/** An agenda row's TOP link: the item's TOLFDNR and its number as shown. */
interface TopLink {
  itemKey: string;
  numberText: string;
}

/** The first link in the row's first cell that carries a TOLFDNR; `undefined` for a document-only row. */
function topLink(page: MeetingPage, firstCell: Cheerio<AnyNode>): TopLink | undefined {
  const { $ } = page;
  let top: TopLink | undefined;
  firstCell.find('a[href]').each((_, a) => {
    const k = allrisKeyOf($(a).attr('href'), 'agendaItem');
    if (k !== undefined && top === undefined) top = { itemKey: k, numberText: textOf($(a)) };
  });
  return top;
}

/** One agenda item: name, number, public or not, result, its own page, its paper and documents. */
function agendaItem(
  page: MeetingPage,
  row: Cheerio<AnyNode>,
  top: TopLink & { order: number },
): ParsedAgendaItem {
  const { $, base } = page;
  const { itemKey } = top;
  const cells = row.children('td');
  const detailForm = row.find('form[action*="to020" i]').first();
  const detailLink = row.find('a[href*="to020" i]').first();
  const nameCell = detailLink.length > 0 ? detailLink.closest('td') : cells.eq(3);
  const lines = linesOf($, nameCell);
  const number = cleanText(top.numberText) || undefined;
  const item: ParsedAgendaItem = {
    id: allrisUrl(base, 'agendaItem', itemKey),
    key: itemKey,
    name: lines.join('\n') || `TOP ${number ?? itemKey}`,
    public: isPublicNumber(number),
    order: top.order,
    files: [],
  };
  if (number) item.number = number;
  const result = resultOf(detailForm.find('input[type="submit"]').attr('title'));
  if (result) item.result = result;
  if (detailForm.length > 0 || detailLink.length > 0) item.detailUrl = item.id;
  const paper = itemPaper(page, row);
  if (paper) item.paper = paper;
  const files: ParsedFile[] = documentForms($, row, base);
  if (files.length > 0) item.files = files;
  return item;
}

/** The item's paper: its first vo020 link (with the reference it shows), else a vo020 form's VOLFDNR. */
function itemPaper(page: MeetingPage, row: Cheerio<AnyNode>): ParsedAgendaItem['paper'] {
  const { $, base } = page;
  let paperKey: string | undefined;
  let reference: string | undefined;
  row.find('a[href]').each((_, a) => {
    const href = $(a).attr('href');
    if (pageName(href) !== 'vo020') return;
    const k = allrisKeyOf(href, 'paper');
    if (k !== undefined && paperKey === undefined) {
      paperKey = k;
      reference = textOf($(a)) || undefined;
    }
  });
  if (paperKey === undefined) {
    const v = row.find('form[action*="vo020" i] input[name="VOLFDNR" i]').attr('value')?.trim();
    if (isRecordNumber(v)) paperKey = v;
  }
  if (paperKey === undefined) return undefined;
  return { ...allrisRef(base, 'paper', paperKey), ...(reference ? { reference } : {}) };
}
