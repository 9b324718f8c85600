import { env, warmRuntime } from '../shared/config';
import { composeDocuments, documentsPassHandler, runPhotosPass } from '../shared/documents';
import { logger } from '../shared/observability';

/** Photos Lambda (Mondays 03:00 Europe/Berlin): SPEC PHO-1 … PHO-3. One pass per invocation. */
export const BUDGET_RESERVE_MS = 60_000;

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => composeDocuments(env()));

export const handler = documentsPassHandler({
  runtime: () => runtime.get(),
  pass: runPhotosPass,
  reserveMs: BUDGET_RESERVE_MS,
  done: (report) => logger.info('photos done', { photos: report.photos }),
});
