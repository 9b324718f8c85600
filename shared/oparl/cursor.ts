import type { ListName, ListReport, ListState, SyncFailure, SyncReport } from '../engine';
import type { SyncKind } from '../schedule';

export type { ListReport };

/**
 * The run cursor (State item `CURSOR#<kind>`), written after every page. It holds everything needed to
 * continue exactly where the last page ended — in a continuation invocation of the same run (same
 * `runId`: same page URL) or, for full and sliced passes, in the next run (list or slice granularity,
 * FULL-4 / FULL-6).
 */
export type ListMode = 'filtered' | 'unfiltered' | 'full' | 'catchup' | 'slices';

export interface ListTask {
  bodyKey: string;
  list: ListName;
  /** The list URL as the Body names it (no filter). */
  listUrl: string;
  mode: ListMode;
  /** The filter in force for the current step (epoch ms). */
  sinceMs?: number;
  untilMs?: number;
  /** Catch-up chunks (SCH-12); slices are recomputed from the run start (FULL-5). */
  chunks?: { sinceMs: number; untilMs: number }[];
  /** Index of the current chunk or slice. */
  step: number;
  /** Number of slices in this run (sliced mode). */
  stepsTotal?: number;
  /** The next page to fetch; null when the current step has no more pages. */
  nextUrl: string | null;
  pages: number;
  /** SCH-10: pages in a row without any change (unfiltered mode stops at 5). */
  unchangedPages: number;
  /** Short hashes of page URLs fetched in this step (links.next cycle guard). */
  visited: string[];
  /** Objects changed by this list in this run. */
  changed: number;
  /** The filter was rejected and we already fell back to reading unfiltered (SCH-10). */
  filterRetried?: boolean;
  filterBefore?: ListState['filter'];
  /** The list's marks as they evolve during the run; persisted when the list ends. */
  marks: ListState;
  /** Window start asked (for SCH-12 catch-up when the list turns out slow). */
  windowSinceMs?: number;
  outcome?: ListReport['outcome'];
  note?: string;
}

export interface SyncCursor {
  sourceId: string;
  runId: string;
  kind: SyncKind;
  /** Optimistic lock: +1 per write. */
  seq: number;
  /** running: the run (or, for full/sliced, the pass) is open; done: finished, `report` holds the result. */
  status: 'running' | 'done';
  /** Start of this run (ISO): windows and slices are computed from it, so a resumed run asks the same. */
  startedAt: string;
  /** Start of the full/sliced pass this run continues (ISO); equals startedAt for incremental runs. */
  passStartedAt: string;
  phase: 'system' | 'bodies' | 'lists' | 'filter-check' | 'finish';
  bodyList?: {
    url: string | null;
    pages: number;
    visited: string[];
    bodyKeys: string[];
    failed?: boolean;
    /** Digest of the last page's object ids: a page that repeats it ends the walk (SCH-8). */
    lastPageIds?: string;
  };
  bodyKeys: string[];
  bodyIndex: number;
  listIndex: number;
  task?: ListTask;
  /** `<bodyKey>#<list>` read to the end in this pass (full/sliced resume at list granularity). */
  doneLists: string[];
  /** Sliced: `<bodyKey>#<list>` → number of complete slices (FULL-6 resumes at the last complete one). */
  sliceProgress: Record<string, number>;
  totals: { requests: number; new: number; modified: number; deleted: number; documents: number };
  failures: SyncFailure[];
  /**
   * Per-list reports of this run so far. Not in this object: they ride in the cursor's item while it
   * stays within one write unit, else in their own State items (`RUNLIST#<kind>#<n>`; issue 28,
   * shared/oparl/state.ts).
   */
  listCount: number;
  flags: {
    /** ERR-3: server errors in a row in this run. */
    serverErrorsInRow: number;
    /** ROB-8: requests refused by robots.txt / answered by the server. */
    disallowed: number;
    answered: number;
    filterNotHonoured?: boolean;
  };
  filterCheck?: { attempts: number; notBeforeMs?: number };
  /**
   * SCH-9, issue 28: bodies whose last complete incremental sync started at `at` but whose `BODY#` item
   * still holds an older start (it is rewritten once a day, `bodyCompleteDue`). Carried from run to run
   * in the incremental cursor, which every run writes anyway; the window starts at the later of the two.
   */
  bodiesComplete?: { at: string; bodyKeys: string[] };
  stopReason?: SyncReport['stopReason'];
  report?: SyncReport;
  updatedAt: string;
}

export function newCursor(sourceId: string, runId: string, kind: SyncKind, nowIso: string): SyncCursor {
  return {
    sourceId,
    runId,
    kind,
    seq: 0,
    status: 'running',
    startedAt: nowIso,
    passStartedAt: nowIso,
    phase: 'system',
    bodyKeys: [],
    bodyIndex: 0,
    listIndex: 0,
    doneLists: [],
    sliceProgress: {},
    totals: { requests: 0, new: 0, modified: 0, deleted: 0, documents: 0 },
    failures: [],
    listCount: 0,
    flags: { serverErrorsInRow: 0, disallowed: 0, answered: 0 },
    updatedAt: nowIso,
  };
}

/** A new run of `kind` after `previous`: the SCH-9 starts the previous run carried go on with it. */
export function nextCursor(
  previous: SyncCursor | undefined,
  ids: { sourceId: string; runId: string; kind: SyncKind },
  nowIso: string,
): SyncCursor {
  const cursor = newCursor(ids.sourceId, ids.runId, ids.kind, nowIso);
  if (previous?.bodiesComplete) cursor.bodiesComplete = previous.bodiesComplete;
  return cursor;
}

/**
 * SCH-9: when a body's last complete sync started — the later of its `BODY#` item and the start the
 * cursor carries for it (epoch ms; undefined when neither knows one).
 */
export function bodyCompleteStartMs(
  body: { bodyKey: string; lastCompleteSyncStart?: string },
  carried: SyncCursor['bodiesComplete'],
): number | undefined {
  const starts = [
    body.lastCompleteSyncStart,
    carried?.bodyKeys.includes(body.bodyKey) ? carried.at : undefined,
  ]
    .filter((s): s is string => s !== undefined)
    .map((s) => Date.parse(s));
  return starts.length > 0 ? Math.max(...starts) : undefined;
}

/**
 * A new run continuing an open full/sliced pass (FULL-4: open lists continue next time; FULL-6: resume
 * at the last complete slice). Page positions are dropped — a page URL from last night may be stale —
 * but finished lists and slice progress are kept.
 */
export function continuePass(previous: SyncCursor, runId: string, nowIso: string): SyncCursor {
  return {
    ...newCursor(previous.sourceId, runId, previous.kind, nowIso),
    seq: previous.seq,
    passStartedAt: previous.passStartedAt,
    doneLists: previous.doneLists,
    sliceProgress: previous.sliceProgress,
  };
}
