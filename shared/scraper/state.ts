import { CursorConflictError, refreshDue, type SyncFailure, stableStringify } from '../engine';
import { type AwsClients, SourceSyncItems, scrapeCursorSk, scrapeMonthSk, scrapePageSk } from '../store';
import type { MirrorTypeName } from './oparl-shape';
import type { CalendarRow, OrganizationKind } from './types';

/**
 * The scraper's items in the State table, next to the OParl engine's in the source partition
 * `SOURCE#<sourceId>` (shared/engine/state.ts), in their own sort-key family:
 * - `SCRAPE#CURSOR#<kind>`     the run cursor, checkpointed by the run frame (optimistic lock on `seq`);
 *                              an unchanged incremental scrape leaves it unwritten (engine.ts `finish`)
 * - `SCRAPE#MONTH#<yyyy-mm>`   hash per calendar row of that month (+ when its meeting page was read)
 * - `SCRAPE#PAGE#<scrapeUrlKey>` per detail page: content hash, the objects it owns (for tombstones),
 *                              when it was read, "not public" marks
 * Single-item writes only (dynalite has no transactions); each is idempotent, the cursor is the commit
 * point of a page. Body, slug and session-day items are the OParl engine's (`SyncStateStore`).
 */

// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export const cursorKey = scrapeCursorSk;
export const monthKey = scrapeMonthSk;
export const pageStateKey = scrapePageSk;

/** One calendar row as remembered: content hash, when its meeting page was last read (ISO), its URL. */
export interface RowMark {
  h: string;
  f?: string;
  /** The meeting's id URL (a row that disappears is checked at this address). */
  u?: string;
  /** Its page answered "not public" (or was gone): no revisits until the row itself changes. */
  n?: true;
  /** A calendar-only meeting (no page exists, `u` is the row's own id): when the row goes, the meeting is gone. */
  c?: true;
}

export interface MonthState {
  month: string;
  rows: Record<string, RowMark>;
  fetchedAt: string;
}

export type PageKind = 'meeting' | 'agendaItem' | 'paper' | 'organization' | 'person';

export interface PageState {
  url: string;
  kind: PageKind;
  /** Hash over the owned objects' hashes: an unchanged page writes nothing. */
  hash?: string;
  /** Objects this page owns, by id: type and content hash (tombstoned when they disappear). */
  objects: Record<string, { type: MirrorTypeName; hash: string }>;
  fetchedAt: string;
  /** The source redirected to its "not public" page (ALLRIS noauth.asp): skipped, not retried. */
  notPublicSince?: string;
}

/** A unit of work; the cursor keeps a stack of them (children before the commit of their parent). */
export type ScrapeTask =
  | { op: 'meeting'; url: string; month: string; row: CalendarRow; revisit?: boolean }
  | { op: 'meeting-row'; month: string; row: CalendarRow }
  | { op: 'agenda-item'; url: string; meetingUrl: string; item: Record<string, unknown>; hash: string }
  | { op: 'paper'; url: string }
  | { op: 'organization-list'; url: string; kind: OrganizationKind }
  | { op: 'organization'; url: string; kind: OrganizationKind }
  | { op: 'person'; url: string }
  | { op: 'vanished-check'; url: string; meetingKey: string; month: string; calendarOnly?: true }
  | { op: 'commit-month'; month: string; rows: Record<string, RowMark> }
  | { op: 'commit-page'; state: PageState };

export type ScrapePhase = 'months' | 'vanished' | 'organizations' | 'finish';

export interface ScrapeCursor {
  sourceId: string;
  runId: string;
  kind: 'incremental' | 'full';
  status: 'running' | 'done';
  seq: number;
  startedAt: string;
  updatedAt?: string;
  phase: ScrapePhase;
  /** Calendar months of this run, `YYYY-MM`, and the next one to read. */
  months: string[];
  monthIndex: number;
  tasks: ScrapeTask[];
  /** Meetings that left a month's listing, by record number (checked at the end of the run). */
  vanished: Record<string, { url: string; month: string; calendarOnly?: true }>;
  /** Meetings that entered a month's listing this run (a vanished one may have moved). */
  appeared: string[];
  /** Organization pages asked in this run (a committee named on many meetings is read once). */
  organizationsAsked: string[];
  totals: {
    requests: number;
    pages: number;
    new: number;
    modified: number;
    deleted: number;
    documents: number;
    notPublic: number;
  };
  flags: { answered: number; disallowed: number };
  failures: SyncFailure[];
  stopReason?: 'end' | 'deadline' | 'interrupted' | 'failure';
  report?: Record<string, unknown>;
}

