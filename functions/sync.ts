import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { env } from '../shared/config/env';
import { isIngestorError } from '../shared/errors';
import { logger } from '../shared/observability/logger';
import { parseSyncMessage } from '../shared/sync/message';
import { runSyncMessage, type SyncRunResult } from '../shared/sync/run';
import { createSyncRuntime, type SyncRuntime, type SyncRuntimeOptions } from '../shared/sync/runtime';

/**
 * Sync Lambda (SQS sync queue, batch size 1): one message = one source's sync run or its continuation.
 * Partial batch responses: a store failure redelivers only its own message.
 */

/** Time kept back from the invocation's budget for the last page, the checkpoint and the hand-over. */
export const BUDGET_RESERVE_MS = 60_000;
/** Of that, kept back after every request has ended (cut if need be): the checkpoint and the hand-over. */
export const CHECKPOINT_RESERVE_MS = 15_000;

let runtime: Promise<SyncRuntime> | undefined;
const processor = new BatchProcessor(EventType.SQS);

/** Local runner only: build the runtime with extra options (request observer, loopback resolver). */
export function configureSyncRuntime(options: SyncRuntimeOptions): void {
  runtime = createSyncRuntime(env(), options);
}

export async function processSyncBody(body: string, remainingMs: number): Promise<SyncRunResult> {
  runtime ??= createSyncRuntime(env());
  const rt = await runtime;
  let message: ReturnType<typeof parseSyncMessage>;
  try {
    message = parseSyncMessage(body);
  } catch (err) {
    // A malformed message can never succeed: log it and drop it instead of cycling it to the DLQ.
    logger.error('dropping malformed sync message', { code: isIngestorError(err) ? err.code : 'UNKNOWN' });
    return {
      status: 'dropped',
      sourceId: '(unknown)',
      reason: err instanceof Error ? err.message : String(err),
    };
  }
  const result = await runSyncMessage(rt.runDeps, message, {
    deadlineMs: Date.now() + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
    requestsEndMs: Date.now() + Math.max(0, remainingMs - CHECKPOINT_RESERVE_MS),
  });
  logger.info('sync message done', {
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

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
  processPartialResponse(
    event,
    async (record: SQSRecord) => {
      await processSyncBody(record.body, context.getRemainingTimeInMillis());
    },
    processor,
    { context },
  );
