import { DateTime } from 'luxon';
import type { IngestorEnv } from '../config';
import { type MirrorTablePlacement, mirrorTablePlacement } from '../store';
import { ZONE } from './constants';
import type { EngineReport } from './contract';
import { robotsForbadeAll } from './failure';
import type { StoredCursor } from './state';
import type { SyncFailure, SyncReport } from './types';

/**
 * The checkpointed run every source kind executes: one source, one run, any number of invocations. A
 * kind keeps its own cursor (what to ask next); this frame owns what is the same for all — which cursor
 * an invocation starts from (resume / continue the pass / new), the checkpoint with its optimistic lock,
 * the time budget checked before every request, the bounded failure list, ROB-8 at the end, and the
 * parts of the report every kind gives the planner.
 */

/** Tables a run writes: State (cursor, bodies), Documents (DOC-7), the mirror bucket. */
export interface SyncTables {
  state: string;
  documents: string;
  bucket: string;
  /** Issue 28: where the mirror's object items are; absent = State. */
  mirror?: MirrorTablePlacement;
}

export function syncTablesFromEnv(e: IngestorEnv): SyncTables {
  return {
    state: e.STATE_TABLE,
    documents: e.DOCUMENTS_TABLE,
    bucket: e.BUCKET,
    mirror: mirrorTablePlacement(e),
  };
}

export type StopReason = 'deadline' | 'window' | 'interrupted' | 'failure' | 'filter-not-honoured';

/** Thrown inside a run to end this invocation at the last checkpoint. */
export class StopRun extends Error {
  constructor(readonly reason: StopReason) {
    super(`stop: ${reason}`);
  }
}

/** Bounded: a source failing on every list of 50 bodies must not outgrow the cursor item. */
export const MAX_FAILURES_KEPT = 100;

/** What the frame needs of a kind's cursor. */
export interface RunCursor extends StoredCursor {
  runId: string;
  status: 'running' | 'done';
  failures: SyncFailure[];
  /** ROB-8: requests refused by robots.txt / answered by the server. */
  flags: { disallowed: number; answered: number };
  stopReason?: SyncReport['stopReason'];
  /** Set when the run is done: what a redelivered message is answered with. */
  report?: unknown;
  updatedAt?: string;
}

/**
 * Which cursor an invocation starts from: `replay` a finished run (a redelivered message: answer again,
 * fetch nothing), `resume` this run where its last checkpoint left it, `continue` an open full pass in a
 * new run (FULL-2/FULL-4), or start `new`. (Starting a run — lease and schedule state — is the sync's
 * `RunStart`.)
 */
export type CursorStart<C> =
  | { start: 'replay'; cursor: C }
  | { start: 'resume'; cursor: C }
  | { start: 'continue'; cursor: C }
  | { start: 'new'; cursor?: C };

export function runStart<C extends RunCursor>(
  existing: C | undefined,
  runId: string,
  passContinues: boolean,
): CursorStart<C> {
  if (existing && existing.runId === runId) {
    const finished = existing.status === 'done' && existing.report !== undefined;
    return { start: finished ? 'replay' : 'resume', cursor: existing };
  }
  if (existing && existing.status === 'running' && passContinues)
    return { start: 'continue', cursor: existing };
  return existing ? { start: 'new', cursor: existing } : { start: 'new' };
}

export interface RunBudget {
  /** Epoch ms after which no new request starts (the invocation's time budget). */
  deadlineMs?: number;
  /** FULL-4 / FULL-6: end of the source's own window; only passes that may stay open obey it. */
  windowEndMs?: number;
  /** The operator's stop (Ctrl-C in the CLI). */
  signal?: AbortSignal;
}

export interface RunFrameDeps<C extends RunCursor> {
  /**
   * The kind's State store: writes its cursor item with the optimistic lock. `commits` counts the
   * store's writes whose meaning lives in the cursor (a scraped month's rows, a page's state): after
   * one, the cursor is saved at the next checkpoint.
   */
  store: { putCursor(cursor: C, previousSeq: number | undefined): Promise<void>; readonly commits?: number };
  nowMs(): number;
  log(event: string, fields?: Record<string, unknown>): void;
}

