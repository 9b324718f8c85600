import { logger, metrics, putHostMetrics, putSlotMetrics, putStarvationMetrics } from '../observability';
import type { PlannerComposition } from './compose';
import { emitPlannerMetrics } from './pause-metrics';
import type { StarvedSource } from './starvation';
import { type PlannedHost, type PlannerTickResult, plannerTick } from './tick';
import { type WakeResult, wakeSyncWorkers } from './wake';

/**
 * One planner invocation on a composed planner (`composePlanner`): the tick, its metrics, the change
 * feed's outbox and one log line. `functions/planner.ts` only keeps the composition while warm and
 * calls this; `npm start` reaches it through that handler.
 */
export async function runPlannerInvocation(
  planner: PlannerComposition,
  now: Date,
): Promise<PlannerTickResult> {
  const { deps } = planner;
  const result = await plannerTick(deps, now);
  // Issue 28: the sync workers for what now waits (the `planner` trigger; else the event source's).
  const workers = await wakeWorkers(planner);
  // RATE-9: saturated hosts for the dashboard (lawful, not paged); starved sources for the alarm.
  const saturatedHosts = putHostMetrics(result.hosts, metrics);
  const starved = putStarvationMetrics(result.starvation, metrics);
  // SCH-5 sizing (issue 27): how many sync slots the demand needs beyond the configured ones.
  if (result.slotsNeeded !== undefined)
    putSlotMetrics(result.slotsNeeded, deps.settings.maxConcurrentSyncs, metrics);
  metrics.flush();
  // ERR-4/ERR-5 pauses as metrics; the "paused for more than a day" alarm reads them.
  const pauses = await emitPlannerMetrics(deps.doc, deps.tables, now);
  const redelivered = await drainChanges(planner);
  logger.info('planner tick', {
    sources: result.sources,
    invalid: result.invalid,
    started: result.started.map((s) => `${s.sourceId}:${s.kind}`),
    ...(workers ? { syncWorkers: workers } : {}),
    ...(pauses ? { paused: pauses.paused, longestPauseHours: pauses.longestPauseHours } : {}),
    ...(redelivered > 0 ? { changesRedelivered: redelivered } : {}),
    // SCH-5 sizing (issue 27): the demand needs more sync slots than configured.
    ...(result.slotsShort ? { slotsShort: result.slotsShort, slotsNeeded: result.slotsNeeded } : {}),
    // The tick planned without pauses, Crawl-delays and other fetches' shares (the slots still keep them).
    ...(result.hostLedgerUnavailable ? { hostLedgerUnavailable: result.hostLedgerUnavailable } : {}),
    // Sources written by hand without their host key (the lanes' `byHost` index): stamped by this tick.
    ...(result.hostKeysStamped ? { hostKeysStamped: result.hostKeysStamped } : {}),
    // RATE-9: hosts whose pace binds (stretched cadence) or with runs waiting for them — host keys only.
    ...(result.hosts.length > 0 ? { saturatedHosts, hosts: result.hosts.map(hostLine) } : {}),
    // RATE-9 broken: which sources starve, on which host, how long past their stretched turn (the alarm's).
    ...(starved > 0
      ? {
          starvedSources: starved,
          starved: result.starvation.starved.slice(0, STARVED_LOGGED).map(starvedLine),
        }
      : {}),
  });
  return result;
}

/** Starved sources named in the tick's log line (most overdue first); the count is on the line too. */
const STARVED_LOGGED = 10;

function starvedLine(s: StarvedSource): string {
  return `${s.sourceId} on ${s.host}: ${s.overdueMinutes} min past its turn (stretched interval ${s.stretchedIntervalMinutes} min, ×${s.stretch})`;
}

/** A planned host in the tick's log line: its sources, stretch, queue and what else binds it. */
function hostLine(h: PlannedHost): string {
  return (
    `${h.host}: ${h.sources} sources, ×${Math.round(h.stretch * 100) / 100}, ${h.queuedRuns} queued` +
    (h.otherRequestsPerSecond > 0
      ? `, other fetches ${Math.round(h.otherRequestsPerSecond * 100) / 100}/s`
      : '') +
    (h.pausedUntil ? `, paused until ${h.pausedUntil} (RATE-8)` : '')
  );
}

/**
 * The leases and messages are in place whatever happens here: a failed look or send only leaves the
 * runs waiting for the next tick, which reads the queues again.
 */
async function wakeWorkers(planner: PlannerComposition): Promise<WakeResult | undefined> {
  if (planner.wake === undefined) return undefined;
  try {
    return await wakeSyncWorkers(planner.wake);
  } catch (error) {
    logger.warn('sync workers not started this tick', {
      code: 'STORE_UNAVAILABLE',
      error: error instanceof Error ? error.name : String(error),
    });
    return undefined;
  }
}

/** The feed's trouble is not the tick's: what stays in the outbox waits for the next drain. */
async function drainChanges(planner: PlannerComposition): Promise<number> {
  try {
    return (await planner.changes?.drain()) ?? 0;
  } catch (error) {
    logger.warn('change feed outbox not drained', {
      error: error instanceof Error ? error.name : String(error),
    });
    return 0;
  }
}
