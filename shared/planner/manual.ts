import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import {
  decideSource,
  type ManualRequest,
  type ScheduleSettings,
  type SourceDecision,
  type SourceScheduleState,
} from '../schedule';
import { getSourceState } from '../store';
import { type RunStartDeps, type SyncMessage, startRun } from '../sync';
import { type StoredState, scheduleStateOf } from './tick';

/**
 * A manual request (SCH-7, FULL-8) as the planner decides it: the stored schedule state with the lease in
 * force (`scheduleStateOf`), the request set in it, and the one pure decision (`decideSource`). The tick
 * reaches the same decision from the stored flag; `ingestor request` says it ahead, and `ingestor sync`
 * runs it in place (then starts it through `startRun`, the planner's start), so a manual sync is decided
 * and started the one way whoever asks.
 */
export interface ManualSyncAsk {
  source: SourceConfig;
  /** The source's stored State item (undefined: never planned). */
  stored: StoredState | undefined;
  request: ManualRequest;
  now: Date;
  settings: ScheduleSettings;
}

export interface ManualSyncDecision {
  /** The schedule state the decision was made on (no lease in force: the one to start a run from). */
  state: SourceScheduleState;
  decision: SourceDecision;
}

export function decideManualSync(ask: ManualSyncAsk): ManualSyncDecision {
  const state: SourceScheduleState = { ...scheduleStateOf(ask.stored, ask.now), manualRequest: ask.request };
  return {
    state,
    decision: decideSource(ask.source, state, ask.now.toISOString(), { settings: ask.settings }),
  };
}

/** What reading and deciding a manual request needs: the State table and the schedule's settings. */
export interface ManualSyncDeps {
  doc: DynamoDBDocumentClient;
  tables: { state: string };
  settings: ScheduleSettings;
}

/** A manual request of one source, asked at `now` (the stored item is read here). */
export type ManualSyncQuestion = Omit<ManualSyncAsk, 'stored' | 'settings'>;

/** The planner's decision of a manual request on the source's stored State item as it is now. */
export async function decideStoredManualSync(
  deps: ManualSyncDeps,
  question: ManualSyncQuestion,
): Promise<ManualSyncDecision> {
  const stored = await getSourceState<SourceScheduleState>(
    deps.doc,
    deps.tables.state,
    question.source.sourceId,
  );
  return decideManualSync({ ...question, stored, settings: deps.settings });
}

export interface ManualSyncStart extends ManualSyncDecision {
  /** The run's first message, its lease taken (SCH-5); undefined when not started (see `decision`). */
  message?: SyncMessage;
}

/**
 * A manual sync started now, the planner's way: the stored state read, the request decided
 * (`decideManualSync`: SCH-7 sparing wins, FULL-8 window and minimum distance) and, when it says sync,
 * the run started through `startRun` — lease and start record in one conditional write (SCH-5,
 * FULL-2). No message: the decision said wait or skip, or another run holds the lease.
 */
export async function startManualSync(
  deps: ManualSyncDeps & Pick<RunStartDeps, 'leaseMinutes'>,
  question: ManualSyncQuestion,
): Promise<ManualSyncStart> {
  const decided = await decideStoredManualSync(deps, question);
  const { decision, state } = decided;
  if (decision.action !== 'sync' || decision.kind === undefined) return decided;
  const { source, now } = question;
  const message = await startRun(deps, { source, decision, state, now, runId: randomUUID() });
  return message === undefined ? decided : { ...decided, message };
}
