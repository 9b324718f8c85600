import { env, warmRuntime } from '../shared/config';
import { composeDocuments, documentsPassHandler, runFilesPass } from '../shared/documents';
import { logger } from '../shared/observability';

/**
 * Files Lambda (hourly, EventBridge Scheduler): the document cache and text extraction
 * (SPEC DOC-1 … DOC-7, ERR-6). One pass per invocation; it starts no new file in its last minutes.
 */
export const BUDGET_RESERVE_MS = 3 * 60_000;

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => composeDocuments(env()));

export const handler = documentsPassHandler({
  runtime: () => runtime.get(),
  pass: runFilesPass,
  reserveMs: BUDGET_RESERVE_MS,
  done: (report) =>
    logger.info('files done', { files: report.files, text: report.text, routed: report.routed }),
});
