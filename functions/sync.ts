import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { env } from '../shared/config/env';
import { handleSyncBatch, processSyncBody as processBody } from '../shared/sync/batch';
import type { SyncRunResult } from '../shared/sync/run';
import { createSyncRuntime, type SyncRuntime, type SyncRuntimeOptions } from '../shared/sync/runtime';

/**
 * Sync Lambda (SQS sync queue, batch size 1): one message = one source's sync run or its continuation.
 * Partial batch responses: a store failure redelivers only its own message (shared/sync/batch.ts).
 */

let runtime: Promise<SyncRuntime> | undefined;

/** Local runner only: build the runtime with extra options (request observer, loopback resolver). */
export function configureSyncRuntime(options: SyncRuntimeOptions): void {
  runtime = createSyncRuntime(env(), options);
}

async function syncRuntime(): Promise<SyncRuntime> {
  runtime ??= createSyncRuntime(env());
  return runtime;
}

export async function processSyncBody(body: string, remainingMs: number): Promise<SyncRunResult> {
  const rt = await syncRuntime();
  return processBody({ runDeps: rt.runDeps }, body, remainingMs);
}

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const rt = await syncRuntime();
  return handleSyncBatch({ runDeps: rt.runDeps }, event, () => context.getRemainingTimeInMillis(), context);
};
