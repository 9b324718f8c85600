import { DateTime } from 'luxon';
import type { IngestorEnv } from '../config';
import type { EngineReport } from '../sync';
import { ZONE } from './constants';
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
}

export function syncTablesFromEnv(e: IngestorEnv): SyncTables {
  return { state: e.STATE_TABLE, documents: e.DOCUMENTS_TABLE, bucket: e.BUCKET };
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
 * new run (FULL-2/FULL-4), or start `new`.
 */
export type RunStart<C> =
  | { start: 'replay'; cursor: C }
  | { start: 'resume'; cursor: C }
  | { start: 'continue'; cursor: C }
  | { start: 'new'; cursor?: C };

export function runStart<C extends RunCursor>(
  existing: C | undefined,
  runId: string,
  passContinues: boolean,
): RunStart<C> {
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
  /** The kind's State store: writes its cursor item with the optimistic lock. */
  store: { putCursor(cursor: C, previousSeq: number | undefined): Promise<void> };
  nowMs(): number;
  log(event: string, fields?: Record<string, unknown>): void;
}

/** The run frame of one invocation: its cursor, checkpoints, budget and failures. */
export class RunFrame<C extends RunCursor> {
  cursor!: C;
  private prevSeq: number | undefined;

  constructor(
    private readonly deps: RunFrameDeps<C>,
    private readonly budget: RunBudget,
  ) {}

  /** Adopts the cursor to run with; `stored` is the cursor item as read (its `seq` is the lock). */
  begin(cursor: C, stored: StoredCursor | undefined): void {
    this.cursor = cursor;
    this.prevSeq = stored?.seq;
    if (stored) this.cursor.seq = stored.seq;
    delete this.cursor.stopReason;
  }

  /** Writes the cursor if nobody advanced it since we read it (optimistic lock on `seq`). */
  async checkpoint(): Promise<void> {
    const previous = this.prevSeq;
    this.cursor.seq = (previous ?? this.cursor.seq) + 1;
    this.cursor.updatedAt = new Date(this.deps.nowMs()).toISOString();
    await this.deps.store.putCursor(this.cursor, previous);
    this.prevSeq = this.cursor.seq;
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
    await this.checkpoint();
    this.deps.log('stopped', { reason, requests: result.requests });
    return result;
  }

  /** Marks the run done with what the cursor keeps of its report (a redelivery answers with it). */
  done(report: unknown): void {
    this.cursor.status = 'done';
    this.cursor.report = report;
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
