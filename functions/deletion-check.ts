import { env, warmRuntime } from '../shared/config';
import { composeDocuments, documentsPassHandler, runDeletionCheck, shardOfEvent } from '../shared/documents';
import { logger } from '../shared/observability';

/**
 * Deletion-check Lambda (hourly): SPEC DEL-1 … DEL-5, RATE-6, B-1. One pass per invocation; at
 * 10,000+ sources the hour's run is split into shards by host, each schedule invoking with its
 * `{ shard: { index, of } }` (issue 28, shared/documents/deletion-shards.ts).
 */
export const BUDGET_RESERVE_MS = 2 * 60_000;

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => composeDocuments(env()));

export const handler = documentsPassHandler({
  runtime: () => runtime.get(),
  pass: runDeletionCheck,
  reserveMs: BUDGET_RESERVE_MS,
  optionsOf: (event) => {
    const shard = shardOfEvent(event);
    return shard ? { shard } : {};
  },
  done: (report) =>
    logger.info('deletion check done', {
      checks: report.checks,
      requests: report.requests,
      ...(report.shard ? { shard: report.shard } : {}),
    }),
});
