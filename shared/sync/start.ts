import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import { paceOf } from '../pace';
import { decisionRecord, markSyncStarted, type SourceDecision, type SourceScheduleState } from '../schedule';
import { acquireSyncLease, type StoreTables } from '../store';
import type { SyncLane, SyncMessage } from './message';

/**
 * Starting a run, the one way both the planner and a host lane (shared/sync/lane.ts) do it: take the
 * source's lease (SCH-5) and record the start in the same conditional write — schedule state with the
 * FULL-2 window, decision; the due time stays (issue 28). The run's first message is returned; the
 * caller sends it (the planner, in a batch) or runs it in place (a lane). `undefined`: another run holds the lease — or, with
 * `dueBy`, the source is no longer due as planned — and nothing was written.
 */
export interface RunStartDeps {
  doc: DynamoDBDocumentClient;
  tables: Pick<StoreTables, 'state'>;
  /** How long a sync lease lasts before another run may take over (an instance may die). */
  leaseMinutes: number;
}

export interface RunStart {
  source: SourceConfig;
  decision: Pick<SourceDecision, 'kind' | 'trigger' | 'reason' | 'ruleIds' | 'deadline' | 'windowId'>;
  /** The schedule state as the pure core sees it (no lease in force). */
  state: SourceScheduleState;
  now: Date;
  runId: string;
  /**
   * Only while the source's stored due time is no later than this: a lane entry's plan, or the due time
   * the planner's tick read (a lane may have run the source since; a finished run moves it to its end).
   */
  dueBy?: Date;
  /** The lane the run carries on (its host's runs still waiting). */
  lane?: SyncLane;
}

export async function startRun(deps: RunStartDeps, start: RunStart): Promise<SyncMessage | undefined> {
  const { source, decision, state, now, runId } = start;
  const kind = decision.kind ?? 'incremental';
  const trigger = decision.trigger ?? 'schedule';
  const until = new Date(now.getTime() + deps.leaseMinutes * 60_000);
  // FULL-2: the window is recorded at the start, so a run that dies is not retried in the same window.
  const schedule = markSyncStarted(state, decision, now.toISOString(), deps.leaseMinutes);
  const taken = await acquireSyncLease(deps.doc, deps.tables.state, source.sourceId, {
    runId,
    kind,
    until,
    now,
    ...(start.dueBy ? { dueBy: start.dueBy } : {}),
    extra: {
      schedule,
      // No due time (issue 28): the item stays due while leased, so the planner counts the run and
      // decides the source again once the lease has expired, should the run die (SCH-5).
      // RATE-2: the pace this run fetches with (also recorded by a cold planner that sees no change).
      lastValidPace: paceOf(source),
      lastDecision: decisionRecord({ ...decision, action: 'sync', kind }, now.toISOString()),
    },
  });
  if (!taken) return undefined;
  return {
    sourceId: source.sourceId,
    runId,
    kind,
    trigger,
    continuation: 0,
    startedAt: now.toISOString(),
    host: source.host,
    ...(decision.deadline ? { deadline: decision.deadline } : {}),
    ...(decision.windowId ? { windowId: decision.windowId } : {}),
    // A re-planning lane (issue 27: a pool) goes on even with no entry left.
    ...(start.lane && (start.lane.entries.length > 0 || start.lane.pool !== undefined)
      ? { lane: start.lane }
      : {}),
  };
}

/** A stored schedule state with no lease in force, as `startRun` wants it (a lane entry's source). */
export function idleScheduleState(schedule: SourceScheduleState): SourceScheduleState {
  const { running: _ended, ...rest } = schedule;
  return rest;
}
