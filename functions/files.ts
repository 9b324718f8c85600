import { documentsPassHandler, type FilesPassReport, runFilesPass } from '../shared/documents';
import { logger } from '../shared/observability';

/**
 * Files Lambda (hourly, EventBridge Scheduler): the document cache and text extraction
 * (SPEC DOC-1 … DOC-7, ERR-6). One pass per invocation; it starts no new file in its last minutes.
 */
export const BUDGET_RESERVE_MS = 3 * 60_000;

export const handler = documentsPassHandler<FilesPassReport>(runFilesPass, BUDGET_RESERVE_MS, (report) =>
  logger.info('files done', { files: report.files, text: report.text, routed: report.routed }),
);
