import type { SourceConfig } from '../config';
import {
  type EngineReport,
  engineReportOf,
  type SyncFailure,
  type SyncTables,
  type TakedownGuardFactory,
} from '../engine';
import type { PoliteFetcher } from '../fetch';
import type { AwsClients } from '../store';
import { type ScrapePolicy, scrapeMonths } from './constants';
import type { ScrapeCursor } from './state';

/**
 * What a scrape run is given and what it answers: its dependencies and options, the cursor it starts
 * with, and its report. The decisions here are pure (state + now → cursor or report).
 */

export interface ScraperEngineDeps {
  fetcher: PoliteFetcher;
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  now?: () => Date;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** OPT-5: the source's takedown guard for this run (shared/takedown `takedownGuards`). */
  takedowns: TakedownGuardFactory;
  /** RATE-2: the largest interval of any source on the source's host, ms. */
  hostIntervalMs?: (sourceId: string) => number | undefined;
  policy?: Partial<ScrapePolicy>;
  /**
   * Issue 28: write the run cursor at the end of an unchanged incremental scrape too, as before the
   * `unchangedScrapeCursor` lever (the cost bench measures both; production leaves it unset).
   */
  writeUnchangedCursor?: boolean;
}

export interface ScrapeRunOptions {
  kind: 'incremental' | 'full' | 'sliced';
  runId: string;
  /** Epoch ms after which no new request starts; the report then says `continued`. */
  deadlineMs?: number;
  /** Epoch ms by which every request has ended, the one in flight included (EngineBudget.requestsEndMs). */
  requestsEndMs?: number;
  startedAt?: Date;
  /**
   * The operator's stop (Ctrl-C in the CLI): checked with the budget before every request; the run
   * then ends at that checkpoint as it would at the end of its window — cursor saved, nothing continued.
   */
  signal?: AbortSignal;
}

export interface ScrapeReport {
  sourceId: string;
  runId: string;
  kind: 'incremental' | 'full';
  requests: number;
  pages: number;
  changed: boolean;
  complete: boolean;
  continued: boolean;
  stopReason: 'end' | 'deadline' | 'interrupted' | 'failure';
  objects: { new: number; modified: number; deleted: number };
  documents: number;
  notPublic: number;
  months: string[];
  failures: SyncFailure[];
  sessionDays: string[];
  startedAt: string;
  finishedAt: string;
}

/** Who runs: the source, this run's id and kind (a scraper has no slices: `sliced` runs as `full`). */
export interface ScrapeRunIdentity {
  sourceId: SourceConfig['sourceId'];
  runId: string;
  kind: 'incremental' | 'full';
}

/** A new run's cursor: the months of its kind at its start (`constants.ts`), nothing done yet. */
export function newScrapeCursor(
  run: ScrapeRunIdentity,
  startIso: string,
  policy: ScrapePolicy,
): ScrapeCursor {
  return {
    sourceId: run.sourceId,
    runId: run.runId,
    kind: run.kind,
    status: 'running',
    seq: 0,
    startedAt: startIso,
    phase: 'months',
    months: scrapeMonths(run.kind, Date.parse(startIso), policy),
    monthIndex: 0,
    tasks: [],
    vanished: {},
    appeared: [],
    organizationsAsked: [],
    totals: { requests: 0, pages: 0, new: 0, modified: 0, deleted: 0, documents: 0, notPublic: 0 },
    flags: { answered: 0, disallowed: 0 },
    failures: [],
  };
}

/**
 * FULL-2: a new run continuing an unfinished full pass — the open pass's months, position, tasks and
 * vanished/appeared meetings; its own counts, failures and phase.
 */
export function continuedScrapeCursor(
  run: ScrapeRunIdentity,
  startIso: string,
  policy: ScrapePolicy,
  open: ScrapeCursor,
): ScrapeCursor {
  const cursor = {
    ...newScrapeCursor(run, startIso, policy),
    months: open.months,
    monthIndex: open.monthIndex,
  };
  cursor.tasks = open.tasks;
  cursor.vanished = open.vanished;
  cursor.appeared = open.appeared;
  return cursor;
}

/** The report of a run from its cursor; `sessionDays` (SCH-2) are read from the State table by the caller. */
export function scrapeReportOf(
  cursor: ScrapeCursor,
  run: ScrapeRunIdentity,
  end: { continued: boolean; complete: boolean; sessionDays: string[]; finishedAt: string },
): ScrapeReport {
  const t = cursor.totals;
  return {
    sourceId: run.sourceId,
    runId: run.runId,
    kind: run.kind,
    requests: t.requests,
    pages: t.pages,
    changed: t.new + t.modified + t.deleted > 0,
    complete: end.complete,
    continued: end.continued,
    stopReason: cursor.stopReason ?? 'end',
    objects: { new: t.new, modified: t.modified, deleted: t.deleted },
    documents: t.documents,
    notPublic: t.notPublic,
    months: cursor.months,
    failures: cursor.failures,
    sessionDays: end.sessionDays,
    startedAt: cursor.startedAt,
    finishedAt: end.finishedAt,
  };
}

/** The planner's view of a scrape report (the same as `engineReportOf` for OParl). */
export function engineReportOfScrape(
  report: ScrapeReport,
  kind: EngineReport['kind'] = report.kind,
): EngineReport {
  return engineReportOf({ ...report, kind });
}
