import { type ChangeFeed, createFeedClients } from '../shared/changes';
import { env, upstashCredentials } from '../shared/config';
import { logger, metrics, putHostMetrics, putSlotMetrics } from '../shared/observability';
import { emitPlannerMetrics, type PlannerDeps, type PlannerTickResult, plannerTick } from '../shared/planner';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../shared/schedule';
import { createHostLedgerFromEnv } from '../shared/slots';

/** Planner Lambda (EventBridge Scheduler, every minute): decide, lease, enqueue. It never fetches. */
let deps: PlannerDeps | undefined;
/**
 * Issue 16: the change feed's outbox is drained here too, so events a dead sync or operator command
 * left there go out within minutes even while no sync runs. `drain` is a no-op until due (the first
 * tick of an instance, then every OUTBOX_DRAIN_INTERVAL_MS): one Query of a normally empty partition.
 */
let changes: ChangeFeed | undefined;

async function plannerDeps(): Promise<PlannerDeps> {
  const e = env();
  if (!e.SYNC_QUEUE_URL) throw new Error('SYNC_QUEUE_URL is not set');
  const clients = createFeedClients(e);
  // RATE-8 / ROB-10 / item 5 of issue 27: the host ledger the fetchers' slots write (Upstash, or in
  // `npm start` this process's own): one read per tick for every host's pause, Crawl-delay and share.
  // An unreadable secret must not stop the planner (it never fetches): it then plans without the ledger.
  const credentials = await upstashCredentials(e).catch((error: unknown) => {
    logger.warn('host ledger off: Upstash credentials unreadable', {
      code: (error as { code?: string }).code ?? 'ERROR',
    });
    return null;
  });
  changes = clients.changes;
  return {
    doc: clients.doc,
    sqs: clients.sqs,
    tables: { sources: e.SOURCES_TABLE, state: e.STATE_TABLE },
    syncQueueUrl: e.SYNC_QUEUE_URL,
    settings: scheduleSettingsFromEnv(e),
    leaseMinutes: DEFAULT_LEASE_MINUTES,
    // A warm instance keeps the parsed Sources table between ticks (re-read every 5 minutes).
    cache: {},
    ...(credentials === null
      ? {}
      : { hostLedger: createHostLedgerFromEnv(e, credentials ? { token: credentials.token } : {}) }),
  };
}

export const handler = async (): Promise<PlannerTickResult> => {
  deps ??= await plannerDeps();
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
