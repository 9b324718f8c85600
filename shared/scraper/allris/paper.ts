import {
  type CheerioAPI,
  cleanText,
  isRecordNumber,
  loadHtml,
  pageName,
  parseGermanDate,
  parseGermanDateTime,
  textOf,
} from '../html';
import type { ParsedConsultation, ParsedFile, ParsedPaper, Ref } from '../types';
import {
  documentForms,
  heading,
  headline,
  type LabelledValue,
  labelledValues,
  pageKey,
  requireContainer,
} from './common';
import { allrisBase, allrisKeyOf, allrisRef, allrisUrl } from './urls';

/**
 * ALLRIS 3 paper ("Drucksache"), `vo020.asp?VOLFDNR=`: subject, type, lead department, authors,
 * related papers, the consultation path ("Beratungsfolge"), the main document (`do027.asp?DOLFDNR=`,
 * stable) and the attachments. Attachments ("Anlagen") are only offered as `___tmp/…` links valid for
 * the session that rendered the page: their id is the paper URL plus `#anlage-<n>`, the link is kept
 * as `temporaryUrl` and is neither an id nor an accessUrl.
 */

function isTemporaryLink(href: string): boolean {
  return /(^|\/)___tmp\//i.test(href);
}

export function parseAllrisPaper(html: string, pageUrl: string): ParsedPaper {
  const $ = loadHtml(html);
  requireContainer($, pageUrl, 'vo020', 'vo020');
  const key = pageKey($, pageUrl, 'paper', 'vo020');
  const base = allrisBase(pageUrl);
  const page: PaperPage = { $, pageUrl, base, key, id: allrisUrl(base, 'paper', key) };
  const values = labelledValues($);
  const paper = paperHeader(page, values);
  paper.relatedPapers.push(...relatedPapers(page, values.get('bezüglich')));
  paper.consultations.push(...consultationPath(page));
  const documents = documentForms($, $('td.me1'), base);
  const main = documents.find((f) => /drucksache|vorlage/i.test(f.name)) ?? documents[0];
  if (main) paper.mainFile = { ...main, role: 'mainFile' };
  for (const f of documents) if (f !== main) paper.files.push(f);
  paper.files.push(...attachments(page));
  return paper;
}

/** The paper page being parsed: its document, URL, ALLRIS base, key and id. */
interface PaperPage {
  $: CheerioAPI;
  pageUrl: string;
  base: string;
  key: string;
  id: string;
}

/** The paper's own fields from the labelled table: subject, reference, type, publicity, lead, date. */
function paperHeader(page: PaperPage, values: Map<string, LabelledValue>): ParsedPaper {
  const { $, id, key } = page;
  const subject = values.get('betreff');
  const reference = heading($, 'Drucksache') || undefined;
  const paper: ParsedPaper = {
    id,
    key,
    name: subject?.lines.join('\n') || reference || `Drucksache ${key}`,
    originators: values.get('verfasser')?.lines ?? [],
    consultations: [],
    files: [],
    relatedPapers: [],
  };
  if (reference) paper.reference = reference;
  const paperType = values.get('drucksache-art')?.text;
  if (paperType) paper.paperType = paperType;
  const publicity = values.get('status')?.text;
  if (publicity) paper.publicity = publicity;
  const lead = values.get('federführend')?.text;
  if (lead) paper.underDirectionOf = lead;
  const date = parseGermanDate(values.get('datum')?.text);
  if (date) paper.date = date;
  const head = headline($);
  if (head) paper.headline = head;
  return paper;
}

/** "bezüglich": the papers this one refers to, each once, never itself. */
function relatedPapers(page: PaperPage, related: LabelledValue | undefined): Ref[] {
  const { $, base, key } = page;
  const refs: Ref[] = [];
  if (!related) return refs;
  const seen = new Set<string>();
  related.cell.find('input[name="VOLFDNR" i], a[href]').each((_, el) => {
    const k = $(el).is('input') ? $(el).attr('value')?.trim() : allrisKeyOf($(el).attr('href'), 'paper');
    if (!isRecordNumber(k) || k === key || seen.has(k)) return;
    seen.add(k);
    const text = $(el).is('a') ? textOf($(el)) : '';
    refs.push(allrisRef(base, 'paper', k, text || undefined) as Ref);
  });
  return refs;
}

/**
 * Beratungsfolge: an organization row (name, role), then zero or more meeting rows (date, link). The
 * first meeting row completes the organization's consultation; each further one is a consultation of
 * its own.
 */
