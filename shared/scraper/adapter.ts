import type { SourceConfig } from '../config';
import { parseAllrisAgendaItem } from './allris/agenda-item';
import { parseAllrisCalendar } from './allris/calendar';
import { parseAllrisMeeting } from './allris/meeting';
import { parseAllrisPaper } from './allris/paper';
import { parseAllrisOrganizationList, parseAllrisPerson, parseAllrisRoster } from './allris/roster';
import { ALLRIS_PAGES, allrisBase, allrisCalendarUrl, isAllrisNotPublic } from './allris/urls';
import { ScraperConfigError } from './errors';
import { parseSessionNetCalendar } from './sessionnet/calendar';
import { parseSessionNetMeeting } from './sessionnet/meeting';
import {
  parseSessionNetOrganizationList,
  parseSessionNetPaper,
  parseSessionNetPerson,
  parseSessionNetRoster,
} from './sessionnet/records';
import {
  isSessionNetNotPublic,
  sessionNetCalendarUrl,
  sessionNetOrganizationListUrl,
  sessionNetSite,
} from './sessionnet/urls';
import type {
  CalendarPage,
  OrganizationKind,
  OrganizationListEntry,
  ParsedAgendaItemDetail,
  ParsedMeeting,
  ParsedOrganization,
  ParsedPaper,
  ParsedPerson,
  ScraperProduct,
} from './types';

/**
 * One product adapter: where its pages are and how to read them. Everything here is pure; the engine
 * fetches. Detail pages are fetched at their object's id URL (ids are built from record numbers, so the
 * id is also the canonical address of the page).
 */
export interface ScrapeAdapter {
  product: ScraperProduct;
  /** Directory of the installation (ends with `/`). */
  base: string;
  calendarUrl(year: number, month: number): string;
  parseCalendar(html: string, pageUrl: string, year: number, month: number): CalendarPage;
  parseMeeting(html: string, pageUrl: string): ParsedMeeting;
  /** Agenda item detail pages (ALLRIS to020); absent when the product has none we read. */
  parseAgendaItem?: (html: string, pageUrl: string) => ParsedAgendaItemDetail;
  parsePaper(html: string, pageUrl: string): ParsedPaper;
  /** Organization list pages; the calendar's navigation links are preferred when it has them. */
  organizationListUrls(calendar?: CalendarPage): { url: string; kind: OrganizationKind }[];
  parseOrganizationList(html: string, pageUrl: string, kind: OrganizationKind): OrganizationListEntry[];
  parseOrganization(html: string, pageUrl: string, kind: OrganizationKind): ParsedOrganization;
  parsePerson(html: string, pageUrl: string): ParsedPerson;
  /** A redirect to the product's "not public" page: skipped, not retried (issue 8). */
  isNotPublic(finalUrl: string): boolean;
}

export function allrisAdapter(startUrl: string): ScrapeAdapter {
  const base = allrisBase(startUrl);
  return {
    product: 'allris',
    base,
    calendarUrl: (year, month) => allrisCalendarUrl(base, year, month),
    parseCalendar: parseAllrisCalendar,
    parseMeeting: parseAllrisMeeting,
    parseAgendaItem: parseAllrisAgendaItem,
    parsePaper: parseAllrisPaper,
    organizationListUrls: (calendar) =>
      calendar?.organizationLists && calendar.organizationLists.length > 0
        ? calendar.organizationLists
        : [
            { url: `${base}${ALLRIS_PAGES.committeeList}`, kind: 'committee' },
            { url: `${base}${ALLRIS_PAGES.factionList}?SELECT=1`, kind: 'faction' },
          ],
    parseOrganizationList: (html, pageUrl) => parseAllrisOrganizationList(html, pageUrl),
    parseOrganization: parseAllrisRoster,
    parsePerson: parseAllrisPerson,
    isNotPublic: isAllrisNotPublic,
  };
}

export function sessionNetAdapter(startUrl: string): ScrapeAdapter {
  const site = sessionNetSite(startUrl);
  return {
    product: 'sessionnet',
    base: site.base,
    calendarUrl: (year, month) => sessionNetCalendarUrl(site, year, month),
    parseCalendar: parseSessionNetCalendar,
    parseMeeting: parseSessionNetMeeting,
    parsePaper: parseSessionNetPaper,
    organizationListUrls: () => [{ url: sessionNetOrganizationListUrl(site), kind: 'committee' }],
    parseOrganizationList: (html, pageUrl) => parseSessionNetOrganizationList(html, pageUrl),
    parseOrganization: (html, pageUrl, kind) => parseSessionNetRoster(html, pageUrl, kind),
    parsePerson: parseSessionNetPerson,
    isNotPublic: isSessionNetNotPublic,
  };
}

/** The adapter a scraper source is configured with (`adapter` is required for kind scraper). */
export function adapterFor(source: Pick<SourceConfig, 'sourceId' | 'adapter' | 'systemUrl'>): ScrapeAdapter {
  switch (source.adapter) {
    case 'allris':
      return allrisAdapter(source.systemUrl);
    case 'sessionnet':
      return sessionNetAdapter(source.systemUrl);
    default:
      throw new ScraperConfigError(`source ${source.sourceId} has no scraper adapter (allris, sessionnet)`);
  }
}
