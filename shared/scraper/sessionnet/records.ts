import { PageLayoutError } from '../errors';
import {
  type CheerioAPI,
  cleanText,
  displayPersonName,
  linesOf,
  loadHtml,
  parseGermanDate,
  splitPersonName,
  textOf,
} from '../html';
import type {
  OrganizationKind,
  OrganizationListEntry,
  ParsedConsultation,
  ParsedOrganization,
  ParsedPaper,
  ParsedPerson,
} from '../types';
import { documentsIn } from './meeting';
import { sessionNetKeyOf, sessionNetRef, sessionNetSiteOf, sessionNetUrl } from './urls';

/**
 * SessionNet papers (`vo0050?__kvonr=`), committees (`gr0040` list, `kp0040?__kgrnr=` members) and
 * persons (`pe0051?__kpenr=`). Layouts differ between SessionNet versions (tables in 4.x, `div.smc-table`
 * cells in "Layout 6"), so values are read by their labels ("Betreff:", "Vorlage-Art:" …) or by the
 * Layout-6 cell classes (`vobetr`, `voname`), and relations by their `__k…` links wherever they are.
 */

/** Label → value from `<tr><td>Label:</td><td>value</td>` rows and Layout-6 `div.smc-table-row` cells. */
function labelled($: CheerioAPI): Map<string, { text: string; lines: string[] }> {
  const values = new Map<string, { text: string; lines: string[] }>();
  const take = (labelText: string, valueNode: ReturnType<CheerioAPI>) => {
    const label = cleanText(labelText).replace(/:$/, '').toLowerCase();
    if (label === '' || label.length > 40 || values.has(label)) return;
    values.set(label, { text: textOf(valueNode), lines: linesOf($, valueNode) });
  };
  $('tr').each((_, tr) => {
    const cells = $(tr).children('td, th');
    if (cells.length >= 2 && /:\s*$/.test(cleanText(cells.first().text())))
      take(cells.first().text(), cells.eq(1));
  });
  $('.smc-table-row').each((_, row) => {
    const cells = $(row).children('.smc-table-cell');
    if (cells.length >= 2 && /:\s*$/.test(cleanText(cells.first().text())))
      take(cells.first().text(), cells.eq(1));
  });
  return values;
}

function kindOfOrganizationName(name: string): OrganizationKind {
  return /fraktion|gruppe/i.test(name) ? 'faction' : 'committee';
}

export function parseSessionNetPaper(html: string, pageUrl: string): ParsedPaper {
  const $ = loadHtml(html);
  const key = sessionNetKeyOf(pageUrl, 'paper');
  if (key === undefined) throw new PageLayoutError('vo0050', pageUrl, 'no __kvonr in the page URL');
  const site = sessionNetSiteOf(pageUrl);
  const values = labelled($);
  const subject =
    textOf($('.vobetr').first()) || values.get('betreff')?.text || textOf($('h1.smc_h1, h1').first());
  if (subject === '') throw new PageLayoutError('vo0050', pageUrl, 'no subject (Betreff) and no heading');
  const reference = textOf($('.voname').first()) || values.get('vorlage')?.text || values.get('name')?.text;
  const paper: ParsedPaper = {
    id: sessionNetUrl(site, 'paper', key),
    key,
    name: subject,
    originators: values.get('verfasser')?.lines ?? [],
    consultations: [],
    files: [],
    relatedPapers: [],
  };
  if (reference) paper.reference = reference;
  const type = textOf($('.voart').first()) || values.get('vorlage-art')?.text || values.get('art')?.text;
  if (type) paper.paperType = type;
  const date = parseGermanDate(textOf($('.vodat').first()) || values.get('datum')?.text);
  if (date) paper.date = date;
  const lead = values.get('federführend')?.text ?? values.get('federführendes amt')?.text;
  if (lead) paper.underDirectionOf = lead;
  const publicity = values.get('status')?.text;
  if (publicity) paper.publicity = publicity;

  // Beratungsfolge: every row that links a meeting.
  $('tr, .smc-table-row').each((_, row) => {
    const meetingLink = $(row)
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'meeting') !== undefined);
    if (!meetingLink) return;
    const k = sessionNetKeyOf($(meetingLink).attr('href'), 'meeting') as string;
    if (paper.consultations.some((c) => c.meeting?.key === k)) return;
    const orgLink = $(row)
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'organization') !== undefined);
    const consultation: ParsedConsultation = {
      meeting: sessionNetRef(site, 'meeting', k, textOf($(meetingLink)) || undefined),
    };
    const orgName = orgLink ? textOf($(orgLink)) : '';
    if (orgName) consultation.organizationName = orgName;
    const d = parseGermanDate(textOf($(row)));
    if (d) consultation.date = d;
    paper.consultations.push(consultation);
  });
  const files = documentsIn($, $('body'), site);
  const main = files.find((f) => /vorlage|drucksache/i.test(f.name) || f.category === 'VO') ?? files[0];
  if (main) paper.mainFile = { ...main, role: 'mainFile' };
  paper.files = files.filter((f) => f !== main);
  return paper;
}

