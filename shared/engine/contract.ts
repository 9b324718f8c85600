import type { SourceConfig } from '../config';
import type { FailureKind, SyncKind } from '../schedule';

/**
 * The contract between the sync function (shared/sync: claim, budget, outcome, lease) and an engine
 * (OParl, scraper): what an engine is given and what it reports. It lives here, below both kinds and
 * the sync function, so the kinds implement it and the sync function calls it without either
 * importing the other's folder.
 */

/** What an engine reads of the sync queue's message (shared/sync `SyncMessage` is one). */
export interface EngineMessage {
  runId: string;
  kind: SyncKind;
  /** FULL-4/FULL-6: no further page after this instant (own window end). */
  deadline?: string | undefined;
}

/** What the planner learns from one engine invocation (cadence SCH-3, pauses ERR-4/ERR-5). */
export interface EngineReport {
  kind: SyncKind;
  requests: number;
  changed: boolean;
  complete: boolean;
  /** The engine stopped for the time budget with its cursor saved: continue in a new invocation. */
  continued: boolean;
  objects: { new: number; modified: number; deleted: number };
  failures: FailureKind[];
  failureDetails?: string[];
  sessionDays?: string[];
  filterNotHonoured?: boolean;
}

/**
 * The engine's time: `deadlineMs` — no request starts later; `requestsEndMs` — every request has
 * ended by then, the one in flight included (its socket is closed), so the run always reaches its
 * checkpoint before the invocation ends (issue 13).
 */
export interface EngineBudget {
  deadlineMs: number;
  requestsEndMs?: number;
  runStartedAt: Date;
  /** Aborted when the operator interrupts (Ctrl-C): the engine stops at its next checkpoint. */
  signal?: AbortSignal;
}

/** One engine invocation for one message of a source's run. */
export type SyncEngine = (
  source: SourceConfig,
  message: EngineMessage,
  budget: EngineBudget,
) => Promise<EngineReport>;
