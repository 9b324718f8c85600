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
  ParsedMembership,
  ParsedOrganization,
  ParsedPaper,
  ParsedPerson,
  Ref,
} from '../types';
import { documentsIn } from './meeting';
import { type SessionNetSite, sessionNetKeyOf, sessionNetRef, sessionNetSiteOf, sessionNetUrl } from './urls';

/**
 * SessionNet papers (`vo0050?__kvonr=`), committees (`gr0040` list, `kp0040?__kgrnr=` members) and
 * persons (`pe0051?__kpenr=`). Layouts differ between SessionNet versions (tables in 4.x, `div.smc-table`
 * cells in "Layout 6"), so values are read by their labels ("Betreff:", "Vorlage-Art:" …; Layout 6 prints
 * some with, some without the colon, in a `.smc-cell-head` cell) or by the Layout-6 cell classes
 * (`vobetr`, `voname`, `vovaname`), and relations by their `__k…` links wherever they are.
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
    const head = cells.first();
    // Layout 6 marks the label cell (`smc-cell-head`), with or without a colon ("Art", "Art:").
    if (cells.length >= 2 && (head.hasClass('smc-cell-head') || /:\s*$/.test(cleanText(head.text()))))
      take(head.text(), cells.eq(1));
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
  const type =
    textOf($('.voart, .vovaname').first()) || values.get('vorlage-art')?.text || values.get('art')?.text;
  if (type) paper.paperType = type;
  const date = parseGermanDate(textOf($('.vodat, .vodatum').first()) || values.get('datum')?.text);
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

/**
 * `kp0040?__kgrnr=`: the committee's name and its members with their role. Layout 6
 * (`table#smc_page_kp0040_contenttable1`, `…2` for ended memberships): a heading row per group
 * (`td.smcfield_puname` "Vorsitz:", "Ausschussmitglieder mit Stimmrecht:" …), then one row per member —
 * `td.pename` (a `pe0051` link, or the bare name for members without a person page), `td.pepartei`
 * (party or faction; a second, combined `pepartei` cell only serves small screens), `td.amname` (kind of
 * membership), and in the ended table `td.mgadat` / `td.mgedat`. Older layouts: rows with a person link
 * and the role and faction in the other cells.
 */
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
  if ($('td.pename').length > 0) {
    org.memberships = layout6Memberships($, site, org.id);
    return org;
  }
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

/** "Hans Beispiel" → "hans-beispiel": the id of a member without a person page, stable while the name is. */
function nameSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Voting right from a group heading; undefined where the heading does not say ("Vorsitz"). */
function votingRightOf(group: string | undefined): boolean | undefined {
  if (!group) return undefined;
  if (/beratende/i.test(group)) return false;
  if (/mit\s+stimmrecht/i.test(group)) return true;
  return undefined;
}

function layout6Memberships($: CheerioAPI, site: SessionNetSite, orgId: string): ParsedMembership[] {
  const memberships: ParsedMembership[] = [];
  $('table').each((_, table) => {
    let group: string | undefined;
    $(table)
      .find('tr')
      .each((_, tr) => {
        const heading = $(tr).children('td.smcfield_puname');
        if (heading.length > 0) {
          group = textOf(heading).replace(/:$/, '').trim() || undefined;
          return;
        }
        const nameCell = $(tr).children('td.pename');
        if (nameCell.length === 0) return;
        const personName = textOf(nameCell);
        if (personName === '') return;
        const link = nameCell
          .find('a[href]')
          .toArray()
          .find((a) => sessionNetKeyOf($(a).attr('href'), 'person') !== undefined);
        const personKey = link ? sessionNetKeyOf($(link).attr('href'), 'person') : undefined;
        const slug = nameSlug(personName);
        const person: Ref = personKey
          ? sessionNetRef(site, 'person', personKey, personName)
          : { id: `${orgId}#person-${slug}`, key: `name-${slug}`, name: personName };
        // The first `pepartei` cell is the party alone; the combined one repeats it with the kind.
        const party = textOf($(tr).children('td.pepartei').not('.smc-table-cell-block-991').first());
        const kind = textOf($(tr).children('td.amname').first());
        const startDate = parseGermanDate(
          textOf($(tr).children('td.mgadat').not('.smc-table-cell-block-991').first()),
        );
        const endDate = parseGermanDate(textOf($(tr).children('td.mgedat').first()));
        const votingRight = votingRightOf(group);
        const m: ParsedMembership = {
          person,
          ...(group ? { role: group } : {}),
          ...(party ? { onBehalfOfName: party } : {}),
          ...(kind ? { kind } : {}),
          ...(votingRight !== undefined ? { votingRight } : {}),
          ...(startDate ? { startDate } : {}),
          ...(endDate ? { endDate } : {}),
        };
        // A person listed twice (a current and an ended membership): the second gets its own key.
        if (memberships.some((o) => (o.key ?? o.person.key) === person.key))
          m.key = `${person.key}-${startDate ?? memberships.length}`;
        memberships.push(m);
      });
  });
  return memberships;
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
