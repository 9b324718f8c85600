import { PageLayoutError } from '../errors';
import { cleanText, displayPersonName, loadHtml, pageName, splitPersonName, textOf } from '../html';
import type {
  OrganizationKind,
  OrganizationListEntry,
  ParsedMembership,
  ParsedOrganization,
  ParsedPerson,
} from '../types';
import { heading, headline, pageKey, requireContainer } from './common';
import { allrisBase, allrisKeyOf, allrisRef, allrisUrl, organizationKindOfPage } from './urls';

/**
 * ALLRIS 3 organizations and persons: committee roster `au020.asp?AULFDNR=`, faction roster
 * `fr020.asp?FRLFDNR=` (same layout: a "Mitglieder" table with person links `kp020.asp?KPLFDNR=`, the
 * kind of membership and the faction a member sits for), the lists `au010.asp` / `fr010.asp`, and the
 * person page `kp020.asp?KPLFDNR=`. Vacancies ("N. N.", no link) are counted, not invented as persons.
 */

export function parseAllrisRoster(html: string, pageUrl: string, kind: OrganizationKind): ParsedOrganization {
  const $ = loadHtml(html);
  const pageType = kind === 'faction' ? 'fr020' : 'au020';
  requireContainer($, pageUrl, pageType, pageType);
  const allrisKind = kind === 'faction' ? 'faction' : 'committee';
  const key = pageKey($, pageUrl, allrisKind, pageType);
  const base = allrisBase(pageUrl);
  const org: ParsedOrganization = {
    id: allrisUrl(base, allrisKind, key),
    key,
    name: heading($),
    kind,
    memberships: [],
  };
  const head = headline($);
  if (head) org.headline = head;
  const title = $('h3')
    .filter((_, el) => cleanText($(el).text()).toLowerCase().startsWith('mitglieder'))
    .first();
  const table = title.nextAll('table.tl1').first();
  if (title.length > 0 && table.length === 0) throw new PageLayoutError(pageType, pageUrl, 'no member table');
  table.find('tr').each((_, tr) => {
    const link = $(tr)
      .find('a[href]')
      .toArray()
      .find((a) => allrisKeyOf($(a).attr('href'), 'person') !== undefined);
    if (!link) return;
    const personKey = allrisKeyOf($(link).attr('href'), 'person') as string;
    if (org.memberships.some((m) => m.person.key === personKey)) return;
    const membership: ParsedMembership = {
      person: allrisRef(base, 'person', personKey, textOf($(link))),
    };
    const role = textOf($(tr).children('td.text1').first());
    if (role) membership.role = role;
    const onBehalfOf = textOf($(tr).children('td.text4').first());
    if (onBehalfOf) membership.onBehalfOfName = onBehalfOf;
    org.memberships.push(membership);
  });
  const count = /Anzahl:\s*(\d+)/.exec(cleanText(table.nextAll('table').first().find('th').text()));
  if (count?.[1]) org.memberCount = Number(count[1]);
  return org;
}

/** `au010.asp` / `fr010.asp`: every organization the list links to, by record number. */
export function parseAllrisOrganizationList(html: string, pageUrl: string): OrganizationListEntry[] {
  const $ = loadHtml(html);
  const base = allrisBase(pageUrl);
  const entries: OrganizationListEntry[] = [];
  $('#rismain a[href], #rismain form[action]').each((_, el) => {
    const href = $(el).attr('href') ?? $(el).attr('action');
    const kind = organizationKindOfPage(href);
    if (kind === undefined || !/^(au020|fr020)$/.test(pageName(href) ?? '')) return;
    const allrisKind = kind === 'faction' ? 'faction' : 'committee';
    const key =
      allrisKeyOf(href, allrisKind) ??
      ($(el).is('form')
        ? $(el)
            .find(`input[name="${kind === 'faction' ? 'FRLFDNR' : 'AULFDNR'}" i]`)
            .attr('value')
        : undefined);
    if (key === undefined || !/^\d+$/.test(key)) return;
    const id = allrisUrl(base, allrisKind, key);
    const name = $(el).is('a') ? textOf($(el)) : '';
    const known = entries.find((e) => e.id === id);
    if (known) {
      if (!known.name && name) known.name = name;
      return;
    }
    entries.push({ id, key, kind, ...(name ? { name } : {}) });
  });
  return entries;
}

/**
 * `kp020.asp?KPLFDNR=`: the person's name and the organizations they belong to. (No captured kp020 page
 * is in the fixtures; this follows the layout shared by au020/fr020: the heading carries the name, rows
 * link the organizations.)
 */
export function parseAllrisPerson(html: string, pageUrl: string): ParsedPerson {
  const $ = loadHtml(html);
  requireContainer($, pageUrl, 'kp020', 'kp020');
  const key = pageKey($, pageUrl, 'person', 'kp020');
  const base = allrisBase(pageUrl);
  const raw = heading($);
  const formOfAddress = /^(Frau|Herr)\s+/.exec(raw)?.[1];
  const bare = formOfAddress ? raw.slice(formOfAddress.length).trim() : raw;
  const parts = splitPersonName(bare);
  const person: ParsedPerson = {
    id: allrisUrl(base, 'person', key),
    key,
    name: displayPersonName(bare),
    memberships: [],
  };
  if (parts.familyName) person.familyName = parts.familyName;
  if (parts.givenName) person.givenName = parts.givenName;
  if (parts.title) person.title = parts.title;
  if (formOfAddress) person.formOfAddress = formOfAddress;
  $('#rismain tr').each((_, tr) => {
    const link = $(tr)
      .children('td')
      .find('a[href]')
      .toArray()
      .find(
        (a) =>
          organizationKindOfPage($(a).attr('href')) !== undefined &&
          /0?20$/.test(pageName($(a).attr('href')) ?? ''),
      );
    if (!link) return;
    const href = $(link).attr('href');
    const kind = organizationKindOfPage(href) as OrganizationKind;
    const orgKey = allrisKeyOf(href, kind === 'faction' ? 'faction' : 'committee');
    if (orgKey === undefined) return;
    const organization = allrisRef(
      base,
      kind === 'faction' ? 'faction' : 'committee',
      orgKey,
      textOf($(link)),
    );
    if (person.memberships.some((m) => m.organization.id === organization.id)) return;
    const role = textOf($(tr).children('td.text1, td.text4').not($(link).closest('td')).first());
    person.memberships.push({ organization, kind, ...(role ? { role } : {}) });
  });
  return person;
}
