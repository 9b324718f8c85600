import { type ChangeFeed, createFeedClients } from '../changes';
import { type IngestorEnv, upstashCredentials } from '../config';
import { logger } from '../observability';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../schedule';
import { createHostLedgerFromEnv } from '../slots';
import { SyncQueue } from '../store';
import { WORKER_RUNS_AT_ONCE } from '../sync';
import type { PlannerDeps } from './tick';
import type { WakeDeps } from './wake';

/**
 * The planner function's composition root: the clients, the tables, the schedule settings and the host
 * ledger, built once per instance (`functions/planner.ts` keeps them while warm).
 */
export interface PlannerComposition {
  deps: PlannerDeps;
  /**
   * Issue 16: the change feed's outbox, drained by the planner too, so events a dead sync or operator
   * command left there go out within minutes even while no sync runs.
   */
  changes: ChangeFeed | undefined;
  /** Issue 28: with the `planner` trigger, the sync workers this planner starts (shared/planner/wake.ts). */
  wake?: WakeDeps;
}

export async function composePlanner(e: IngestorEnv): Promise<PlannerComposition> {
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
  const wakeQueueUrl = e.SYNC_WAKE_QUEUE_URL;
  const syncQueueUrl = e.SYNC_QUEUE_URL;
  return {
    changes: clients.changes,
    ...(wakeQueueUrl
      ? {
          wake: {
            syncQueue: new SyncQueue({ sqs: clients.sqs, queueUrl: syncQueueUrl }),
            wakeQueue: new SyncQueue({ sqs: clients.sqs, queueUrl: wakeQueueUrl }),
            runsAtOnce: e.INGESTOR_SYNC_RUNS_AT_ONCE ?? WORKER_RUNS_AT_ONCE,
            maxWorkers: e.INGESTOR_SYNC_WORKERS_MAX,
          },
        }
      : {}),
    deps: {
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
    },
  };
}
