import { baseDirectory, pageName, queryParam } from '../html';
import type { Ref } from '../types';

/**
 * SessionNet (Somacos; `.asp` and `.php` installations, at the root or under `/bi/`): page codes, the
 * `__k…` record parameters, and the one way we build an object's id URL. Page codes: si0040 month
 * calendar, si0057 / si0050 meeting (agenda, documents), to0050 agenda item, vo0050 paper, gr0040
 * committees, kp0040 members of a committee, pe0051 person, getfile documents.
 */
export const SESSIONNET_KEYS = {
  meeting: '__ksinr',
  agendaItem: '__ktonr',
  paper: '__kvonr',
  organization: '__kgrnr',
  person: '__kpenr',
} as const;

export type SessionNetKind = keyof typeof SESSIONNET_KEYS;

export const SESSIONNET_PAGES: Record<SessionNetKind | 'calendar' | 'organizationList' | 'file', string> = {
  calendar: 'si0040',
  meeting: 'si0057',
  agendaItem: 'to0050',
  paper: 'vo0050',
  organization: 'kp0040',
  person: 'pe0051',
  organizationList: 'gr0040',
  file: 'getfile',
};

export interface SessionNetSite {
  /** Directory of the installation, ending in `/`. */
  base: string;
  /** `asp` or `php`. */
  extension: 'asp' | 'php';
  /**
   * The body (SessionNet "Mandant", `__cpanr`) when the installation serves several — a Samtgemeinde and
   * its member municipalities: calendar and committee list show the selected body's only. Record pages
   * (`__ksinr`, `__kvonr` …) are numbered across the installation and need no body.
   */
  body?: string;
}

/** The Mandant parameter: which body of a multi-body installation a list page shows. */
export const SESSIONNET_BODY_PARAM = '__cpanr';

/** Base directory, script extension and body from a URL (`…/bi/info.php?__cpanr=2` → php, body 2). */
export function sessionNetSite(startUrl: string): SessionNetSite {
  const path = new URL(startUrl).pathname.toLowerCase();
  const body = queryParam(startUrl, SESSIONNET_BODY_PARAM);
  return {
    base: baseDirectory(startUrl),
    extension: path.endsWith('.php') ? 'php' : 'asp',
    ...(body !== undefined && /^\d{1,6}$/.test(body) ? { body } : {}),
  };
}

/** `&__cpanr=N` (or `?…`) for a site that names its body, else nothing. */
function bodyQuery(site: SessionNetSite, separator: '&' | '?'): string {
  return site.body === undefined ? '' : `${separator}${SESSIONNET_BODY_PARAM}=${site.body}`;
}

export function sessionNetSiteOf(pageUrl: string): SessionNetSite {
  return sessionNetSite(pageUrl);
}

export function sessionNetUrl(
  site: SessionNetSite,
  kind: SessionNetKind,
  key: string,
  page?: string,
): string {
  return `${site.base}${page ?? SESSIONNET_PAGES[kind]}.${site.extension}?${SESSIONNET_KEYS[kind]}=${key}`;
}

export function sessionNetRef(site: SessionNetSite, kind: SessionNetKind, key: string, name?: string): Ref {
  return { id: sessionNetUrl(site, kind, key), key, ...(name ? { name } : {}) };
}

/** `si0040.asp?__cjahr=2025&__cmonat=10&__canz=1&__cselect=0`: one month, all committees (of the body). */
export function sessionNetCalendarUrl(site: SessionNetSite, year: number, month: number): string {
  return `${site.base}${SESSIONNET_PAGES.calendar}.${site.extension}?__cjahr=${year}&__cmonat=${month}&__canz=1&__cselect=0${bodyQuery(site, '&')}`;
}

/** `gr0040.asp`: the committees (of the body). */
export function sessionNetOrganizationListUrl(site: SessionNetSite): string {
  return `${site.base}${SESSIONNET_PAGES.organizationList}.${site.extension}${bodyQuery(site, '?')}`;
}

/**
 * The id of a meeting the calendar lists without a page of its own: the month's calendar address and the
 * row's key (its date and heading) as fragment — stable while the row keeps its day and name.
 */
export function sessionNetCalendarRowId(
  site: SessionNetSite,
  year: number,
  month: number,
  key: string,
): string {
  return `${site.base}${SESSIONNET_PAGES.calendar}.${site.extension}?__cjahr=${year}&__cmonat=${month}${bodyQuery(site, '&')}#${encodeURIComponent(key)}`;
}

/** `getfile.asp?id=1001&type=do`: a document's stable address. */
export function sessionNetFileUrl(site: SessionNetSite, id: string, type = 'do'): string {
  return `${site.base}${SESSIONNET_PAGES.file}.${site.extension}?id=${id}&type=${type}`;
}

export function sessionNetKeyOf(href: string | undefined, kind: SessionNetKind): string | undefined {
  const value = queryParam(href, SESSIONNET_KEYS[kind]);
  return value !== undefined && /^\d{1,12}$/.test(value) ? value : undefined;
}

/** A getfile link: its document id and type (`do` = document). */
export function sessionNetFileOf(href: string | undefined): { id: string; type: string } | undefined {
  if (pageName(href) !== 'getfile') return undefined;
  const id = queryParam(href, 'id');
  if (id === undefined || !/^\d{1,12}$/.test(id)) return undefined;
  return { id, type: queryParam(href, 'type') ?? 'do' };
}

/**
 * A redirect to a `noauth` page marks a non-public record, as in ALLRIS. (Unproven for SessionNet: the
 * samples hold no such answer; a login page instead is caught by the gate detection.)
 */
export function isSessionNetNotPublic(finalUrl: string): boolean {
  return pageName(finalUrl) === 'noauth';
}
