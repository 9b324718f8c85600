import type { ChangeFeed } from '../shared/changes';
import { env } from '../shared/config';
import { logger, metrics, putHostMetrics, putSlotMetrics } from '../shared/observability';
import {
  composePlanner,
  emitPlannerMetrics,
  type PlannerDeps,
  type PlannerTickResult,
  plannerTick,
} from '../shared/planner';

/**
 * Planner Lambda (EventBridge Scheduler, every minute): decide, lease, enqueue. It never fetches. Wired
 * once per instance by `composePlanner` (shared/planner/compose.ts).
 */
let deps: PlannerDeps | undefined;
/** `drain` is a no-op until due (the first tick of an instance, then every OUTBOX_DRAIN_INTERVAL_MS). */
let changes: ChangeFeed | undefined;

export const handler = async (): Promise<PlannerTickResult> => {
  if (deps === undefined) ({ deps, changes } = await composePlanner(env()));
  const now = new Date();
  const result = await plannerTick(deps, now);
  // RATE-9: saturated hosts as gauges every tick (the "host saturated" alarm reads them).
  const saturatedHosts = putHostMetrics(result.hosts, metrics);
  // SCH-5 sizing (issue 27): how many sync slots the demand needs beyond the configured ones.
  if (result.slotsNeeded !== undefined)
    putSlotMetrics(result.slotsNeeded, deps.settings.maxConcurrentSyncs, metrics);
  metrics.flush();
  // ERR-4/ERR-5 pauses as metrics; the "paused for more than a day" alarm reads them.
  const pauses = await emitPlannerMetrics(deps.doc, deps.tables, now);
  const redelivered = await drainChanges();
  logger.info('planner tick', {
    sources: result.sources,
    invalid: result.invalid,
    started: result.started.map((s) => `${s.sourceId}:${s.kind}`),
    ...(pauses ? { paused: pauses.paused, longestPauseHours: pauses.longestPauseHours } : {}),
    ...(redelivered > 0 ? { changesRedelivered: redelivered } : {}),
    // SCH-5 sizing (issue 27): the demand needs more sync slots than configured.
    ...(result.slotsShort ? { slotsShort: result.slotsShort, slotsNeeded: result.slotsNeeded } : {}),
    // The tick planned without pauses, Crawl-delays and other fetches' shares (the slots still keep them).
    ...(result.hostLedgerUnavailable ? { hostLedgerUnavailable: result.hostLedgerUnavailable } : {}),
    // RATE-9: hosts whose pace binds (stretched cadence) or with runs waiting for them — host keys only.
    ...(result.hosts.length > 0
      ? {
          saturatedHosts,
          hosts: result.hosts.map(
            (h) =>
              `${h.host}: ${h.sources} sources, ×${Math.round(h.stretch * 100) / 100}, ${h.queuedRuns} queued` +
              (h.otherRequestsPerSecond > 0
                ? `, other fetches ${Math.round(h.otherRequestsPerSecond * 100) / 100}/s`
                : '') +
              (h.pausedUntil ? `, paused until ${h.pausedUntil} (RATE-8)` : ''),
          ),
        }
      : {}),
  });
  return result;
};

/** The feed's trouble is not the tick's: what stays in the outbox waits for the next drain. */
async function drainChanges(): Promise<number> {
  try {
    return (await changes?.drain()) ?? 0;
  } catch (error) {
    logger.warn('change feed outbox not drained', {
      error: error instanceof Error ? error.name : String(error),
    });
    return 0;
  }
}
