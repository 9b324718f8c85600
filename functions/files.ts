import type { Context } from 'aws-lambda';
import { env } from '../shared/config/env';
import {
  createDocumentsRuntime,
  type DocumentsRuntime,
  type FilesPassReport,
  runFilesPass,
} from '../shared/documents';
import { logger } from '../shared/observability/logger';

/**
 * Files Lambda (hourly, EventBridge Scheduler): the document cache and text extraction
 * (SPEC DOC-1 … DOC-7, ERR-6). One pass per invocation; it starts no new file in its last minutes.
 */
export const BUDGET_RESERVE_MS = 3 * 60_000;

let runtime: Promise<DocumentsRuntime> | undefined;

export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<FilesPassReport> => {
  runtime ??= createDocumentsRuntime(env());
  const rt = await runtime;
  const remainingMs = context?.getRemainingTimeInMillis() ?? 15 * 60_000;
  const report = await runFilesPass(rt.deps, {
    now: new Date(),
    deadlineMs: Date.now() + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
  });
  logger.info('files done', { files: report.files, text: report.text, routed: report.routed });
  return report;
};
