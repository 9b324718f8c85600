import type { Context } from 'aws-lambda';
import { env, warmRuntime } from '../shared/config';
import { createDocumentsRuntime, type PhotosReport, runPhotosPass } from '../shared/documents';
import { logger } from '../shared/observability';

/** Photos Lambda (Mondays 03:00 Europe/Berlin): SPEC PHO-1 … PHO-3. One pass per invocation. */
export const BUDGET_RESERVE_MS = 60_000;

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => createDocumentsRuntime(env()));

export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<PhotosReport> => {
  const rt = await runtime.get();
  const remainingMs = context?.getRemainingTimeInMillis() ?? 15 * 60_000;
  const report = await runPhotosPass(rt.deps, {
    now: new Date(),
    deadlineMs: Date.now() + Math.max(0, remainingMs - BUDGET_RESERVE_MS),
  });
  logger.info('photos done', { photos: report.photos });
  return report;
};