/**
 * A checkpoint is saved at once when the run committed something since the last one; else at most this
 * many requests go unsaved. A crash then asks those pages again — their answers changed nothing, so
 * asking again writes nothing — instead of every page costing a cursor write (issue 18: ~35 write
 * units of an unchanged incremental sync were checkpoints). The server sees at most this many repeated
 * requests per crash, at the same pace.
 */
export const CHECKPOINT_MAX_UNSAVED_REQUESTS = 20;

/** What the frame reads of a kind's cursor to tell progress from commits. */
type Totals = { totals?: Record<string, number> };

/** Fetch counters of `totals`: progress, not commits. */
const FETCH_COUNTERS = new Set(['requests', 'pages']);

/** The run frame of one invocation: its cursor, checkpoints, budget and failures. */
export class RunFrame<C extends RunCursor> {
  cursor!: C;
  private prevSeq: number | undefined;
  /** What the last saved (or adopted) cursor had committed, and its request count. */
  private saved = { commits: '', requests: 0 };
  /** Set by `done`: the report must reach the cursor item even when nothing else changed. */
  private doneUnsaved = false;
  /** This invocation resumes a run an earlier one died in: every checkpoint is saved. */
  private afterCrash = false;
  /**
   * What the store held of this run when the invocation began: nothing (the cursor item is another
   * run's, or none) and the fingerprint of a run that has committed nothing — until a save.
   */
  private untouched: { commits: string } | undefined;

  constructor(
    private readonly deps: RunFrameDeps<C>,
    private readonly budget: RunBudget,
  ) {}

  /** Adopts the cursor to run with; `stored` is the cursor item as read (its `seq` is the lock). */
  begin(cursor: C, stored: StoredCursor | undefined): void {
    const previous = stored as (StoredCursor & Partial<RunCursor>) | undefined;
    // The same run, not stopped cleanly (no stop reason saved): an earlier invocation died in it. This
    // one saves every checkpoint, so runs that keep dying still progress page by page.
    this.afterCrash =
      previous?.runId === cursor.runId && previous.status === 'running' && previous.stopReason === undefined;
    this.cursor = cursor;
    this.prevSeq = stored?.seq;
    if (stored) this.cursor.seq = stored.seq;
    delete this.cursor.stopReason;
    this.saved = { commits: this.committed(), requests: this.requests() };
    this.untouched = previous?.runId === cursor.runId ? undefined : { commits: this.committed() };
  }

  /**
   * Issue 28 (`unchangedScrapeCursor`): whether the run, now done, left nothing in the store that its
   * cursor would have to account for — it started here (the stored cursor is another run's), no
   * checkpoint was saved, and it committed nothing (no object, state write or failure). Its done cursor
   * would only answer a redelivery whose release was lost (`replay`); a kind may then leave it unwritten,
   * and that redelivery runs again as a new run. Anything else must reach the store (`checkpoint`). Only
   * for a kind whose next run reads nothing of the stored cursor but its `seq` (not a pass that stays
   * open, FULL-2: the stored cursor would be continued again).
   */
  endsAsItBegan(): boolean {
    return this.untouched !== undefined && this.committed('running') === this.untouched.commits;
  }

  /**
   * Saves the cursor when it is due: the run committed something since the last save (an object
   * written, a failure noted, a store write the cursor's tasks depend on, the run done), or
   * CHECKPOINT_MAX_UNSAVED_REQUESTS requests went unsaved, or this invocation resumes a run that died.
   * Progress alone (pages that changed nothing) stays in memory until then; `stop` and the end of a run
   * always save.
   */
  async checkpoint(): Promise<void> {
    const due =
      this.afterCrash ||
      this.doneUnsaved ||
      this.committed() !== this.saved.commits ||
      this.requests() - this.saved.requests >= CHECKPOINT_MAX_UNSAVED_REQUESTS;
    if (due) await this.save();
  }

  /** Writes the cursor now if nobody advanced it since we read it (optimistic lock on `seq`). */
  async save(): Promise<void> {
    const previous = this.prevSeq;
    this.cursor.seq = (previous ?? this.cursor.seq) + 1;
    this.cursor.updatedAt = new Date(this.deps.nowMs()).toISOString();
    await this.deps.store.putCursor(this.cursor, previous);
    this.prevSeq = this.cursor.seq;
    this.saved = { commits: this.committed(), requests: this.requests() };
    this.doneUnsaved = false;
    this.untouched = undefined;
  }

