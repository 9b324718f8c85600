import type { BroadcastPassReport } from '../shared/broadcasts';
import { createBroadcastRuntime, runBroadcastPass } from '../shared/broadcasts';
import { env } from '../shared/config';
import { logger } from '../shared/observability';

/**
 * Broadcasts Lambda (EventBridge Scheduler, every minute): one pass over the broadcast sources (OTH-5).
 * Outside every meeting window it reads a few State items and sends no request.
 */
let runtime: ReturnType<typeof createBroadcastRuntime> | undefined;

export const handler = async (): Promise<BroadcastPassReport> => {
  runtime ??= createBroadcastRuntime(env());
  const report = await runBroadcastPass(runtime.deps, new Date());
  logger.info('broadcasts pass', {
    broadcasts: report.broadcasts,
    invalid: report.invalid,
    requests: report.requests,
    live: report.live,
    errors: report.errors,
  });
  return report;
};
