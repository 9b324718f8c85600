import {
  cleanText,
  isRecordNumber,
  loadHtml,
  pageName,
  parseGermanDate,
  parseGermanDateTime,
  textOf,
} from '../html';
import type { ParsedConsultation, ParsedFile, ParsedPaper, Ref } from '../types';
import { documentForms, heading, headline, labelledValues, pageKey, requireContainer } from './common';
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
  const id = allrisUrl(base, 'paper', key);
  const values = labelledValues($);
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

  const related = values.get('bezüglich');
  if (related) {
    const seen = new Set<string>();
    related.cell.find('input[name="VOLFDNR" i], a[href]').each((_, el) => {
      const k = $(el).is('input') ? $(el).attr('value')?.trim() : allrisKeyOf($(el).attr('href'), 'paper');
      if (!isRecordNumber(k) || k === key || seen.has(k)) return;
      seen.add(k);
      const text = $(el).is('a') ? textOf($(el)) : '';
      paper.relatedPapers.push(allrisRef(base, 'paper', k, text || undefined) as Ref);
    });
  }

  // Beratungsfolge: an organization row (name, role), then zero or more meeting rows (date, link).
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
      paper.consultations.push(current);
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
      paper.consultations.push(entry);
    }
  });

  const documents = documentForms($, $('td.me1'), base);
  const main = documents.find((f) => /drucksache|vorlage/i.test(f.name)) ?? documents[0];
  if (main) paper.mainFile = { ...main, role: 'mainFile' };
  for (const f of documents) if (f !== main) paper.files.push(f);

  // Attachment timestamps from the side box: title "Anlage 1 (07.07.2026 16:09:37) öffnen".
  const stamps = new Map<string, string>();
  $('td.me1 a[href]').each((_, a) => {
    const title = cleanText($(a).attr('title'));
    const m = /Anlage\s+(\d+)\s*\(([^)]+)\)/i.exec(title);
    const at = m ? parseGermanDateTime(m[2]) : undefined;
    if (m?.[1] && at) stamps.set(m[1], at);
  });
  const attachments: ParsedFile[] = [];
  const addAttachment = (number: string, name: string, href: string) => {
    const fileId = `${id}#anlage-${number}`;
    if (attachments.some((f) => f.id === fileId)) return;
    const file: ParsedFile = { id: fileId, name, role: 'auxiliary' };
    const absolute = new URL(href, pageUrl).toString();
    if (isTemporaryLink(href)) file.temporaryUrl = absolute;
    else file.accessUrl = absolute;
    const stamp = stamps.get(number);
    if (stamp) file.date = stamp;
    attachments.push(file);
  };
  // The attachment table at the page end: `Nr.` | `Name` rows.
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
      addAttachment(number, name, link.attr('href') as string);
    });
  if (attachments.length === 0) {
    // Only the side box lists them (numbered by its titles).
    $('td.me1 a[href]').each((_, a) => {
      const href = $(a).attr('href') as string;
      const m = /Anlage\s+(\d+)/i.exec(cleanText($(a).attr('title')));
      if (m?.[1] && (isTemporaryLink(href) || pageName(href) === 'getfile'))
        addAttachment(m[1], textOf($(a)), href);
    });
  }
  paper.files.push(...attachments);
  return paper;
}
