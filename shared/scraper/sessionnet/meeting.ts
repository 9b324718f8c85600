import { PageLayoutError } from '../errors';
import {
  type AnyNode,
  type Cheerio,
  type CheerioAPI,
  cleanText,
  linesOf,
  loadHtml,
  pageName,
  parseGermanDate,
  parseTimeRange,
  textOf,
} from '../html';
import type { FileRole, ParsedAgendaItem, ParsedFile, ParsedMeeting, Ref } from '../types';
import {
  type SessionNetSite,
  sessionNetFileOf,
  sessionNetFileUrl,
  sessionNetKeyOf,
  sessionNetRef,
  sessionNetSiteOf,
  sessionNetUrl,
} from './urls';

/**
 * SessionNet meeting page `si0057?__ksinr=` / `si0050?__ksinr=`: the meeting's document box
 * (`.smc-documents`, each document with a category badge — BM, PR, EL …) and the agenda table
 * (`td.tofnum` with the "Ö 1" badge, `td.tolink` title and reporter, `td.tostatus`, `td.todocs`).
 * SessionNet 5.5 "Layout 6" (`.asp` KP4 and `.php` alike): the meeting's facts in `div.smc-table-row`
 * cells (`siname` short name, `sigrname` committee, `siort`, `sidat`, `yytime`), agenda titles in
 * `td.tobetr` (`.smc-card-header-title-simple`), the decision in `p.smc_field_smcdv0_box2_beschluss`
 * ("Beschluss: …") and the vote in `…_abstimmung`, the paper in `td.tovo`, and each item's documents in
 * its own `td.sidocs` document box — which is the item's, never the meeting's.
 * Documents are `getfile?id=&type=do` — stable ids and download addresses. Agenda items carry their own
 * id only where the page links `to0050?__ktonr=`; otherwise the id is the meeting URL plus the item
 * number as fragment (stable as long as the agenda keeps its numbering).
 */

const REPORTER = /\s*[-–]?\s*Berichterstatter(?:in|\*in|:in)?\s*:\s*/i;
/** The label SessionNet prints before a decision or a vote ("Beschluss:", "Abstimmung:"). */
const FIELD_LABEL = /^[^:]{1,30}:\s*/;
/** Where an agenda row keeps its documents: `td.todocs` (older layouts), `td.sidocs` (Layout 6). */
const ITEM_DOCUMENTS = 'td.todocs, td.sidocs';

function roleOfCategory(category: string | undefined, name: string): FileRole {
  const c = (category ?? '').toUpperCase();
  const n = name.toLowerCase();
  // Layout-6 badges: TÖ/TN Tagesordnung (öffentlich/nicht öffentlich), NÖ/NN Niederschrift.
  if (c === 'EL' || c === 'TÖ' || c === 'TN') return 'invitation';
  if (c === 'WP') return 'verbatimProtocol';
  if (c === 'PR' || c === 'NS' || c === 'NÖ' || c === 'NN') return 'resultsProtocol';
  // "Anlage 1 zur Niederschrift" is an attachment, not the minutes its name mentions.
  if (/^anlage\b/.test(n)) return 'auxiliary';
  if (n.includes('einladung') || n.includes('tagesordnung')) return 'invitation';
  if (n.includes('wortprotokoll')) return 'verbatimProtocol';
  if (n.includes('protokoll') || n.includes('niederschrift')) return 'resultsProtocol';
  return 'auxiliary';
}

/** Unique getfile documents within `scope`, named by their text link (not the empty download button). */
export function documentsIn($: CheerioAPI, scope: Cheerio<AnyNode>, site: SessionNetSite): ParsedFile[] {
  const files: ParsedFile[] = [];
  scope.find('a[href]').each((_, a) => {
    const ref = sessionNetFileOf($(a).attr('href'));
    if (!ref) return;
    const id = sessionNetFileUrl(site, ref.id, ref.type);
    const name = textOf($(a));
    const box = $(a).closest('.smc-dg-ds-1, .smc-doc, li');
    const category = textOf(box.find('.smc-doc-icon').first()) || undefined;
    const known = files.find((f) => f.id === id);
    if (known) {
      if (known.name === '' && name !== '') {
        known.name = name;
        known.role = roleOfCategory(known.category, name);
      }
      return;
    }
    files.push({
      id,
      name,
      accessUrl: id,
      role: roleOfCategory(category, name),
      ...(category ? { category } : {}),
    });
  });
  for (const f of files)
    if (f.name === '') f.name = `Dokument ${f.id.split('id=')[1]?.split('&')[0] ?? ''}`.trim();
  return files;
}

function agendaTable($: CheerioAPI) {
  const byId = $('table[id^="smc_page_si0057_contenttable"], table[id^="smc_page_si0050_contenttable"]')
    .filter((_, t) => $(t).find('td.tofnum').length > 0)
    .first();
  if (byId.length > 0) return byId;
  return $('table')
    .filter((_, t) => $(t).find('td.tofnum').length > 0)
    .first();
}

