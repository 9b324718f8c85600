import { env } from '../shared/config';
import { emitPlannerMetrics, logger } from '../shared/observability';
import { type PlannerDeps, type PlannerTickResult, plannerTick } from '../shared/planner';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../shared/schedule';
import { createAwsClients } from '../shared/store';

/** Planner Lambda (EventBridge Scheduler, every minute): decide, lease, enqueue. It never fetches. */
let deps: PlannerDeps | undefined;

function plannerDeps(): PlannerDeps {
  const e = env();
  if (!e.SYNC_QUEUE_URL) throw new Error('SYNC_QUEUE_URL is not set');
  const clients = createAwsClients(e);
  return {
    doc: clients.doc,
    sqs: clients.sqs,
    tables: { sources: e.SOURCES_TABLE, state: e.STATE_TABLE },
    syncQueueUrl: e.SYNC_QUEUE_URL,
    settings: scheduleSettingsFromEnv(e),
    leaseMinutes: DEFAULT_LEASE_MINUTES,
    // A warm instance keeps the parsed Sources table between ticks (re-read every 5 minutes).
    cache: {},
  };
}

export const handler = async (): Promise<PlannerTickResult> => {
  deps ??= plannerDeps();
  const now = new Date();
  const result = await plannerTick(deps, now);
  // ERR-4/ERR-5 pauses as metrics; the "paused for more than a day" alarm reads them.
  const pauses = await emitPlannerMetrics(deps.doc, deps.tables, now);
  logger.info('planner tick', {
    sources: result.sources,
    invalid: result.invalid,
    started: result.started.map((s) => `${s.sourceId}:${s.kind}`),
    ...(pauses ? { paused: pauses.paused, longestPauseHours: pauses.longestPauseHours } : {}),
  });
  return result;
};
