import { baseDirectory, pageName, queryParam } from '../html';
import type { OrganizationKind, Ref } from '../types';

/**
 * ALLRIS 3 (`/bi/*.asp`): page names, the record-number parameter of each object kind, and the one way
 * we build an object's id URL — base directory + page + that parameter alone, so the id never depends
 * on how a link was written (`&toggleMenu=1`, `history=switch`, `tsDD=…`).
 */
export const ALLRIS_PAGES = {
  calendar: 'si010_e.asp',
  meeting: 'to010.asp',
  agendaItem: 'to020.asp',
  paper: 'vo020.asp',
  committee: 'au020.asp',
  faction: 'fr020.asp',
  person: 'kp020.asp',
  committeeList: 'au010.asp',
  factionList: 'fr010.asp',
  file: 'do027.asp',
} as const;

/** Record-number parameters (ALLRIS "laufende Nummer", LFDNR). */
export const ALLRIS_KEYS = {
  meeting: 'SILFDNR',
  agendaItem: 'TOLFDNR',
  paper: 'VOLFDNR',
  committee: 'AULFDNR',
  faction: 'FRLFDNR',
  person: 'KPLFDNR',
  file: 'DOLFDNR',
} as const;

export type AllrisKind = keyof typeof ALLRIS_KEYS;

/** ALLRIS redirects requests for non-public records here: "not public", skipped, never retried. */
export const ALLRIS_NOT_PUBLIC_PAGE = 'noauth';

/** The installation's directory: `https://host/bi/allris.net.asp` → `https://host/bi/`. */
export function allrisBase(url: string): string {
  const u = new URL(url);
  const at = u.pathname.toLowerCase().indexOf('/bi/');
  if (at >= 0) {
    u.pathname = u.pathname.slice(0, at + 4);
    u.search = '';
    u.hash = '';
    return u.toString();
  }
  return baseDirectory(url);
}

export function allrisUrl(base: string, kind: AllrisKind, key: string): string {
  const page = kind === 'faction' ? ALLRIS_PAGES.faction : ALLRIS_PAGES[kind];
  return `${base}${page}?${ALLRIS_KEYS[kind]}=${key}`;
}

export function allrisRef(base: string, kind: AllrisKind, key: string, name?: string): Ref {
  return { id: allrisUrl(base, kind, key), key, ...(name ? { name } : {}) };
}

/** `si010_e.asp?MM=11&YY=2025`: the calendar of one month. */
export function allrisCalendarUrl(base: string, year: number, month: number): string {
  return `${base}${ALLRIS_PAGES.calendar}?MM=${month}&YY=${year}`;
}

export function isAllrisNotPublic(finalUrl: string): boolean {
  return pageName(finalUrl) === ALLRIS_NOT_PUBLIC_PAGE;
}

/** The record number a link or form carries for `kind`, when it points at that kind's page. */
export function allrisKeyOf(href: string | undefined, kind: AllrisKind): string | undefined {
  const value = queryParam(href, ALLRIS_KEYS[kind]);
  return value !== undefined && /^\d{1,12}$/.test(value) ? value : undefined;
}

export function organizationKindOfPage(href: string | undefined): OrganizationKind | undefined {
  const name = pageName(href);
  if (name === 'au020' || name === 'au010') return 'committee';
  if (name === 'fr020' || name === 'fr010') return 'faction';
  return undefined;
}