interface MeetingFacts {
  name?: string;
  date?: string;
  startTime?: string;
  endTime?: string;
  room?: string;
  organization?: Ref;
  organizationName?: string;
}

/** Layout 6: the meeting's facts, one `div.smc-table-row` each, read by the value cell's class. */
function layout6Facts($: CheerioAPI, site: SessionNetSite): MeetingFacts {
  const cell = (cls: string) => $(`.smc-table-row > .smc-table-cell.${cls}`).first();
  const facts: MeetingFacts = {};
  const name = textOf(cell('siname'));
  if (name) facts.name = name;
  const date = parseGermanDate(textOf(cell('sidat')));
  if (date) facts.date = date;
  const time = parseTimeRange(textOf(cell('yytime')));
  if (time.start) facts.startTime = time.start;
  if (time.end) facts.endTime = time.end;
  const room = textOf(cell('siort'));
  if (room) facts.room = room;
  const committee = cell('sigrname');
  const committeeName = textOf(committee);
  const link = committee
    .find('a[href]')
    .toArray()
    .find((a) => sessionNetKeyOf($(a).attr('href'), 'organization') !== undefined);
  const k = link ? sessionNetKeyOf($(link).attr('href'), 'organization') : undefined;
  if (k) facts.organization = sessionNetRef(site, 'organization', k, committeeName || undefined);
  else if (committeeName) facts.organizationName = committeeName;
  return facts;
}

export function parseSessionNetMeeting(html: string, pageUrl: string): ParsedMeeting {
  const $ = loadHtml(html);
  const key = sessionNetKeyOf(pageUrl, 'meeting');
  if (key === undefined) throw new PageLayoutError('si0057', pageUrl, 'no __ksinr in the page URL');
  const page: MeetingPage = {
    $,
    pageUrl,
    key,
    site: sessionNetSiteOf(pageUrl),
    page: pageName(pageUrl) === 'si0050' ? 'si0050' : 'si0057',
  };
  const table = agendaTable($);
  // The meeting's own documents: every box outside the agenda rows' document cells (those are the items').
  const documentBoxes = $('.smc-documents').filter((_, el) => $(el).closest(ITEM_DOCUMENTS).length === 0);
  if (table.length === 0 && documentBoxes.length === 0 && $('[id^="smc_page_si005"]').length === 0) {
    throw new PageLayoutError(page.page, pageUrl, 'neither agenda table nor document box');
  }
  const meeting = meetingHeader(page);
  addLabelledFacts(page, meeting);
  documentBoxes.each((_, box) => {
    for (const f of documentsIn($, $(box), page.site))
      if (!meeting.files.some((m) => m.id === f.id)) meeting.files.push(f);
  });
  let order = 0;
  table.find('tr').each((_, tr) => {
    const row = $(tr);
    if (row.children('td.tofnum').length === 0) return;
    meeting.agenda.push(agendaItem(page, row, { meetingId: meeting.id, order: order++ }));
  });
  requireAgendaRead(page, meeting);
  return meeting;
}

/** The meeting page being parsed: its document and URL, the meeting's key, the site and the page type. */
interface MeetingPage {
  $: CheerioAPI;
  pageUrl: string;
  key: string;
  site: SessionNetSite;
  page: 'si0050' | 'si0057';
}

/** The meeting with its name and Layout-6 facts; the heading is its headline when `siname` names it. */
function meetingHeader(page: MeetingPage): ParsedMeeting {
  const { $, site, key } = page;
  const title = textOf($('h1').first()) || textOf($('title').first());
  const facts = layout6Facts($, site);
  const meeting: ParsedMeeting = {
    id: sessionNetUrl(site, 'meeting', key, page.page),
    key,
    // Layout 6 names the meeting in `siname` ("Rat/05/2012"); the heading adds committee, date and time.
    name: facts.name || title,
    agenda: [],
    files: [],
  };
  if (facts.name && title) meeting.headline = title;
  if (facts.date) meeting.date = facts.date;
  if (facts.startTime) meeting.startTime = facts.startTime;
  if (facts.endTime) meeting.endTime = facts.endTime;
  if (facts.room) meeting.room = facts.room;
  if (facts.organization) meeting.organization = facts.organization;
  else if (facts.organizationName) meeting.organizationName = facts.organizationName;
  return meeting;
}

/** Meeting facts where the layout shows them (label/value rows, e.g. "Datum:", "Raum:"), where still missing. */
function addLabelledFacts(page: MeetingPage, meeting: ParsedMeeting): void {
  const { $, site } = page;
  $('tr').each((_, tr) => {
    const cells = $(tr).children('td, th');
    if (cells.length < 2) return;
    const label = cleanText(cells.first().text()).replace(/:$/, '').toLowerCase();
    const value = textOf(cells.eq(1));
    if (label === 'datum' && !meeting.date) {
      const d = parseGermanDate(value);
      if (d) meeting.date = d;
    } else if (label === 'zeit' && !meeting.startTime) {
      const t = parseTimeRange(value);
      if (t.start) meeting.startTime = t.start;
      if (t.end) meeting.endTime = t.end;
    } else if ((label === 'raum' || label === 'ort') && !meeting.room) {
      if (value) meeting.room = value;
    } else if (label === 'gremium' && !meeting.organization) {
      const link = cells.eq(1).find('a[href]').first();
      const k = sessionNetKeyOf(link.attr('href'), 'organization');
      if (k) meeting.organization = sessionNetRef(site, 'organization', k, value);
    }
  });
}