/** `gr0040`: the committees (and factions) the list links (`kp0040?__kgrnr=` or `si0041?__kgrnr=`). */
export function parseSessionNetOrganizationList(html: string, pageUrl: string): OrganizationListEntry[] {
  const $ = loadHtml(html);
  const site = sessionNetSiteOf(pageUrl);
  const entries: OrganizationListEntry[] = [];
  $('a[href]').each((_, a) => {
    const k = sessionNetKeyOf($(a).attr('href'), 'organization');
    if (k === undefined) return;
    const name = textOf($(a));
    const known = entries.find((e) => e.key === k);
    if (known) {
      if (!known.name && name) known.name = name;
      return;
    }
    entries.push({
      ...sessionNetRef(site, 'organization', k, name || undefined),
      kind: kindOfOrganizationName(name),
    });
  });
  return entries;
}

/** `kp0040?__kgrnr=`: the committee's name and its members (`pe0051?__kpenr=` links) with their role. */
export function parseSessionNetRoster(
  html: string,
  pageUrl: string,
  kind?: OrganizationKind,
): ParsedOrganization {
  const $ = loadHtml(html);
  const key = sessionNetKeyOf(pageUrl, 'organization');
  if (key === undefined) throw new PageLayoutError('kp0040', pageUrl, 'no __kgrnr in the page URL');
  const site = sessionNetSiteOf(pageUrl);
  const name = textOf($('h1').first()) || textOf($('title').first());
  const org: ParsedOrganization = {
    id: sessionNetUrl(site, 'organization', key),
    key,
    name,
    kind: kind ?? kindOfOrganizationName(name),
    memberships: [],
  };
  $('tr, .smc-table-row, li').each((_, row) => {
    const link = $(row)
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'person') !== undefined);
    if (!link) return;
    const k = sessionNetKeyOf($(link).attr('href'), 'person') as string;
    if (org.memberships.some((m) => m.person.key === k)) return;
    const cells = $(row).children('td, .smc-table-cell');
    const others = cells
      .toArray()
      .filter((c) => $(c).find(link).length === 0)
      .map((c) => textOf($(c)))
      .filter(Boolean);
    const membership = {
      person: sessionNetRef(site, 'person', k, textOf($(link))),
      ...(others[0] ? { role: others[0] } : {}),
      ...(others[1] ? { onBehalfOfName: others[1] } : {}),
    };
    org.memberships.push(membership);
  });
  return org;
}

/** `pe0051?__kpenr=`: the person's name and the organizations linked from their page. */
export function parseSessionNetPerson(html: string, pageUrl: string): ParsedPerson {
  const $ = loadHtml(html);
  const key = sessionNetKeyOf(pageUrl, 'person');
  if (key === undefined) throw new PageLayoutError('pe0051', pageUrl, 'no __kpenr in the page URL');
  const site = sessionNetSiteOf(pageUrl);
  const raw = textOf($('h1').first()) || textOf($('title').first());
  if (raw === '') throw new PageLayoutError('pe0051', pageUrl, 'no name');
  const formOfAddress = /^(Frau|Herr)\s+/.exec(raw)?.[1];
  const bare = formOfAddress ? raw.slice(formOfAddress.length).trim() : raw;
  const parts = splitPersonName(bare);
  const person: ParsedPerson = {
    id: sessionNetUrl(site, 'person', key),
    key,
    name: displayPersonName(bare),
    memberships: [],
    ...(parts.familyName ? { familyName: parts.familyName } : {}),
    ...(parts.givenName ? { givenName: parts.givenName } : {}),
    ...(parts.title ? { title: parts.title } : {}),
    ...(formOfAddress ? { formOfAddress } : {}),
  };
  $('tr, .smc-table-row, li').each((_, row) => {
    const link = $(row)
      .find('a[href]')
      .toArray()
      .find((a) => sessionNetKeyOf($(a).attr('href'), 'organization') !== undefined);
    if (!link) return;
    const k = sessionNetKeyOf($(link).attr('href'), 'organization') as string;
    if (person.memberships.some((m) => m.organization.key === k)) return;
    const orgName = textOf($(link));
    const role = $(row)
      .children('td, .smc-table-cell')
      .toArray()
      .filter((c) => $(c).find(link).length === 0)
      .map((c) => textOf($(c)))
      .find(Boolean);
    person.memberships.push({
      organization: sessionNetRef(site, 'organization', k, orgName || undefined),
      kind: kindOfOrganizationName(orgName),
      ...(role ? { role } : {}),
    });
  });
  return person;
}