export class ScrapeStateStore {
  /** The source partition's items in the store (shared/store): every read and write goes through it. */
  private readonly items: SourceSyncItems;
  private writes = 0;

  constructor(
    clients: Pick<AwsClients, 'doc'>,
    table: string,
    private readonly sourceId: string,
  ) {
    this.items = new SourceSyncItems({ doc: clients.doc, table }, sourceId);
  }

  /**
   * Month and page states written so far: the run frame saves the cursor after such a write (the
   * cursor's tasks were derived from them).
   */
  get commits(): number {
    return this.writes;
  }

  getCursor(kind: string): Promise<ScrapeCursor | undefined> {
    return this.items.getPacked<ScrapeCursor>(cursorKey(kind));
  }

  /**
   * Optimistic lock on `seq`, as the OParl cursor: a duplicate invocation stops here. Packed (issue 28,
   * shared/store packed-item.ts): the stack carries calendar rows, agenda items and page states, and the
   * cursor is written after every page — 5–6 KB in a run with a change, ≈ 19 KB on average through a
   * first full scrape, plain.
   */
  async putCursor(cursor: ScrapeCursor, previousSeq: number | undefined): Promise<void> {
    if (!(await this.items.putLockedPacked(cursorKey(cursor.kind), cursor, previousSeq)))
      throw new CursorConflictError(this.sourceId, `scrape ${cursor.kind}`);
  }

  /** A month's or a page's state: a commit the next checkpoint saves the cursor after. */
  private async putCommitted(sk: string, state: object): Promise<void> {
    await this.items.put(sk, state);
    this.writes += 1;
  }

  /** Months as read, to tell an unchanged month (issue 18: most scrapes change no row). */
  private readonly readMonths = new Map<string, MonthState>();

  /**
   * Issue 28: the months a run is about to read (`YYYY-MM`, a run's consecutive calendar months), in
   * one strongly consistent Query of their range instead of one GetItem each: a Query bills the sum of
   * the items' sizes in 4 KB units, a GetItem at least one unit per item (an unchanged scrape read its
   * ten months in ten). Later reads of a month are served from it until the run writes that month
   * (shared/store PartitionItems.preload; the run's lease keeps other writers away, SCH-5).
   */
  async preloadMonths(months: readonly string[]): Promise<void> {
    if (months.length === 0) return;
    const sorted = [...months].sort();
    await this.items.preload(monthKey(sorted[0] as string), monthKey(sorted[sorted.length - 1] as string));
  }

  async getMonth(month: string): Promise<MonthState | undefined> {
    const state = await this.items.get<MonthState>(monthKey(month));
    if (state) this.readMonths.set(month, state);
    return state;
  }

  /**
   * Writes a month's rows — unless they are the rows read and those were written less than
   * MARK_REFRESH_MS ago: an unchanged month costs no write (and, not being a commit, no checkpoint).
   */
  async putMonth(state: MonthState): Promise<void> {
    const read = this.readMonths.get(state.month);
    if (
      read !== undefined &&
      stableStringify(read.rows) === stableStringify(state.rows) &&
      !refreshDue(read.fetchedAt, state.fetchedAt)
    ) {
      return;
    }
    await this.putCommitted(monthKey(state.month), state);
    this.readMonths.set(state.month, state);
  }

  getPage(url: string): Promise<PageState | undefined> {
    return this.items.get<PageState>(pageStateKey(url));
  }

  putPage(state: PageState): Promise<void> {
    return this.putCommitted(pageStateKey(state.url), state);
  }

  /** Page states of several URLs in one round trip (which organizations were never read). */
  async getPages(urls: string[]): Promise<Map<string, PageState>> {
    const found = new Map<string, PageState>();
    for (const state of await this.items.getMany<PageState>(urls.map(pageStateKey)))
      found.set(state.url, state);
    return found;
  }
}
