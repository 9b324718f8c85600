import type { Context } from 'aws-lambda';
import { env } from '../shared/config/env';
import {
  createDocumentsRuntime,
  type DeletionReport,
  type DocumentsRuntime,
  runDeletionCheck,
} from '../shared/documents';
import { logger } from '../shared/observability/logger';

/** Deletion-check Lambda (hourly): SPEC DEL-1 … DEL-5, RATE-6, B-1. One pass per invocation. */
export const BUDGET_RESERVE_MS = 2 * 60_000;

let runtime: Promise<DocumentsRuntime> | undefined;

export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<DeletionReport> => {
  runtime ??= createDocumentsRuntime(env());
  const rt = await runtime;
  const remainingMs = context?.getRemainingTimeInMillis() ?? 15 * 60_000;
  const report = await runDeletionCheck(rt.deps, {
    now: new Date(),
    deadlineMs: Date.now() + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
  });
  logger.info('deletion check done', { checks: report.checks, requests: report.requests });
  return report;
};
