/**
 * What the product adapters read from council HTML pages: typed records, product-neutral, before they
 * are shaped into OParl objects (`oparl-shape.ts`). Every `id` is the stable URL of the object's page,
 * built from the product's own record number (ALLRIS `…LFDNR`, SessionNet `__k…`), never from a
 * session-scoped link. `key` is that record number alone.
 */

export const SCRAPER_PRODUCTS = ['allris', 'sessionnet'] as const;
export type ScraperProduct = (typeof SCRAPER_PRODUCTS)[number];

/** A link to another object: its stable id URL and the text it was shown with. */
export interface Ref {
  id: string;
  key: string;
  name?: string;
}

/** One meeting row of a month calendar (ALLRIS si010_e, SessionNet si0040). */
export interface CalendarRow {
  meetingId: string;
  key: string;
  /** The meeting page with the agenda; absent when the calendar offers none (not published, private). */
  detailUrl?: string;
  /**
   * No page of the meeting exists at all (SessionNet rows whose heading links nowhere): `meetingId` is the
   * calendar row's own address, never one to ask — when the row leaves the calendar, the meeting is gone.
   */
  calendarOnly?: true;
  /** Berlin local date, YYYY-MM-DD. */
  date: string;
  /** HH:MM, Berlin local time. */
  startTime?: string;
  endTime?: string;
  name: string;
  organization?: Ref;
  /** Committee name when the calendar shows it without a link. */
  organizationName?: string;
  room?: string;
  /** "ENTFÄLLT", "abgesagt" … in the row. */
  cancelled: boolean;
  /** The row offers minutes ("Pro"/Niederschrift): publishing them changes the row. */
  hasMinutes?: boolean;
}

export interface CalendarPage {
  year: number;
  month: number;
  rows: CalendarRow[];
  /** The installation's heading ("Bezirksversammlung Altona"), when the page shows one. */
  headline?: string;
  /** Organization list pages the navigation links to (committees, factions), absolute URLs. */
  organizationLists?: { url: string; kind: OrganizationKind }[];
}

export type FileRole = 'invitation' | 'resultsProtocol' | 'verbatimProtocol' | 'mainFile' | 'auxiliary';

export interface ParsedFile {
  /** Stable id URL (ALLRIS `do027.asp?DOLFDNR=`, SessionNet `getfile?id=&type=do`, or page + fragment). */
  id: string;
  name: string;
  /** A stable download address, when the product offers one. */
  accessUrl?: string;
  /**
   * ALLRIS `___tmp/…` links: valid for the visitor session that produced the page only. Never an id,
   * never an accessUrl (the document cache would fetch a dead link later).
   */
  temporaryUrl?: string;
  role: FileRole;
  /** Timestamp the page shows for the file (ALLRIS "Anlage 1 (07.07.2026 16:09:37)"), ISO with offset. */
  date?: string;
  /** SessionNet document box category ("BM", "PR", "VO" …). */
  category?: string;
}

export interface ParsedAgendaItem {
  id: string;
  key: string;
  /** "Ö 2.1", "N 3" as printed. */
  number?: string;
  name: string;
  public: boolean;
  /** Decision state as the agenda shows it ("zur Kenntnis genommen"); undefined while open. */
  result?: string;
  paper?: Ref & { reference?: string };
  order: number;
  /** ALLRIS to020 / SessionNet to0050: a page with minutes and resolution for this item. */
  detailUrl?: string;
  /** SessionNet: "Berichterstatter: …". */
  reporter?: string;
  /** The vote as the agenda prints it (SessionNet Layout 6 "Abstimmung: Ja: 30, Nein: 4"). */
  vote?: string;
  files: ParsedFile[];
}

export interface ParsedMeeting {
  id: string;
  key: string;
  name: string;
  date?: string;
  startTime?: string;
  endTime?: string;
  organization?: Ref;
  /** The committee's name where the page names it without a link (SessionNet Layout 6 `sigrname`). */
  organizationName?: string;
  room?: string;
  address?: string;
  /** "öffentlich/nichtöffentlich" as printed. */
  publicity?: string;
  agenda: ParsedAgendaItem[];
  files: ParsedFile[];
  headline?: string;
}

/** ALLRIS to020: one agenda item with minutes ("Protokoll"), resolution and vote. */
export interface ParsedAgendaItemDetail {
  id: string;
  key: string;
  number?: string;
  name: string;
  meeting?: Ref;
  organization?: Ref;
  result?: string;
  date?: string;
  paper?: Ref & { reference?: string };
  minutesText?: string;
  resolutionText?: string;
  voteText?: string;
}

export interface ParsedConsultation {
  organizationName?: string;
  meeting?: Ref;
  date?: string;
  /** "Kenntnisnahme", "Entscheidung" … */
  role?: string;
  /** "Geplant", "Bereit", "Erledigt" … */
  state?: string;
}

export interface ParsedPaper {
  id: string;
  key: string;
  /** "22-2362". */
  reference?: string;
  name: string;
  paperType?: string;
  publicity?: string;
  date?: string;
  underDirectionOf?: string;
  originators: string[];
  consultations: ParsedConsultation[];
  mainFile?: ParsedFile;
  files: ParsedFile[];
  relatedPapers: Ref[];
  headline?: string;
}

export type OrganizationKind = 'committee' | 'faction' | 'other';

export interface ParsedMembership {
  /**
   * The member. A person the roster does not link (SessionNet: sachkundige Bürger, beratende
   * Mitglieder) has an id on the roster page itself (`…kp0040?__kgrnr=2#person-<name>`): kept, not lost.
   */
  person: Ref;
  /** "Vorsitzendes Mitglied", "Ständige Vertretung", SessionNet's group heading ("Vorsitz") … */
  role?: string;
  /** The faction or party a committee member sits for, as text ("SPD-Fraktion", "Fraktionslos"). */
  onBehalfOfName?: string;
  /** Kind of membership as printed ("Ratsmitglied", "Sachk. Bürger/in (mit Stimmr.)", "Beratendes Mitglied"). */
  kind?: string;
  /** From the group: "mit Stimmrecht" true, "mit beratender Stimme" false; absent where it says neither. */
  votingRight?: boolean;
  /** ISO dates of an ended membership ("Mitgliedschaft beendet": von … bis …). */
  startDate?: string;
  endDate?: string;
  /** Distinguishes two memberships of one person in one organization (an ended one beside a current one). */
  key?: string;
}

export interface ParsedOrganization {
  id: string;
  key: string;
  name: string;
  kind: OrganizationKind;
  memberships: ParsedMembership[];
  /** Members the page counts ("Anzahl: 53"), vacancies ("N. N.") included. */
  memberCount?: number;
  headline?: string;
}

export interface ParsedPerson {
  id: string;
  key: string;
  name: string;
  familyName?: string;
  givenName?: string;
  formOfAddress?: string;
  title?: string;
  memberships: { organization: Ref; kind: OrganizationKind; role?: string }[];
}

/** Organization list pages (ALLRIS au010/fr010, SessionNet gr0040): the organizations they link. */
export interface OrganizationListEntry extends Ref {
  kind: OrganizationKind;
}
