import type { DocumentState } from './constants';

export type { DocumentState } from './constants';

/**
 * One item of the Documents table (pk `docId` = SHA-256 of the file URL). The sync creates it
 * (shared/engine/documents.ts: url, sourceId, bodyId, fileId, listed, firstSeenAt, `pending` in the
 * intake shard `due`); the document functions own everything else.
 *
 * `attemptShard` + `nextAttemptAt` (GSI `byNextAttempt`) say which queue the document waits in and
 * from when — every function selects its work through that index only (see keys.ts for the shards).
 * A document without `attemptShard` waits for nothing (terminal, or blocked until an operator clears
 * it, DOC-6).
 */
export interface DocumentItem {
  docId: string;
  url: string;
  sourceId: string;
  /** OParl id of the body the file belongs to. */
  bodyId: string;
  /** OParl id of the File object. */
  fileId?: string;
  /** ONB-4 / DOC-7 as the sync saw it; the functions read the body's current flag where they can. */
  listed?: boolean;
  firstSeenAt: string;
  sourceModified?: string;
  sourceChecksum?: string;
  /** Set by the sync when the source changed the File object (DEL-1 re-fetches). */
  sourceChangedAt?: string;
  downloadUrl?: string;
  mimeType?: string;

  state: DocumentState;
  attemptShard?: string;
  nextAttemptAt?: string;

  /** Fetch attempts made by the cache (all outcomes); reset only by an operator clear (DOC-6). */
  attempts?: number;
  /** DOC-4: failed attempts in a row, the step on the retry ladder. */
  failures?: number;
  lastAttemptAt?: string;
  /** Code of the last outcome: `STORED`, `NOT_MODIFIED`, `HTTP_503`, `TIMEOUT`, `ROBOTS_DISALLOWED` … */
  lastOutcome?: string;
  /** When the ladder wants the next attempt (kept apart from nextAttemptAt, which the sync may reset). */
  retryAt?: string;
  /** Why a `pending`/`disabled` document is parked: its body is unlisted, or file fetching is off. */
  parked?: 'unlisted' | 'disabled';

  // The stored copy (written only after the upload completed).
  storedKey?: string;
  storedAt?: string;
  size?: number;
  sha256?: string;
  contentType?: string;
  etag?: string;
  lastModified?: string;
  /** The URL that answered (after redirects). */
  fetchedUrl?: string;
  /** Last time the source was asked about this file (cache, re-fetch, sample or re-check). */
  lastCheckedAt?: string;
  /** DEL-1 / DEL-2: the copy is to be re-fetched (conditionally) by the deletion check. */
  refetch?: boolean;

  // Text (DOC-2).
  textKey?: string;
  hasText?: boolean;
  /** False for a PDF without a text layer (scanned). */
  textLayer?: boolean;
  textChars?: number;
  textPages?: number;
  textAt?: string;
  /** SHA-256 of the file version whose text attempt finished (success or final failure). */
  textFor?: string;
  /**
   * Why the last text attempt failed: final with `textFor`, else the reason of the retry on the text
   * ladder (`TEXT_TIMEOUT`, `TEXT_MEMORY`, `TEXT_INTERRUPTED` — written before the file is read).
   */
  textError?: string;
  /** Text attempts started for the version `textAttemptFor` (recorded before reading, issue 25). */
  textAttempts?: number;
  textAttemptFor?: string;
  textAttemptAt?: string;
  /** Downloads made for text only (documents whose copy we do not keep, DOC-7). */
  textDownloads?: number;

  // Gone (DOC-5 / DEL-3).
  goneSince?: string;
  goneStatus?: number;
  /** DEL-3 re-checks made since `goneSince`. */
  goneChecks?: number;
  /** Our copy and text were deleted after the 30-day GET still found the file missing. */
  copyDeletedAt?: string;

  /** OPT-2: taken down (shared/takedown): never fetched, stored or read for text again. */
  takedownAt?: string;

  // DOC-6.
  blockedAt?: string;
  clearedAt?: string;
  clearedBy?: string;
}

/** What the source answered to one fetch of a file, as the decisions see it. */
export type FetchOutcome =
  | {
      kind: 'stored';
      size: number;
      sha256: string;
      contentType?: string;
      etag?: string;
      lastModified?: string;
      fetchedUrl: string;
    }
  /** B-1: a 304 to our conditional request — the copy we hold is current. */
  | { kind: 'not-modified'; etag?: string; lastModified?: string }
  /** A 2xx without a single byte (DOC-4 retries it). */
  | { kind: 'empty' }
  | { kind: 'failed'; code: string; status?: number; retryAtMs?: number; message?: string }
  /** Nothing was requested (no slot in time, the run's breaker is open): no attempt is counted. */
  | { kind: 'deferred'; code: string; retryAtMs?: number };

/** How DOC-4 / DOC-5 treat a failed fetch. */
export type FailureClass =
  | 'ladder'
  | 'weekly'
  | 'gone'
  | 'blocked-robots'
  | 'blocked-html'
  | 'too-large'
  | 'deferred';

/** Attributes to set and to remove on one document; applied conditionally (see store.ts). */
export interface DocumentChange {
  set: Partial<DocumentItem>;
  remove: (keyof DocumentItem)[];
  /** Outcome name for the run's counts (`stored`, `retrying`, `gone-provisional` …). */
  outcome: string;
}

/** Per-source gate of one run: what the functions may do for it (DOC-1, DOC-7, ERR-6, PHO-3, DEL-5). */
export interface SourceGate {
  /** DOC-3: the cache fetches this source's files now. */
  cache: boolean;
  /** DOC-1 / DOC-5: file fetching off or source inactive → the cache marks due documents `disabled`. */
  disable: boolean;
  /** DOC-2: text from our stored copy (file fetching on). */
  textFromCopy: boolean;
  /** DOC-2 / ONB-4: text of documents we do not keep, downloaded from the source (active, file fetching on). */
  textFromSource: boolean;
  /** DEL-5: the deletion check works on this source (file fetching on, not resting). */
  deletion: boolean;
  /** PHO-3: photos are fetched for this source (active, file fetching on, not spared). */
  photos: boolean;
  reason: string;
  ruleIds: string[];
}

/** Counts by outcome of one pass, printed by the CLI (`--json`) and logged by the functions. */
export type OutcomeCounts = Record<string, number>;
