import type { Context } from 'aws-lambda';
import { env, warmRuntime } from '../shared/config';
import { createDocumentsRuntime, type FilesPassReport, runFilesPass } from '../shared/documents';
import { logger } from '../shared/observability';

/**
 * Files Lambda (hourly, EventBridge Scheduler): the document cache and text extraction
 * (SPEC DOC-1 … DOC-7, ERR-6). One pass per invocation; it starts no new file in its last minutes.
 */
export const BUDGET_RESERVE_MS = 3 * 60_000;

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => createDocumentsRuntime(env()));

export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<FilesPassReport> => {
  const rt = await runtime.get();
  const remainingMs = context?.getRemainingTimeInMillis() ?? 15 * 60_000;
  const report = await runFilesPass(rt.deps, {
    now: new Date(),
    deadlineMs: Date.now() + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
  });
  logger.info('files done', { files: report.files, text: report.text, routed: report.routed });
  return report;
};
