import type { Context } from 'aws-lambda';
import { env, warmRuntime } from '../shared/config';
import { createDocumentsRuntime, type DeletionReport, runDeletionCheck } from '../shared/documents';
import { logger } from '../shared/observability';

/** Deletion-check Lambda (hourly): SPEC DEL-1 … DEL-5, RATE-6, B-1. One pass per invocation. */
export const BUDGET_RESERVE_MS = 2 * 60_000;

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => createDocumentsRuntime(env()));

export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<DeletionReport> => {
  const rt = await runtime.get();
  const remainingMs = context?.getRemainingTimeInMillis() ?? 15 * 60_000;
  const report = await runDeletionCheck(rt.deps, {
    now: new Date(),
    deadlineMs: Date.now() + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
  });
  logger.info('deletion check done', { checks: report.checks, requests: report.requests });
  return report;
};
