import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { isIngestorError } from '../errors';
import { logger, METRICS, type MetricsBuffer, metrics as processMetrics } from '../observability';
import { storeOutageOf } from '../store';
import { parseSyncMessage } from './message';
import { runSyncMessage, type SyncRunDeps, type SyncRunResult } from './run';

/**
 * The sync function's work on one SQS batch (infra SYNC_BATCH_SIZE messages, worked concurrently so
 * their politeness waits overlap — issue 18): parse, run, log. Partial batch responses:
 * a message that could not finish because our own store failed (issue 13) is reported as a batch item
 * failure — SQS redelivers it after the visibility timeout — and counted as ours (`StoreOutages`), never
 * as a failure of the source. Everything else the source did is an outcome, not an error.
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

const defaultLog: SyncLog = {
  info: (message, fields) => logger.info(message, fields),
  warn: (message, fields) => logger.warn(message, fields),
  error: (message, fields) => logger.error(message, fields),
};

export async function processSyncBody(
  deps: SyncBatchDeps,
  body: string,
  remainingMs: number,
  /** The local runner's Ctrl-C (`npm start`): the run ends at its next checkpoint. */
  signal?: AbortSignal,
): Promise<SyncRunResult> {
  const log = deps.log ?? defaultLog;
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
    }
    throw err;
  }
  if (result.status === 'dropped' && result.duplicate !== undefined) {
    log.info('duplicate sync message dropped', {
      code: 'SYNC_DUPLICATE_DELIVERY',
      duplicate: result.duplicate,
      sourceId: result.sourceId,
      runId: message.runId,
      continuation: message.continuation,
      reason: result.reason,
    });
    return result;
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
  });
  return result;
}

/** One batch: every record through `processSyncBody`; a thrown record becomes a batch item failure. */
export async function handleSyncBatch(
  deps: SyncBatchDeps,
  event: SQSEvent,
  remainingMs: () => number,
  context?: Context,
): Promise<SQSBatchResponse> {
  return processPartialResponse(
    event,
    async (record: SQSRecord) => {
      await processSyncBody(deps, record.body, remainingMs());
    },
    // Per batch: the processor keeps the batch's records and failures.
    new BatchProcessor(EventType.SQS),
    // Records run in parallel (the processor's default). When every record fails it is a full-batch
    // failure: report it, do not throw (which would look like a crash of the function, not like our
    // store's outage).
    { throwOnFullBatchFailure: false, ...(context ? { context } : {}) },
  );
}
