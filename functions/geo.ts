import { env, warmRuntime } from '../shared/config';
import { composeGeo, type GeoRunSummary } from '../shared/geo';
import { logger } from '../shared/observability';

/**
 * Geo function (daily, Europe/Berlin): the plan boundaries of every active geo source (OTH-4), fetched
 * through the other-fetch mode (OTH-1…3). One refresh per invocation.
 */

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => composeGeo(env()));

export const handler = async (): Promise<Omit<GeoRunSummary, 'reports'>> => {
  const rt = await runtime.get();
  const { reports: _reports, ...summary } = await rt.refresh();
  // Counts and fixed error texts only: no URLs, hosts or exception details (OTH-4).
  logger.info('geo done', { ...summary });
  return summary;
};