function consultationPath(page: PaperPage): ParsedConsultation[] {
  const { $, base } = page;
  const consultations: ParsedConsultation[] = [];
  const flow = $('td.kb1')
    .filter((_, el) => cleanText($(el).text()).toLowerCase().startsWith('beratungsfolge'))
    .first()
    .closest('tr')
    .next('tr')
    .find('table')
    .first();
  let current: ParsedConsultation | undefined;
  flow.find('tr').each((_, tr) => {
    const cells = $(tr).children('td');
    const state = cleanText(cells.first().attr('title')) || undefined;
    const orgCell = cells.filter((_, c) => $(c).hasClass('text1')).first();
    const dateCell = cells.filter((_, c) => $(c).hasClass('text2')).first();
    if (orgCell.length > 0 && dateCell.length === 0) {
      current = { organizationName: textOf(orgCell) };
      const role = textOf(cells.filter((_, c) => $(c).hasClass('text1')).eq(1));
      if (role) current.role = role;
      if (state) current.state = state;
      consultations.push(current);
      return;
    }
    if (dateCell.length === 0) return;
    const meetingKey =
      $(tr).find('input[name="SILFDNR" i]').attr('value')?.trim() ??
      $(tr)
        .find('a[href]')
        .toArray()
        .map((a) => allrisKeyOf($(a).attr('href'), 'meeting'))
        .find((k) => k !== undefined);
    const meetingName = textOf(cells.eq(3)) || undefined;
    const entry: ParsedConsultation =
      current && current.date === undefined && current.meeting === undefined
        ? current
        : { ...(current?.organizationName ? { organizationName: current.organizationName } : {}) };
    const meetingDate = parseGermanDate(textOf(dateCell));
    if (meetingDate) entry.date = meetingDate;
    if (isRecordNumber(meetingKey)) entry.meeting = allrisRef(base, 'meeting', meetingKey, meetingName);
    if (state) entry.state = state;
    if (entry !== current) {
      if (current?.role) entry.role = current.role;
      consultations.push(entry);
    }
  });
  return consultations;
}

/** An attachment link as the page offers it: its number, its name and its (maybe temporary) link. */
interface AttachmentLink {
  number: string;
  name: string;
  href: string;
}

/**
 * The attachments ("Anlagen"): from the table at the page end, else from the side box; each once, its
 * id the paper URL plus `#anlage-<n>`, dated by the side box's titles.
 */
function attachments(page: PaperPage): ParsedFile[] {
  const stamps = attachmentStamps(page.$);
  const listed = attachmentTableLinks(page.$);
  // Only the side box lists them when the table does not (numbered by its titles).
  const links = listed.length > 0 ? listed : sideBoxAttachmentLinks(page.$);
  const files: ParsedFile[] = [];
  for (const link of links) {
    const file = attachmentFile(page, link, stamps.get(link.number));
    if (!files.some((f) => f.id === file.id)) files.push(file);
  }
  return files;
}

/** Attachment timestamps from the side box: title "Anlage 1 (07.07.2026 16:09:37) öffnen". */
function attachmentStamps($: CheerioAPI): Map<string, string> {
  const stamps = new Map<string, string>();
  $('td.me1 a[href]').each((_, a) => {
    const title = cleanText($(a).attr('title'));
    const m = /Anlage\s+(\d+)\s*\(([^)]+)\)/i.exec(title);
    const at = m ? parseGermanDateTime(m[2]) : undefined;
    if (m?.[1] && at) stamps.set(m[1], at);
  });
  return stamps;
}

/** The attachment table at the page end: `Nr.` | `Name` rows. */
function attachmentTableLinks($: CheerioAPI): AttachmentLink[] {
  const links: AttachmentLink[] = [];
  $('td.kb1')
    .filter((_, el) => cleanText($(el).text()).toLowerCase() === 'anlagen:')
    .closest('table')
    .find('tr')
    .each((_, tr) => {
      const cells = $(tr).children('td.text3');
      const link = $(tr).find('a[href]').first();
      const number = textOf(cells.first());
      if (link.length === 0 || !/^\d{1,3}$/.test(number)) return;
      const name = textOf(link).replace(/\s*\(\d[\d.,]*\s*[KMG]?B\)\s*$/i, '');
      links.push({ number, name, href: link.attr('href') as string });
    });
  return links;
}

/** The side box's attachment links, numbered by their titles. */
function sideBoxAttachmentLinks($: CheerioAPI): AttachmentLink[] {
  const links: AttachmentLink[] = [];
  $('td.me1 a[href]').each((_, a) => {
    const href = $(a).attr('href') as string;
    const m = /Anlage\s+(\d+)/i.exec(cleanText($(a).attr('title')));
    if (m?.[1] && (isTemporaryLink(href) || pageName(href) === 'getfile'))
      links.push({ number: m[1], name: textOf($(a)), href });
  });
  return links;
}

/** A temporary link (`___tmp/…`) is kept as `temporaryUrl`: neither an id nor an accessUrl. */
function attachmentFile(page: PaperPage, link: AttachmentLink, stamp: string | undefined): ParsedFile {
  const file: ParsedFile = { id: `${page.id}#anlage-${link.number}`, name: link.name, role: 'auxiliary' };
  const absolute = new URL(link.href, page.pageUrl).toString();
  if (isTemporaryLink(link.href)) file.temporaryUrl = absolute;
  else file.accessUrl = absolute;
  if (stamp) file.date = stamp;
  return file;
}
