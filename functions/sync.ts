import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { env, warmRuntime } from '../shared/config';
import type { SyncBodyResult } from '../shared/sync';
import {
  composeSync,
  handleSyncBatch,
  processSyncBody as processBody,
  type SyncRuntimeOptions,
} from '../shared/sync';

/**
 * Sync Lambda (SQS sync queue): the sync worker (shared/sync/worker.ts). The event's messages (up to
 * SYNC_BATCH_SIZE) and whatever it takes from the queue itself while time is left run at once, one run
 * per host; one message = one source's sync run or its continuation, then its host lane.
 * Partial batch responses: a store failure redelivers only its own message.
 */

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => composeSync(env()));

/** Local runner only: build the runtime with extra options (request observer, loopback resolver). */
export function configureSyncRuntime(options: SyncRuntimeOptions): void {
  runtime.configure(() => composeSync(env(), options));
}

/** `signal`: the local runner's Ctrl-C (`npm start`) — the run ends at its next checkpoint. */
export async function processSyncBody(
  body: string,
  remainingMs: number,
  signal?: AbortSignal,
): Promise<SyncBodyResult> {
  const rt = await runtime.get();
  return processBody({ runDeps: rt.runDeps }, body, remainingMs, signal);
}

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const rt = await runtime.get();
  return handleSyncBatch(
    {
      runDeps: rt.runDeps,
      queue: rt.queue,
      // Issue 28: started by the planner's wake (infra `syncTrigger` planner), at its stack-set width.
      ...(rt.wakeQueue ? { wakeQueue: rt.wakeQueue } : {}),
      ...(rt.env.INGESTOR_SYNC_RUNS_AT_ONCE ? { runsAtOnce: rt.env.INGESTOR_SYNC_RUNS_AT_ONCE } : {}),
    },
    event,
    () => context.getRemainingTimeInMillis(),
  );
};
