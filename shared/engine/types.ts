import type { FailureKind, SyncKind } from '../schedule';
import type { ListName } from './constants';

/** SCH-10: what we know of a list's `modified_since` support. */
export type FilterFinding = 'unknown' | 'supported' | 'rejected' | 'ignored';

export interface SyncFailure {
  kind: FailureKind;
  detail: string;
  url?: string;
  status?: number;
  list?: string;
}

/** B-1: validators of one page URL we fetched, and what we need when it answers 304. */
export interface PageValidator {
  etag?: string;
  lastModified?: string;
  /** `links.next` of that page (null: last page). */
  next: string | null;
  /** Body list pages: keys of the bodies on it. */
  bodyKeys?: string[];
  at: string;
}

/** State item `LIST#<bodyKey>#<list>`: cursors live in the run cursor; these are the list's marks. */
export interface ListState {
  bodyKey: string;
  list: ListName;
  /** The list URL as the Body names it. */
  url: string;
  filter: FilterFinding;
  filterCheckedAt?: string;
  /** Why the finding is what it is (status, evidence), for on-call. */
  filterEvidence?: string;
  /** SCH-10: the server filters but drops the filter from `links.next`; we carry it. */
  nextDropsFilter?: boolean;
  /** SCH-9: `modified` values demonstrably carry a time of day. */
  timeOfDay: boolean;
  /** SCH-9: a change was ever seen in this list. */
  changeSeen: boolean;
  /** Start (ISO) of the last run that read this list to its end. */
  lastCompleteStart?: string;
  /** SCH-11: the optional list answered 404. */
  missing?: { since: string; nextCheckAt: string; status: number };
  /** SCH-12: the last request timed out (60 s) or got 504; skipped until `skipUntil`. */
  slow?: { streak: number; skipUntil: string; lastAt: string };
  /** SCH-12: changes since this instant (ISO) still have to be caught up after a slow spell. */
  catchUpSince?: string;
  /** B-1: validators by page URL hash (few, newest kept). */
  validators?: Record<string, PageValidator>;
  /** Issue 28: the stamp of the list's digest as last written (a digest with another is not trusted). */
  digest?: string;
  updatedAt?: string;
}

/** State item `BODY#<bodyKey>`. */
export interface BodyRecord {
  bodyKey: string;
  /** The Body's OParl id (URL). */
  id: string;
  name: string;
  shortName?: string;
  /** Lower case, umlauts transliterated, unique per source (reserved with a `SLUG#` item). */
  slug: string;
  /** ONB-4: new bodies stay unlisted until an operator lists them. Never changed by the sync. */
  listed: boolean;
  /** When an operator last listed or unlisted the body (shared/onboarding `setBodyListed`). */
  listedChangedAt?: string;
  /** List URLs the Body offers, by our list name. */
  lists: Partial<Record<ListName, string>>;
  oparlVersion?: string;
  /** The source marked the body deleted (OPT-2); its lists are not synced any more. */
  deleted?: boolean;
  /** OPT-2/OPT-3: an operator took the body down (shared/takedown); the sync never fetches or writes it again. */
  takedown?: { at: string; by: string; note?: string };
  firstSeenAt: string;
  lastSeenAt: string;
  /** SCH-9: start of the last sync (any kind) that read every list of this body to its end. */
  lastCompleteSyncStart?: string;
  /** Start of the last complete full sync of this body. */
  lastCompleteFullSyncStart?: string;
  /**
   * Issue 28: the digest of the body's page in the body list (shared/oparl body-page-digest.ts), as
   * stored (shared/mirror `ListDigestData`); written by the sync only, dropped by `takedown lift`.
   */
  pageDigest?: unknown;
}

/** State item `OPARL#SYSTEM`. */
export interface SystemRecord {
  systemUrl: string;
  bodyListUrl: string;
  oparlVersion?: string;
  fetchedAt: string;
  /** SCH-10: result of the last filter check after a full sync. */
  filterCheck?: { finding: FilterFinding; at: string; evidence: string };
  validators?: Record<string, PageValidator>;
}

/** What happened to one list in a run (the report's per-list marks). */
export interface ListReport {
  body: string;
  list: ListName;
  mode?: 'filtered' | 'unfiltered' | 'full' | 'slices' | 'catchup';
  /** done: read to its end; open: not finished; missing / skipped-*: not asked (SCH-11/12). */
  outcome: 'done' | 'open' | 'missing' | 'skipped-missing' | 'skipped-slow' | 'slow' | 'failed';
  pages: number;
  changed: number;
  filter: FilterFinding;
  timeOfDay: boolean;
  nextDropsFilter?: boolean;
  missingSince?: string;
  slowUntil?: string;
  catchUpSince?: string;
  /** Slices completed / total (sliced full sync). */
  slices?: { done: number; total: number };
  note?: string;
}

export interface SyncReport {
  sourceId: string;
  runId: string;
  kind: SyncKind;
  /** HTTP requests to the council server in this run (all invocations of it), robots.txt excluded. */
  requests: number;
  /** Any new, modified or deleted object (SCH-3 resets the cadence). */
  changed: boolean;
  /** Every list of every body read to its end without failure. */
  complete: boolean;
  /** The time budget ran out: the cursor is saved and a continuation message should follow. */
  continued: boolean;
  stopReason: 'end' | 'deadline' | 'window' | 'interrupted' | 'failure' | 'filter-not-honoured';
  objects: { new: number; modified: number; deleted: number };
  failures: SyncFailure[];
  lists: ListReport[];
  /** SCH-2: Berlin dates of meetings starting today or later (cancelled and deleted excluded). */
  sessionDays: string[];
  /** FULL-7: a slice returned objects outside its range; run only incremental syncs for 30 days. */
  filterNotHonoured?: boolean;
  /** Documents newly recorded or marked changed in the Documents table. */
  documents: number;
  startedAt: string;
  finishedAt: string;
}
