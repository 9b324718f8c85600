import { isIngestorError } from '../errors';
import { laneAfterRun } from '../hosts';
import { logger, METRICS, type MetricsBuffer, metrics as processMetrics } from '../observability';
import { storeOutageOf, storeRefusalOf } from '../store';
import { type LanePosition, type LaneStep, runLane } from './lane';
import { parseSyncMessage, type SyncMessage } from './message';
import { runSyncMessage, type SyncRunDeps, type SyncRunResult } from './run';

/**
 * The sync function's work on one message: parse, run (and its host lane), log. The worker
 * (shared/sync/worker.ts) keeps several of these in flight. A message that could not finish because our
 * own store failed (issue 13) throws — SQS redelivers it after the visibility timeout — and is counted as
 * ours (`StoreOutages`), never as a failure of the source. Everything else the source did is an outcome,
 * not an error.
 */

/** Time kept back from the invocation's budget for the last page, the checkpoint and the hand-over. */
export const BUDGET_RESERVE_MS = 60_000;

export interface SyncLog {
  info(message: string, fields: Record<string, unknown>): void;
  warn(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

export interface SyncBatchDeps {
  runDeps: SyncRunDeps;
  log?: SyncLog;
  metrics?: MetricsBuffer;
}

export const defaultSyncLog: SyncLog = {
  info: (message, fields) => logger.info(message, fields),
  warn: (message, fields) => logger.warn(message, fields),
  error: (message, fields) => logger.error(message, fields),
};

/** The message's run, and the runs its host lane started after it in the same invocation. */
export type SyncBodyResult = SyncRunResult & { laneRuns?: SyncRunResult[] };

export async function processSyncBody(
  deps: SyncBatchDeps,
  body: string,
  remainingMs: number,
  /** The local runner's Ctrl-C (`npm start`): the run ends at its next checkpoint. */
  signal?: AbortSignal,
): Promise<SyncBodyResult> {
  const log = deps.log ?? defaultSyncLog;
  let message: ReturnType<typeof parseSyncMessage>;
  try {
    message = parseSyncMessage(body);
  } catch (err) {
    // A malformed message can never succeed: log it and drop it instead of cycling it to the DLQ.
    log.error('dropping malformed sync message', { code: isIngestorError(err) ? err.code : 'UNKNOWN' });
    return {
      status: 'dropped',
      sourceId: '(unknown)',
      reason: err instanceof Error ? err.message : String(err),
    };
  }
  const startMs = Date.now();
  let result: SyncRunResult;
  try {
    result = await runSyncMessage(deps.runDeps, message, {
      deadlineMs: startMs + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
      endsAtMs: startMs + remainingMs,
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    const outage = storeOutageOf(err);
    if (outage !== undefined) {
      const buffer = deps.metrics ?? processMetrics;
      buffer.count(METRICS.storeOutages);
      buffer.flush();
      log.error('store unavailable, sync message given back for redelivery', {
        code: 'STORE_UNAVAILABLE',
        ...outage,
        sourceId: message.sourceId,
        runId: message.runId,
        continuation: message.continuation,
      });
    } else {
      // Not an outage and not the council's answer (the engine reports those): a fault of ours — our
      // store refusing a call (ERR-4: never the source's) or a bug. On-call needs the source, the store
      // and the error's code; the message text may carry URLs or values, so not it.
      const refusal = storeRefusalOf(err);
      log.error('sync run threw, sync message given back for redelivery', {
        code: refusal ? 'STORE_REFUSED' : isIngestorError(err) ? err.code : 'UNKNOWN',
        ...(refusal ?? { error: err instanceof Error ? err.name : typeof err }),
        sourceId: message.sourceId,
        runId: message.runId,
      });
    }
    throw err;
  }
  const lane = message.lane;
  logResult(
    log,
    message,
    result,
    lane !== undefined && lane.entries.length > 0
      ? { host: lane.host, position: 0, left: lane.entries.length }
      : undefined,
  );
  const laneRuns: SyncRunResult[] = [];
  // Issue 27: a lane with a pool re-plans its host even when no entry waited at the plan.
  const laneGoesOn = lane !== undefined && (lane.entries.length > 0 || lane.pool !== undefined);
  if (result.status === 'done' && lane !== undefined && laneGoesOn) {
    // RATE-9 on a saturated host: a full sync that heads the lane defers its next full by its share.
    const fullsNotBefore = laneAfterRun(lane, {
      kind: message.kind,
      startedMs: Date.parse(message.startedAt),
      endedMs: deps.runDeps.now().getTime(),
    });
    await runLane(
      deps.runDeps,
      fullsNotBefore === undefined ? lane : { ...lane, fullsNotBefore },
      {
        deadlineMs: startMs + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
        endsAtMs: startMs + remainingMs,
        ...(signal ? { signal } : {}),
      },
      (step) => {
        if (step.status === 'ran') laneRuns.push(step.result);
        logLaneStep(deps, log, step);
      },
    );
  }
  return laneRuns.length > 0 ? { ...result, laneRuns } : result;
}

/** The log of one run's message: a duplicate dropped, a clock behind, and always "sync message done". */
function logResult(
  log: SyncLog,
  message: Pick<SyncMessage, 'runId' | 'continuation'>,
  result: SyncRunResult,
  lane?: LanePosition,
): void {
  if (result.status === 'dropped' && result.duplicate !== undefined) {
    log.info('duplicate sync message dropped', {
      code: 'SYNC_DUPLICATE_DELIVERY',
      duplicate: result.duplicate,
      sourceId: result.sourceId,
      runId: message.runId,
      continuation: message.continuation,
      reason: result.reason,
      ...(lane ? { lane } : {}),
    });
    return;
  }
  if (result.status === 'done' && result.clockSkewMs !== undefined) {
    log.warn('sync instance clock behind the run start: run ended at its start', {
      code: 'SYNC_CLOCK_SKEW',
      sourceId: result.sourceId,
      skewMs: result.clockSkewMs,
    });
  }
  log.info('sync message done', {
    sourceId: result.sourceId,
    status: result.status,
    ...(result.status === 'dropped'
      ? { reason: result.reason }
      : {
          requests: result.report.requests,
          objects: result.report.objects,
          failures: result.report.failures,
        }),
    // Host lanes: which host's queue this run came from, its place in it and how many wait behind it.
    ...(lane ? { lane } : {}),
  });
}

function logLaneStep(deps: SyncBatchDeps, log: SyncLog, step: LaneStep): void {
  switch (step.status) {
    case 'ran':
      // A lane run is started in place: its first message (continuation 0) never went through the queue.
      logResult(log, { runId: step.runId, continuation: 0 }, step.result, step.lane);
      return;
    case 'skipped':
      log.info('lane entry skipped', { sourceId: step.sourceId, reason: step.reason, lane: step.lane });
      return;
    case 'handed-on':
      // Issue 27: the invocation was short of time; the host goes on in a new one without a tick's gap.
      log.info('lane handed on', { sourceId: step.sourceId, runId: step.runId, lane: step.lane });
      return;
    case 'left':
      log.info('lane left for the planner', {
        lane: { host: step.host, left: step.left },
        reason: step.reason,
        sourceIds: step.sourceIds,
      });
      return;
    case 'store-outage': {
      const buffer = deps.metrics ?? processMetrics;
      buffer.count(METRICS.storeOutages);
      buffer.flush();
      log.error('store unavailable, lane left for the planner', {
        code: 'STORE_UNAVAILABLE',
        ...(storeOutageOf(step.error) ?? {}),
        sourceId: step.sourceId,
        lane: { host: step.host },
      });
      return;
    }
  }
}