  /** Requests the run made so far (the kind's `totals.requests`). */
  private requests(): number {
    return (this.cursor as Totals).totals?.requests ?? 0;
  }

  /** A fingerprint of what the run committed: every total but the fetch counters, failures, status. */
  private committed(status: RunCursor['status'] = this.cursor.status): string {
    const totals = Object.entries((this.cursor as Totals).totals ?? {})
      .filter(([name]) => !FETCH_COUNTERS.has(name))
      .map(([name, n]) => `${name}=${n}`);
    return [...totals, this.cursor.failures.length, status, this.deps.store.commits ?? 0].join(' ');
  }

  /** Before every request: the invocation budget, the operator's stop and the own window (FULL-4). */
  checkStop(): void {
    const now = this.deps.nowMs();
    if (this.budget.deadlineMs !== undefined && now >= this.budget.deadlineMs) throw new StopRun('deadline');
    if (this.budget.signal?.aborted) throw new StopRun('interrupted');
    if (this.budget.windowEndMs !== undefined && now >= this.budget.windowEndMs) throw new StopRun('window');
  }

  failure(f: SyncFailure): void {
    this.deps.log('failure', { ...f });
    if (this.cursor.failures.length < MAX_FAILURES_KEPT) this.cursor.failures.push(f);
  }

  /** ROB-8, once at the end of a run that was not cut by its budget. */
  robotsForbidsAll(): void {
    const failure = robotsForbadeAll(this.cursor);
    if (failure) this.failure(failure);
  }

  /**
   * Ends the invocation for `reason`: a run cut by its budget is `continued`; an incremental run that
   * stopped for good is over, a full pass stays open for the next run (FULL-2/FULL-4). `report` builds
   * the kind's report from `continued`; `stored` is what the cursor keeps of it.
   */
  async stop<R extends { requests: number }>(
    reason: StopReason,
    incremental: boolean,
    report: (continued: boolean) => Promise<R>,
    stored: (report: R) => unknown,
  ): Promise<R> {
    this.cursor.stopReason = reason;
    if (reason !== 'deadline') this.robotsForbidsAll();
    const continued = reason === 'deadline';
    const result = await report(continued);
    if (!continued && incremental) this.done(stored(result));
    await this.save();
    this.deps.log('stopped', { reason, requests: result.requests });
    return result;
  }

  /** Marks the run done with what the cursor keeps of its report (a redelivery answers with it). */
  done(report: unknown): void {
    this.cursor.status = 'done';
    this.cursor.report = report;
    this.doneUnsaved = true;
  }
}

/** Berlin local date `YYYY-MM-DD` of an instant. */
export function berlinDate(ms: number): string {
  return DateTime.fromMillis(ms, { zone: ZONE }).toISODate() ?? '';
}

/** The run context's end (RunContext.endsAtMs) from the invocation's budget, when it sets one. */
export function runEndOf(budget: { requestsEndMs?: number }): { endsAtMs?: number } {
  return budget.requestsEndMs === undefined ? {} : { endsAtMs: budget.requestsEndMs };
}

/** The parts of an OParl or scrape report the planner reads. */
export type PlannerReportParts = Pick<
  SyncReport,
  'kind' | 'requests' | 'changed' | 'complete' | 'continued' | 'objects' | 'failures' | 'sessionDays'
> & { filterNotHonoured?: boolean };

/** The planner's view of a report: failure kinds (ERR-5) with their details. */
export function engineReportOf(report: PlannerReportParts): EngineReport {
  return {
    kind: report.kind,
    requests: report.requests,
    changed: report.changed,
    complete: report.complete,
    continued: report.continued,
    objects: report.objects,
    failures: [...new Set(report.failures.map((f) => f.kind))],
    ...(report.failures.length > 0
      ? { failureDetails: report.failures.map((f) => `${f.kind}${f.list ? ` ${f.list}` : ''}: ${f.detail}`) }
      : {}),
    sessionDays: report.sessionDays,
    ...(report.filterNotHonoured ? { filterNotHonoured: true } : {}),
  };
}
