import { documentsPassHandler, type PhotosReport, runPhotosPass } from '../shared/documents';
import { logger } from '../shared/observability';

/** Photos Lambda (Mondays 03:00 Europe/Berlin): SPEC PHO-1 … PHO-3. One pass per invocation. */
export const BUDGET_RESERVE_MS = 60_000;

export const handler = documentsPassHandler<PhotosReport>(runPhotosPass, BUDGET_RESERVE_MS, (report) =>
  logger.info('photos done', { photos: report.photos }),
);