/**
 * One agenda row: its number, title and reporter, its id (its own page's, else the meeting's plus the
 * number), result, vote, paper and documents.
 */
function agendaItem(
  page: MeetingPage,
  row: Cheerio<AnyNode>,
  place: { meetingId: string; order: number },
): ParsedAgendaItem {
  const { $, site, key } = page;
  const { order } = place;
  const number = textOf(row.children('td.tofnum')) || undefined;
  const titleCell = row.children('td.tolink, td.tobetr');
  const { name, reporter } = titleAndReporter($, titleCell);
  const itemLink = titleCell
    .find('a[href]')
    .toArray()
    .find((a) => sessionNetKeyOf($(a).attr('href'), 'agendaItem') !== undefined);
  const itemKey = itemLink ? sessionNetKeyOf($(itemLink).attr('href'), 'agendaItem') : undefined;
  const fragment = numberFragment(number ?? String(order + 1));
  const item: ParsedAgendaItem = {
    id: itemKey ? sessionNetUrl(site, 'agendaItem', itemKey) : `${place.meetingId}#top-${fragment}`,
    key: itemKey ?? `${key}-${fragment}`,
    name: name || `TOP ${number ?? order + 1}`,
    public: number === undefined || !/^N\b/.test(number),
    order,
    files: documentsIn($, row.children(ITEM_DOCUMENTS), site),
  };
  if (number) item.number = number;
  if (reporter) item.reporter = reporter;
  if (itemKey) item.detailUrl = item.id;
  const status =
    textOf(row.children('td.tostatus')) ||
    textOf(titleCell.find('.smc_field_smcdv0_box2_beschluss').first()).replace(FIELD_LABEL, '');
  if (status) item.result = status;
  const vote = textOf(titleCell.find('.smc_field_smcdv0_box2_abstimmung').first()).replace(FIELD_LABEL, '');
  if (vote) item.vote = vote;
  const paper = itemPaper(page, row);
  if (paper) item.paper = paper;
  return item;
}

/** The item's title, on one line, and its reporter ("Berichterstatter: …") on a line of its own or after it. */
function titleAndReporter(
  $: CheerioAPI,
  titleCell: Cheerio<AnyNode>,
): { name: string; reporter: string | undefined } {
  const layout6Title = titleCell.find('.smc-card-header-title-simple, .smc-card-header-title').first();
  // A Layout-6 title may break over lines (`<br />`, "…<br />hier: Satzungsbeschluss"): one line here.
  const lines = layout6Title.length > 0 ? [linesOf($, layout6Title).join(' ')] : linesOf($, titleCell);
  let name = lines[0] ?? '';
  let reporter = lines.slice(1).find((l) => REPORTER.test(l));
  if (reporter) reporter = reporter.replace(REPORTER, '').trim();
  if (!reporter && REPORTER.test(name)) {
    const [head, ...rest] = name.split(REPORTER);
    name = (head ?? '').trim();
    reporter = rest.join(' ').trim() || undefined;
  }
  return { name, reporter };
}

/** "Ö 1" → "Oe1": a readable, URL-safe fragment (the number is the item's only identity here). */
function numberFragment(number: string): string {
  return cleanText(number)
    .replace(/Ö/g, 'Oe')
    .replace(/ö/g, 'oe')
    .replace(/[^A-Za-z0-9.]+/g, '');
}

/** The paper the row links, with the reference its link shows. */
function itemPaper(page: MeetingPage, row: Cheerio<AnyNode>): ParsedAgendaItem['paper'] {
  const { $, site } = page;
  const paperLink = row
    .find('a[href]')
    .toArray()
    .find((a) => sessionNetKeyOf($(a).attr('href'), 'paper') !== undefined);
  if (!paperLink) return undefined;
  const k = sessionNetKeyOf($(paperLink).attr('href'), 'paper') as string;
  const reference = textOf($(paperLink)) || undefined;
  return { ...sessionNetRef(site, 'paper', k), ...(reference ? { reference } : {}) };
}

/**
 * Agenda titles on the page but no item read (the number cell renamed, say): a layout change, which
 * must be a failure — an empty agenda would replace the mirrored one silently.
 */
function requireAgendaRead(page: MeetingPage, meeting: ParsedMeeting): void {
  const titles = page.$('td.tobetr, td.tolink').length;
  if (meeting.agenda.length === 0 && titles > 0) {
    throw new PageLayoutError(
      page.page,
      page.pageUrl,
      `${titles} agenda title cell(s) but no agenda item with a number`,
    );
  }
}
