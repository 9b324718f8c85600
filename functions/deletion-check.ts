import { type DeletionReport, documentsPassHandler, runDeletionCheck } from '../shared/documents';
import { logger } from '../shared/observability';

/** Deletion-check Lambda (hourly): SPEC DEL-1 … DEL-5, RATE-6, B-1. One pass per invocation. */
export const BUDGET_RESERVE_MS = 2 * 60_000;

export const handler = documentsPassHandler<DeletionReport>(runDeletionCheck, BUDGET_RESERVE_MS, (report) =>
  logger.info('deletion check done', { checks: report.checks, requests: report.requests }),
);
