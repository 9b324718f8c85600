import type { BroadcastPassReport } from '../shared/broadcasts';
import { composeBroadcasts, runBroadcastPass } from '../shared/broadcasts';
import { env, warmRuntime } from '../shared/config';
import { logger } from '../shared/observability';

/**
 * Broadcasts Lambda (EventBridge Scheduler, every minute): one pass over the broadcast sources (OTH-5).
 * Outside every meeting window it reads a few State items and sends no request to any provider.
 */

// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, async () => composeBroadcasts(env()));

export const handler = async (): Promise<BroadcastPassReport> => {
  const rt = await runtime.get();
  const report = await runBroadcastPass(rt.deps, new Date());
  logger.info('broadcasts pass', {
    broadcasts: report.broadcasts,
    invalid: report.invalid,
    requests: report.requests,
    live: report.live,
    errors: report.errors,
  });
  return report;
};
