import type { SourceConfig } from '../config';
import {
  decideSource,
  type ManualRequest,
  type ScheduleSettings,
  type SourceDecision,
  type SourceScheduleState,
} from '../schedule';
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
  return { state, decision: decideSource(ask.source, state, ask.now.toISOString(), ask.settings) };
}
